#include <map>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/compile_module.h"
#include "common/strings.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

namespace tunefarm::codegen {

struct JitModule::State {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::map<std::string, tunefarm_kernel_fn, std::less<>> entries;
  const tunefarm_host_api** host_api = nullptr;  // the module's tunefarm_host_api variable
};

namespace {
absl::Status JitError(llvm::Error error) {
  return absl::InternalError(StrCat("LLVM JIT: ", llvm::toString(std::move(error))));
}
}  // namespace

JitModule::JitModule(std::unique_ptr<State> state) : state_(std::move(state)) {}
JitModule::~JitModule() = default;

absl::StatusOr<std::unique_ptr<JitModule>> JitModule::Compile(const std::vector<tir::PrimFunc>& funcs,
                                                              const Target& target) {
  const std::string host = CanonicalTriple(llvm::sys::getProcessTriple());
  if (target.triple != host) {
    return absl::InvalidArgumentError(StrCat("the JIT runs code on this machine (", host,
                                             "), not on ", target.ToString()));
  }
  absl::StatusOr<CompiledModule> compiled = CompileModule(funcs, target, /*optimize=*/true);
  if (!compiled.ok()) return compiled.status();

  llvm::orc::JITTargetMachineBuilder machine{llvm::Triple(target.triple)};
  machine.setCPU(target.cpu.empty() ? "generic" : target.cpu);
  machine.addFeatures(target.features);
  machine.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit =
      llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(machine)).create();
  if (!jit) return JitError(jit.takeError());
  auto state = std::make_unique<State>();
  state->jit = std::move(*jit);
  // memcpy/memset/memmove come from the process: LLJIT links its main library against the
  // process's symbols by default.
  compiled->module->setDataLayout(state->jit->getDataLayout());
  llvm::orc::ThreadSafeModule module(std::move(compiled->module), std::move(compiled->context));
  if (llvm::Error error = state->jit->addIRModule(std::move(module))) return JitError(std::move(error));
  for (const tir::PrimFunc& f : funcs) {
    llvm::Expected<llvm::orc::ExecutorAddr> address = state->jit->lookup(f.name);
    if (!address) return JitError(address.takeError());
    state->entries.emplace(f.name, address->toPtr<tunefarm_kernel_fn>());
  }
  llvm::Expected<llvm::orc::ExecutorAddr> api = state->jit->lookup(TUNEFARM_SYM_HOST_API);
  if (!api) return JitError(api.takeError());
  state->host_api = api->toPtr<const tunefarm_host_api**>();
  return std::unique_ptr<JitModule>(new JitModule(std::move(state)));
}

tunefarm_kernel_fn JitModule::Lookup(std::string_view name) const {
  auto it = state_->entries.find(name);
  return it == state_->entries.end() ? nullptr : it->second;
}

void JitModule::SetHostApi(const tunefarm_host_api* api) { *state_->host_api = api; }

}  // namespace tunefarm::codegen
