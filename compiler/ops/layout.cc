#include "compiler/ops/layout.h"

#include "common/strings.h"

namespace tunefarm::ops {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// x[index] where index[axis] may run past the axis into channel padding: zero there.
Expr ReadOrZero(const Tensor& x, std::vector<Expr> index, const std::vector<int>& axes) {
  std::vector<Expr> inside;
  for (int a : axes) {
    inside.push_back(te::Lt(index[a], x.shape[a]));
    index[a] = te::Min(index[a], x.shape[a] - 1);  // select evaluates both arms
  }
  return te::Select(AllOf(inside), x(index), te::Const(x.dtype, 0));
}

}  // namespace

absl::StatusOr<Tensor> NchwToNchwc(DagBuilder& b, const Tensor& x, int64_t block, std::string name) {
  if (auto s = CheckShape("to_nchwc", "input", x.shape); !s.ok()) return s;
  if (x.shape.size() < 2) return OpError("to_nchwc", StrCat("input ", ShapeString(x.shape), " has no channel axis"));
  if (block < 1) return OpError("to_nchwc", "block must be >= 1");
  const int64_t c = x.shape[1];
  Shape shape = x.shape;
  shape[1] = CeilDiv(c, block);
  shape.push_back(block);
  const size_t rank = x.shape.size();
  return b.Compute(std::move(name), shape, [&](const Axes& i) {
    std::vector<Expr> index(i.begin(), i.begin() + rank);
    index[1] = i[1] * block + i[rank];
    if (c % block == 0) return x(index);
    return ReadOrZero(x, index, {1});
  });
}

absl::StatusOr<Tensor> NchwcToNchw(DagBuilder& b, const Tensor& x, int64_t channels, std::string name) {
  if (auto s = CheckShape("to_nchw", "input", x.shape); !s.ok()) return s;
  if (x.shape.size() < 3) return OpError("to_nchw", StrCat("input ", ShapeString(x.shape), " is not NCHW[x]c"));
  const size_t rank = x.shape.size() - 1;
  const int64_t block = x.shape[rank];
  if (channels < 1 || channels > x.shape[1] * block)
    return OpError("to_nchw", StrCat(channels, " channels do not fit ", x.shape[1], " blocks of ", block));
  Shape shape(x.shape.begin(), x.shape.end() - 1);
  shape[1] = channels;
  return b.Compute(std::move(name), shape, [&](const Axes& i) {
    std::vector<Expr> index = i;
    index[1] = i[1] / block;
    index.push_back(i[1] % block);
    return x(index);
  });
}

absl::StatusOr<Tensor> PackConv2dWeight(DagBuilder& b, const Tensor& w, int64_t in_block, int64_t out_block,
                                        std::string name) {
  if (auto s = CheckRank("pack_weight", "weight", w.shape, 4); !s.ok()) return s;
  if (auto s = CheckShape("pack_weight", "weight", w.shape); !s.ok()) return s;
  if (in_block < 1 || out_block < 1) return OpError("pack_weight", "blocks must be >= 1");
  const int64_t k = w.shape[0], cg = w.shape[1];
  Shape shape = {CeilDiv(k, out_block), CeilDiv(cg, in_block), w.shape[2], w.shape[3], in_block, out_block};
  return b.Compute(std::move(name), shape, [&](const Axes& i) {
    std::vector<Expr> index = {i[0] * out_block + i[5], i[1] * in_block + i[4], i[2], i[3]};
    std::vector<int> padded;
    if (k % out_block) padded.push_back(0);
    if (cg % in_block) padded.push_back(1);
    return padded.empty() ? w(index) : ReadOrZero(w, index, padded);
  });
}

}  // namespace tunefarm::ops
