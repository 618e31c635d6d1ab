#include "compiler/tir/gpu_launch.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "common/strings.h"
#include "compiler/tir/stmt_functor.h"

namespace tunefarm::tir {
namespace {

constexpr std::array<int64_t, 3> kMaxGrid = {(int64_t{1} << 31) - 1, 65535, 65535};
constexpr std::array<int64_t, 3> kMaxBlock = {1024, 1024, 64};

// Walks one launch, filling its shape and recording the first broken rule.
class LaunchChecker : public StmtVisitor {
 public:
  LaunchChecker(const PrimFunc& f, GpuLaunch* launch) : f_(f), launch_(launch) {}
  std::string error;

  // Once the walk has fixed the launch's shape: a store to global memory must lie inside a
  // loop bound to each dimension of extent > 1, or every thread along that dimension would
  // write the same elements at once (a race: a reduction's init wiping another's partial sum).
  // A store to shared memory, which each block has its own of, needs only the thread axes.
  std::string CheckGlobalStores() const {
    for (const auto& [buffer, axes] : global_stores_) {
      const bool shared = f_.buffers[buffer].scope == BufferScope::kShared;
      for (int a = static_cast<int>(ThreadAxis::kBlockX); a <= static_cast<int>(ThreadAxis::kThreadZ); ++a) {
        const ThreadAxis axis = static_cast<ThreadAxis>(a);
        if (shared && IsBlockAxis(axis)) continue;
        const int64_t extent = IsBlockAxis(axis) ? launch_->grid[ThreadAxisDim(axis)] : launch_->block[ThreadAxisDim(axis)];
        if (extent > 1 && std::find(axes.begin(), axes.end(), axis) == axes.end()) {
          return StrCat("a store to ", f_.buffers[buffer].name, " is not inside the loop bound to ", ThreadAxisName(axis),
                        " (extent ", extent, "): every ", IsBlockAxis(axis) ? "block" : "thread",
                        " along it would write the same elements at once");
        }
      }
    }
    return "";
  }

 protected:
  void VisitFor(const StmtNode& op) override {
    if (!error.empty()) return;
    if (op.for_kind != ForKind::kThreadBinding) return StmtVisitor::VisitFor(op);
    const ThreadAxis axis = op.thread_axis;
    const std::string name(ThreadAxisName(axis));
    int64_t extent = 0;
    if (!te::IsConstInt(op.extent, &extent) || extent < 1) {
      error = StrCat("the loop bound to ", name, " needs a positive constant extent");
      return;
    }
    for (size_t k = 0; k < enclosing_.size(); ++k) {
      const ThreadAxis outer = enclosing_[k];
      // Bound again inside, the axis is the same index: a block's threads sharing out the work of
      // a cooperative fetch (a shared stage attached inside the consumer's thread loops). That
      // means what the serial reading means only when the inner nest ignores the outer index,
      // runs for every thread (no condition on that index around it), and writes only shared
      // memory (which the barriers order; global memory they do not).
      if (outer == axis) {
        const int64_t var = enclosing_vars_[k];
        if (UsesVar(op.body, var)) {
          error = StrCat(name, " is bound inside a loop already bound to it, and the inner loop uses the outer one's index");
        } else if (std::any_of(condition_vars_.begin(), condition_vars_.end(),
                               [&](const std::vector<int64_t>& vars) { return Contains(vars, var); })) {
          error = StrCat(name, " is bound again under a condition on its index: not every thread would do its part");
        } else if (StoresOutsideSharedMemory(op.body)) {
          error = StrCat(name, " is bound again around a store outside shared memory, which no barrier orders");
        }
      }
      if (IsBlockAxis(axis) && IsThreadAxis(outer)) {
        error = StrCat(name, " is bound inside ", ThreadAxisName(outer), " (block axes go outside thread axes)");
      }
      if (!error.empty()) return;
    }
    const int dim = ThreadAxisDim(axis);
    int64_t& launch_extent = IsBlockAxis(axis) ? launch_->grid[dim] : launch_->block[dim];
    bool& seen = IsBlockAxis(axis) ? grid_seen_[dim] : block_seen_[dim];
    if (seen && launch_extent != extent) {
      error = StrCat(name, " has extent ", launch_extent, " in one loop and ", extent,
                     " in another (a launch has one ", name, " extent: bind the stages consistently)");
      return;
    }
    seen = true;
    launch_extent = extent;
    // Around a thread loop, a local buffer would be one per thread holding everyone's part; a
    // loop bound again to an axis already bound outside the buffer is the same thread (a
    // cooperative fetch inside a register tile's loops), which is fine.
    if (!allocated_.empty() && IsThreadAxis(axis) &&
        std::find(allocated_.front().begin(), allocated_.front().end(), axis) == allocated_.front().end()) {
      error = StrCat("a local buffer is allocated around the loop bound to ", name,
                     ": each thread would hold its own copy (attach its stage inside the thread bindings)");
      return;
    }
    enclosing_.push_back(axis);
    enclosing_vars_.push_back(op.loop_var->int_value);
    VisitStmt(op.body);
    enclosing_.pop_back();
    enclosing_vars_.pop_back();
  }

  // A shared buffer is the block's: only the thread loops inside its Allocate divide its
  // elements among the threads (those outside run the same stores in every thread).
  void VisitStore(const StmtNode& op) override {
    if (op.buffer >= 0 && op.buffer < static_cast<int>(f_.buffers.size())) {
      const BufferScope scope = f_.buffers[op.buffer].scope;
      if (scope == BufferScope::kShared) {
        auto depth = shared_depth_.find(op.buffer);
        const size_t from = depth == shared_depth_.end() ? 0 : depth->second;
        global_stores_.emplace_back(op.buffer, std::vector<ThreadAxis>(enclosing_.begin() + from, enclosing_.end()));
      } else if (scope != BufferScope::kLocal) {
        global_stores_.emplace_back(op.buffer, enclosing_);
      }
    }
    StmtVisitor::VisitStore(op);
  }

  void VisitIf(const StmtNode& op) override {
    std::vector<int64_t> vars;
    te::Visit(op.cond, [&](const Expr& n) {
      if (n->kind == te::ExprKind::kVar) vars.push_back(n->int_value);
    });
    condition_vars_.push_back(std::move(vars));
    StmtVisitor::VisitIf(op);
    condition_vars_.pop_back();
  }

  // Local buffers are per thread, shared ones per block (where inside the launch they are
  // allocated does not change that: the threads bound around one run at once).
  void VisitAllocate(const StmtNode& op) override {
    if (op.buffer < 0 || op.buffer >= static_cast<int>(f_.buffers.size())) return StmtVisitor::VisitAllocate(op);
    const Buffer& b = f_.buffers[op.buffer];
    if (std::find(counted_.begin(), counted_.end(), op.buffer) == counted_.end()) {
      counted_.push_back(op.buffer);
      if (b.scope == BufferScope::kShared)
        launch_->shared_bytes += SharedArrayBytes(b.NumBytes());
      else
        launch_->local_bytes += b.NumBytes();
    }
    if (b.scope == BufferScope::kShared) {
      shared_depth_[op.buffer] = enclosing_.size();
      return StmtVisitor::VisitAllocate(op);
    }
    allocated_.push_back(enclosing_);
    StmtVisitor::VisitAllocate(op);
    allocated_.pop_back();
  }

  static bool Contains(const std::vector<int64_t>& vars, int64_t var) {
    return std::find(vars.begin(), vars.end(), var) != vars.end();
  }

  bool StoresOutsideSharedMemory(const Stmt& body) const {
    bool outside = false;
    PreOrderVisit(body, [&](const Stmt& s) {
      outside = outside || (s->kind == StmtKind::kStore && f_.buffers[s->buffer].scope != BufferScope::kShared);
    });
    return outside;
  }

  static bool UsesVar(const Stmt& body, int64_t var) {
    bool used = false;
    PreOrderVisit(body, [&](const Stmt& s) {
      for (const Expr* e : {&s->extent, &s->index, &s->value, &s->cond}) {
        if (used || !e->defined()) continue;
        te::Visit(*e, [&](const Expr& n) { used = used || (n->kind == te::ExprKind::kVar && n->int_value == var); });
      }
    });
    return used;
  }

 private:
  const PrimFunc& f_;
  GpuLaunch* launch_;
  std::vector<ThreadAxis> enclosing_;
  std::vector<int64_t> enclosing_vars_;  // their loop variables
  std::vector<std::pair<int, std::vector<ThreadAxis>>> global_stores_;  // buffer, bound axes around it
  std::vector<std::vector<ThreadAxis>> allocated_;  // per open local Allocate: the axes bound around it
  std::map<int, size_t> shared_depth_;                // per shared buffer: enclosing_.size() at its Allocate
  std::vector<std::vector<int64_t>> condition_vars_;  // per enclosing if: the variables of its condition
  std::vector<int> counted_;  // local and shared buffers whose bytes the launch counts
  bool grid_seen_[3] = {false, false, false};
  bool block_seen_[3] = {false, false, false};
};

std::string CheckLimits(const GpuLaunch& launch, const GpuLimits& limits) {
  static constexpr char kDims[] = "xyz";
  for (int d = 0; d < 3; ++d) {
    if (launch.grid[d] > kMaxGrid[d]) {
      return StrCat("gridDim.", kDims[d], " = ", launch.grid[d], " exceeds the limit ", kMaxGrid[d]);
    }
    if (launch.block[d] > kMaxBlock[d]) {
      return StrCat("blockDim.", kDims[d], " = ", launch.block[d], " exceeds the limit ", kMaxBlock[d]);
    }
  }
  const int64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
  if (threads > limits.max_threads_per_block) {
    return StrCat(threads, " threads per block exceed the device's ", limits.max_threads_per_block);
  }
  if (launch.local_bytes > kMaxGpuLocalBytesPerThread) {
    return StrCat("the local buffers need ", launch.local_bytes, " bytes per thread, over the ",
                  kMaxGpuLocalBytesPerThread, " a GPU thread may have");
  }
  if (launch.shared_bytes > limits.max_shared_memory_per_block) {
    return StrCat(launch.shared_bytes, " bytes of shared memory per block exceed the device's ",
                  limits.max_shared_memory_per_block);
  }
  if (launch.shared_bytes > kMaxStaticSharedBytes) {
    return StrCat(launch.shared_bytes, " bytes of shared memory per block exceed the ", kMaxStaticSharedBytes,
                  " a kernel's static shared arrays may hold (more needs dynamic shared memory, not built)");
  }
  return "";
}

}  // namespace

absl::StatusOr<std::vector<GpuLaunch>> PlanGpuLaunches(const PrimFunc& f, const GpuLimits& limits) {
  std::vector<Stmt> tops;
  if (f.body.defined() && f.body->kind == StmtKind::kSeq) {
    tops = f.body->seq;
  } else if (f.body.defined()) {
    tops.push_back(f.body);
  }
  std::vector<GpuLaunch> launches;
  for (size_t i = 0; i < tops.size(); ++i) {
    GpuLaunch launch;
    launch.body = tops[i];
    LaunchChecker checker(f, &launch);
    checker.VisitStmt(launch.body);
    std::string error = checker.error;
    if (error.empty()) error = CheckLimits(launch, limits);
    if (error.empty()) error = checker.CheckGlobalStores();
    if (!error.empty()) {
      return absl::InvalidArgumentError(StrCat("PrimFunc ", f.name, ", launch ", i, " of ", tops.size(), ": ", error));
    }
    launches.push_back(std::move(launch));
  }
  return launches;
}

}  // namespace tunefarm::tir
