#include "compiler/tir/gpu_barriers.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/strings.h"
#include "compiler/tir/stmt_functor.h"

namespace tunefarm::tir {
namespace {

// The shared buffers a statement reads and writes, anywhere inside it.
struct SharedAccess {
  std::set<int> reads, writes;
};

class SharedAccessCollector : public StmtVisitor {
 public:
  SharedAccessCollector(const PrimFunc& f, SharedAccess* out) : f_(f), out_(out) {}

 protected:
  void VisitExpr(const Expr& e) override {
    te::Visit(e, [&](const Expr& n) {
      if (n->kind == te::ExprKind::kLoad && IsShared(n->int_value)) out_->reads.insert(static_cast<int>(n->int_value));
    });
  }
  void VisitStore(const StmtNode& op) override {
    if (IsShared(op.buffer)) out_->writes.insert(op.buffer);
    StmtVisitor::VisitStore(op);
  }

 private:
  bool IsShared(int64_t buffer) const {
    return buffer >= 0 && buffer < static_cast<int64_t>(f_.buffers.size()) &&
           f_.buffers[buffer].scope == BufferScope::kShared;
  }
  const PrimFunc& f_;
  SharedAccess* out_;
};

bool Intersects(const std::set<int>& a, const std::set<int>& b) {
  for (int x : a)
    if (b.count(x)) return true;
  return false;
}

class BarrierInserter : public StmtMutator {
 public:
  explicit BarrierInserter(const PrimFunc& f) : f_(f) {}
  std::string error;

 protected:
  Stmt MutateFor(const Stmt& s) override {
    const bool thread = s->for_kind == ForKind::kThreadBinding && IsThreadAxis(s->thread_axis);
    if (thread) thread_vars_.insert(s->loop_var->int_value);
    Stmt body = MutateStmt(s->body);
    if (thread) thread_vars_.erase(s->loop_var->int_value);
    if (s->for_kind != ForKind::kThreadBinding && body.defined()) {
      const SharedAccess access = AccessOf(body);
      if (!access.writes.empty() && !access.reads.empty()) body = Seq({body, MakeBarrier()});
    }
    return RebuildFor(s, s->extent, body);
  }

  Stmt MutateIf(const Stmt& s) override {
    const bool on_thread = UsesThreadVar(s->cond);
    thread_conditions_ += on_thread;
    Stmt then_case = MutateStmt(s->then_case);
    Stmt else_case = MutateStmt(s->else_case);
    thread_conditions_ -= on_thread;
    return RebuildIf(s, s->cond, then_case, else_case);
  }

  Stmt MutateSeq(const Stmt& s) override {
    std::vector<Stmt> out;
    std::set<int> written, read;  // shared buffers written, and read, since the last barrier
    bool changed = false;
    for (const Stmt& child : s->seq) {
      Stmt m = MutateStmt(child);
      changed |= !m.same_as(child);
      if (!m.defined()) continue;
      if (m->kind == StmtKind::kBarrier) written.clear(), read.clear();
      const SharedAccess access = AccessOf(m);
      if (Intersects(access.reads, written) || Intersects(access.writes, read)) {
        out.push_back(MakeBarrier());
        written.clear();
        read.clear();
        changed = true;
      }
      written.insert(access.writes.begin(), access.writes.end());
      read.insert(access.reads.begin(), access.reads.end());
      out.push_back(std::move(m));
    }
    if (!changed) return s;
    return out.empty() ? Stmt() : Seq(std::move(out));
  }

 private:
  SharedAccess AccessOf(const Stmt& s) const {
    SharedAccess access;
    SharedAccessCollector(f_, &access).VisitStmt(s);
    return access;
  }

  bool UsesThreadVar(const Expr& e) const {
    bool uses = false;
    te::Visit(e, [&](const Expr& n) { uses = uses || (n->kind == te::ExprKind::kVar && thread_vars_.count(n->int_value)); });
    return uses;
  }

  Stmt MakeBarrier() {
    if (thread_conditions_ > 0 && error.empty()) {
      error = "a barrier for shared memory would sit under a condition on a thread index, which not every thread "
              "of the block reaches (make the thread loops' extents divide their axes)";
    }
    return Barrier();
  }

  const PrimFunc& f_;
  std::set<int64_t> thread_vars_;  // variables of the threadIdx loops around the current statement
  int thread_conditions_ = 0;      // enclosing ifs whose condition uses one
};

}  // namespace

absl::StatusOr<Stmt> InsertSharedMemoryBarriers(const PrimFunc& f, const Stmt& launch_body) {
  BarrierInserter inserter(f);
  Stmt out = inserter.MutateStmt(launch_body);
  if (!inserter.error.empty()) return absl::InvalidArgumentError(StrCat("PrimFunc ", f.name, ": ", inserter.error));
  return out;
}

absl::Status CheckGpuLaunches(const PrimFunc& f, const GpuLimits& limits) {
  absl::StatusOr<std::vector<GpuLaunch>> launches = PlanGpuLaunches(f, limits);
  if (!launches.ok()) return launches.status();
  for (const GpuLaunch& launch : *launches)
    if (absl::StatusOr<Stmt> body = InsertSharedMemoryBarriers(f, launch.body); !body.ok()) return body.status();
  return absl::OkStatus();
}

}  // namespace tunefarm::tir
