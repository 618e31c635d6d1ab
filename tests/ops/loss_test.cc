// NegativeLogLikelihoodLoss against the ONNX definition written out: every reduction, with and
// without weights and ignore_index, 2-D and N-D inputs; interpreted, and one case compiled.
#include <optional>

#include "compiler/ops/loss.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

HostTensor NllReference(const HostTensor& x, const HostTensor& target, const HostTensor* weight,
                        const NllLossParams& p) {
  HostTensor loss(x.dtype, target.shape);
  double sum = 0, total_weight = 0;
  ForEachIndex(target.shape, [&](const std::vector<int64_t>& t) {
    const int64_t c = static_cast<int64_t>(target.at(t));
    if (p.ignore_index && c == *p.ignore_index) return;  // loss 0, weight 0
    const double w = weight != nullptr ? weight->at({c}) : 1.0;
    std::vector<int64_t> xi{t[0], c};
    xi.insert(xi.end(), t.begin() + 1, t.end());
    loss.at(t) = -x.at(xi) * w;
    sum += loss.at(t);
    total_weight += w;
  });
  if (p.reduction == LossReduction::kNone) return loss;
  HostTensor scalar(x.dtype, {});
  scalar.data[0] = p.reduction == LossReduction::kSum ? sum : sum / total_weight;
  return scalar;
}

TEST(NllLoss, EveryReductionWeightsAndIgnoredTargets) {
  struct Case {
    Shape input;
    bool weighted;
    std::optional<int64_t> ignore_index;
  };
  const Case cases[] = {{{4, 5}, false, std::nullopt}, {{4, 5}, true, 2},         {{3, 4, 6}, true, std::nullopt},
                        {{2, 3, 2, 5}, false, 0},      {{2, 3, 2, 5}, true, -1}, {{1, 7}, true, 3}};
  uint64_t seed = 1;
  for (const Case& c : cases)
    for (LossReduction reduction : {LossReduction::kNone, LossReduction::kSum, LossReduction::kMean})
      for (DType index_t : {DType::kInt32, DType::kInt64}) {
        const int64_t classes = c.input[1];
        Shape target_shape{c.input[0]};
        target_shape.insert(target_shape.end(), c.input.begin() + 2, c.input.end());
        HostTensor x = Random(DType::kFloat32, c.input, seed++, -3, 0);
        // Targets in range, plus ignore_index where it is set (it may lie outside [0, C)).
        HostTensor target = Random(index_t, target_shape, seed++, 0, classes - 1);
        if (c.ignore_index) target.data[0] = static_cast<double>(*c.ignore_index);
        HostTensor weight = Random(DType::kFloat32, {classes}, seed++, 0.1, 2);
        NllLossParams p{reduction, c.ignore_index};
        std::vector<HostTensor> inputs{x, target};
        if (c.weighted) inputs.push_back(weight);
        HostTensor got = RunOp(inputs, [&](DagBuilder& b, const std::vector<Tensor>& in) {
          return NegativeLogLikelihoodLoss(b, in[0], in[1], c.weighted ? &in[2] : nullptr, p);
        });
        EXPECT_TRUE(AllClose(got, NllReference(x, target, c.weighted ? &weight : nullptr, p), 1e-5, 1e-5))
            << ShapeString(c.input) << " weighted " << c.weighted << " reduction " << static_cast<int>(reduction);
      }
}

TEST(NllLoss, CompiledMatchesInterpretedAndBadShapesAreRefused) {
  HostTensor x = Random(DType::kFloat32, {3, 4, 5}, 7, -2, 0);
  HostTensor target = Random(DType::kInt64, {3, 5}, 8, 0, 3);
  HostTensor weight = Random(DType::kFloat32, {4}, 9, 0.5, 1.5);
  const OpFn op = [](DagBuilder& b, const std::vector<Tensor>& in) {
    return NegativeLogLikelihoodLoss(b, in[0], in[1], &in[2], NllLossParams{LossReduction::kMean, 1});
  };
  HostTensor interpreted = RunOp({x, target, weight}, op);
  auto dag = BuildOpDag({x, target, weight}, op);
  ASSERT_TRUE(dag.ok());
  auto compiled = RunSharedObject(**dag, {x, target, weight});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_TRUE(AllClose(*compiled, interpreted, 1e-6, 1e-6));

  auto build = [](const Shape& input, const Shape& target_shape, DType target_t) {
    return BuildStatus({HostTensor(DType::kFloat32, input), HostTensor(target_t, target_shape)},
                       [](DagBuilder& b, const std::vector<Tensor>& in) {
                         return NegativeLogLikelihoodLoss(b, in[0], in[1], nullptr, {});
                       });
  };
  EXPECT_TRUE(build({3, 4, 5}, {3, 5}, DType::kInt64).ok());
  EXPECT_TRUE(absl::IsInvalidArgument(build({3, 4, 5}, {3, 4}, DType::kInt64)));   // target keeps axis C
  EXPECT_TRUE(absl::IsInvalidArgument(build({3, 4}, {3}, DType::kFloat32)));       // float targets
  EXPECT_TRUE(absl::IsInvalidArgument(build({4}, {4}, DType::kInt64)));            // no class axis
}

}  // namespace
}  // namespace tunefarm::ops::testing
