// Pad (constant, reflect, edge; N-D; cropping) against index mapping written out.
#include "compiler/ops/pad.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

// Source index along one axis, or -1 for "constant value".
int64_t SourceIndex(PadMode mode, int64_t i, int64_t begin, int64_t size) {
  int64_t s = i - begin;
  if (s >= 0 && s < size) return s;
  if (mode == PadMode::kConstant) return -1;
  if (mode == PadMode::kEdge || size == 1) return s < 0 ? 0 : size - 1;
  while (s < 0 || s >= size) s = s < 0 ? -s : 2 * (size - 1) - s;  // mirror at the edges
  return s;
}

HostTensor PadReference(const HostTensor& x, const PadParams& p) {
  const size_t rank = x.shape.size();
  Shape shape(rank);
  for (size_t d = 0; d < rank; ++d) shape[d] = x.shape[d] + p.pads[d] + p.pads[rank + d];
  HostTensor out(x.dtype, shape);
  ForEachIndex(shape, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> src(rank);
    for (size_t d = 0; d < rank; ++d) {
      src[d] = SourceIndex(p.mode, i[d], p.pads[d], x.shape[d]);
      if (src[d] < 0) {
        out.at(i) = StoreAs(x.dtype, p.value);
        return;
      }
    }
    out.at(i) = x.at(src);
  });
  return out;
}

TEST(Pad, EveryModeDTypeAndShape) {
  struct Case {
    Shape shape;
    std::vector<int64_t> pads;
  };
  const Case cases[] = {
      {{5}, {2, 3}},
      {{3, 4}, {1, 0, 2, 3}},
      {{2, 3, 4}, {0, 1, 2, 1, 0, 3}},
      {{4, 1, 3}, {0, 2, 1, 0, 1, 2}},            // size-1 axis padded
      {{2, 5}, {0, 7, 0, 9}},                      // pads beyond the axis: reflection repeats
      {{1, 2, 3, 3}, {0, 0, 1, 1, 0, 0, 2, 1}},
      {{6, 5}, {-2, 1, 1, -3}},                    // negative pads crop
  };
  uint64_t seed = 1;
  for (PadMode mode : {PadMode::kConstant, PadMode::kReflect, PadMode::kEdge}) {
    for (DType t : DTypesOf(DTypeSet::kAny)) {
      for (const Case& c : cases) {
        HostTensor x = Random(t, c.shape, seed++, -50, 50);
        PadParams p{mode, c.pads, te::IsSigned(t) ? -2.5 : 7.0};
        HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Pad(b, in[0], p); });
        EXPECT_TRUE(AllClose(got, PadReference(x, p)))
            << "mode " << static_cast<int>(mode) << " " << te::DTypeName(t) << " " << ShapeString(c.shape);
      }
    }
  }
}

TEST(Pad, RejectsBadPads) {
  auto status = [](Shape shape, std::vector<int64_t> pads) {
    return BuildStatus({HostTensor(DType::kFloat32, shape)}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
      return Pad(b, in[0], PadParams{PadMode::kConstant, pads, 0});
    });
  };
  EXPECT_TRUE(absl::IsInvalidArgument(status({3, 4}, {1, 1})));
  EXPECT_TRUE(absl::IsInvalidArgument(status({3, 4}, {-2, 0, -1, 0})));  // empty
}

}  // namespace
}  // namespace tunefarm::ops::testing
