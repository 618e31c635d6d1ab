#include "compiler/tir/auto_unroll.h"

#include <algorithm>

#include "compiler/tir/stmt_functor.h"

namespace tunefarm::tir {
namespace {

class AutoUnroller : public StmtMutator {
 public:
  explicit AutoUnroller(int64_t budget) : budget_(budget) {}
  int64_t size() const { return size_; }  // statements the last mutated statement unrolls to

  Stmt MutateStmt(const Stmt& s) override {
    size_ = 0;
    return StmtMutator::MutateStmt(s);
  }

 private:
  Stmt MutateStore(const Stmt& s) override {
    size_ = 1;
    return s;
  }
  Stmt MutateIf(const Stmt& s) override {
    Stmt t = MutateStmt(s->then_case);
    int64_t a = size_;
    Stmt e = MutateStmt(s->else_case);
    size_ += a;
    return RebuildIf(s, s->cond, t, e);
  }
  Stmt MutateSeq(const Stmt& s) override {
    std::vector<Stmt> out;
    int64_t total = 0;
    for (const Stmt& c : s->seq) {
      out.push_back(MutateStmt(c));
      total += size_;
    }
    size_ = total;
    return Seq(std::move(out));
  }
  Stmt MutateFor(const Stmt& s) override {
    int64_t extent = 0;
    const bool constant = te::IsConstInt(s->extent, &extent);
    const int64_t budget = budget_;
    if (s->for_kind == ForKind::kVirtualThread && constant && extent > 0) budget_ /= extent;
    Stmt body = MutateStmt(s->body);
    budget_ = budget;
    size_ = constant ? size_ * extent : int64_t{1} << 40;
    ForKind kind = s->for_kind;
    if (kind == ForKind::kSerial && constant && size_ <= budget_) kind = ForKind::kUnrolled;
    if (kind == s->for_kind && body.same_as(s->body)) return s;
    return For(s->loop_var, s->extent, kind, body, s->thread_axis);
  }

  int64_t budget_;  // statements a loop here may unroll to
  int64_t size_ = 0;
};

}  // namespace

Stmt AutoUnroll(const Stmt& nest, int max_step, int64_t virtual_threads) {
  return AutoUnroller(max_step / std::max<int64_t>(virtual_threads, 1)).MutateStmt(nest);
}

}  // namespace tunefarm::tir
