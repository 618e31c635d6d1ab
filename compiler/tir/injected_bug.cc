#include "compiler/tir/injected_bug.h"

#include <atomic>

namespace tunefarm::tir {

namespace {
std::atomic<InjectedBug> g_bug{InjectedBug::kNone};
}

void SetInjectedBugForTesting(InjectedBug bug) { g_bug.store(bug); }
InjectedBug CurrentInjectedBug() { return g_bug.load(std::memory_order_relaxed); }

}  // namespace tunefarm::tir
