#include "compiler/tir/auto_unroll.h"

#include "compiler/tir/stmt_functor.h"

namespace tunefarm::tir {
namespace {

class AutoUnroller : public StmtMutator {
 public:
  explicit AutoUnroller(int max_step) : max_step_(max_step) {}
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
    Stmt body = MutateStmt(s->body);
    int64_t extent = 0;
    bool constant = te::IsConstInt(s->extent, &extent);
    size_ = constant ? size_ * extent : int64_t{1} << 40;
    ForKind kind = s->for_kind;
    if (kind == ForKind::kSerial && constant && size_ <= max_step_) kind = ForKind::kUnrolled;
    if (kind == s->for_kind && body.same_as(s->body)) return s;
    return For(s->loop_var, s->extent, kind, body, s->thread_axis);
  }

  int max_step_;
  int64_t size_ = 0;
};

}  // namespace

Stmt AutoUnroll(const Stmt& nest, int max_step) { return AutoUnroller(max_step).MutateStmt(nest); }

}  // namespace tunefarm::tir
