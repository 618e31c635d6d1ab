// Softmax, log-softmax, layer norm and batch norm (inference) against plain loops.
#include <cmath>
#include <limits>

#include "compiler/ops/normalization.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

// Visits each line along `axis`: fn(indices of the line's elements).
void ForEachLine(const Shape& shape, int axis, const std::function<void(const std::vector<std::vector<int64_t>>&)>& fn) {
  Shape outer = shape;
  outer[axis] = 1;
  ForEachIndex(outer, [&](const std::vector<int64_t>& o) {
    std::vector<std::vector<int64_t>> line;
    for (int64_t k = 0; k < shape[axis]; ++k) {
      line.push_back(o);
      line.back()[axis] = k;
    }
    fn(line);
  });
}

HostTensor SoftmaxReference(const HostTensor& x, int axis, bool log) {
  HostTensor out(x.dtype, x.shape);
  ForEachLine(x.shape, axis, [&](const std::vector<std::vector<int64_t>>& line) {
    double mx = -std::numeric_limits<double>::infinity(), sum = 0;
    for (const auto& i : line) mx = std::max(mx, x.at(i));
    for (const auto& i : line) sum += std::exp(x.at(i) - mx);
    for (const auto& i : line) out.at(i) = StoreAs(x.dtype, log ? x.at(i) - mx - std::log(sum) : std::exp(x.at(i) - mx) / sum);
  });
  return out;
}

const std::vector<std::pair<Shape, int64_t>> kAxisCases = {
    {{7}, 0}, {{3, 5}, -1}, {{3, 5}, 0}, {{2, 4, 3}, 1}, {{2, 1, 6}, 1}, {{1, 3, 2, 5}, -1}, {{4, 1}, -1}};

TEST(Softmax, AnyAxisEveryFloatDType) {
  uint64_t seed = 1;
  for (DType t : DTypesOf(DTypeSet::kFloat)) {
    for (const auto& [shape, axis] : kAxisCases) {
      HostTensor x = Random(t, shape, seed++, -5, 5);
      int a = static_cast<int>(axis < 0 ? axis + static_cast<int64_t>(shape.size()) : axis);
      for (bool log : {false, true}) {
        HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
          return log ? LogSoftmax(b, in[0], SoftmaxParams{axis}) : Softmax(b, in[0], SoftmaxParams{axis});
        });
        EXPECT_TRUE(AllClose(got, SoftmaxReference(x, a, log), 1e-6, 1e-5))
            << (log ? "log_softmax " : "softmax ") << te::DTypeName(t) << " " << ShapeString(shape) << " axis " << axis;
      }
    }
  }
}

TEST(Softmax, LargeInputsStayFinite) {
  HostTensor x(DType::kFloat32, {1, 4});
  x.data = {1000, 999, -1000, 0};
  for (bool log : {false, true}) {
    HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
      return log ? LogSoftmax(b, in[0], SoftmaxParams{}) : Softmax(b, in[0], SoftmaxParams{});
    });
    EXPECT_TRUE(AllClose(got, SoftmaxReference(x, 1, log), 1e-6, 1e-5));
  }
  HostTensor legacy = RunOp({x}, [](DagBuilder& b, const std::vector<Tensor>& in) -> absl::StatusOr<Tensor> {
    return Softmax(b, in[0]);
  });
  EXPECT_TRUE(AllClose(legacy, SoftmaxReference(x, 1, false), 1e-6, 1e-5));
}

HostTensor LayerNormReference(const HostTensor& x, const HostTensor& gamma, const HostTensor& beta, int axis, double eps) {
  HostTensor out(x.dtype, x.shape);
  const int64_t inner = NumElements(Shape(x.shape.begin() + axis, x.shape.end()));
  for (int64_t o = 0; o < x.size() / inner; ++o) {
    double mean = 0, var = 0;
    for (int64_t k = 0; k < inner; ++k) mean += x.data[o * inner + k];
    mean /= static_cast<double>(inner);
    for (int64_t k = 0; k < inner; ++k) var += (x.data[o * inner + k] - mean) * (x.data[o * inner + k] - mean);
    var /= static_cast<double>(inner);
    for (int64_t k = 0; k < inner; ++k)
      out.data[o * inner + k] =
          StoreAs(x.dtype, (x.data[o * inner + k] - mean) / std::sqrt(var + eps) * gamma.data[k] + beta.data[k]);
  }
  return out;
}

TEST(LayerNorm, OverTrailingAxesEveryFloatDType) {
  uint64_t seed = 50;
  for (DType t : DTypesOf(DTypeSet::kFloat)) {
    for (const auto& [shape, axis] : {std::pair<Shape, int64_t>{{4, 7}, -1}, {{2, 3, 5}, 1}, {{2, 3, 5}, 0},
                                      {{3, 1}, -1}, {{6}, 0}, {{2, 2, 3, 4}, 2}}) {
      int a = static_cast<int>(axis < 0 ? axis + static_cast<int64_t>(shape.size()) : axis);
      Shape inner(shape.begin() + a, shape.end());
      HostTensor x = Random(t, shape, seed++, -3, 3), gamma = Random(t, inner, seed++), beta = Random(t, inner, seed++);
      HostTensor got = RunOp({x, gamma, beta}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
        return LayerNorm(b, in[0], in[1], in[2], LayerNormParams{axis, 1e-5});
      });
      EXPECT_TRUE(AllClose(got, LayerNormReference(x, gamma, beta, a, 1e-5), 2e-5, 1e-5))
          << te::DTypeName(t) << " " << ShapeString(shape) << " axis " << axis;
    }
  }
  HostTensor x = Random(DType::kFloat32, {3, 8}, 90), g = Random(DType::kFloat32, {8}, 91), be = Random(DType::kFloat32, {8}, 92);
  HostTensor legacy = RunOp({x, g, be}, [](DagBuilder& b, const std::vector<Tensor>& in) -> absl::StatusOr<Tensor> {
    return LayerNorm(b, in[0], in[1], in[2], 1e-3);
  });
  EXPECT_TRUE(AllClose(legacy, LayerNormReference(x, g, be, 1, 1e-3), 2e-5, 1e-5));
}

TEST(InstanceNorm, PerSampleAndChannelOverSpatialAxes) {
  uint64_t seed = 300;
  for (const Shape& shape : {Shape{2, 3, 4, 5}, Shape{1, 2, 7}}) {
    const int64_t c = shape[1];
    HostTensor x = Random(DType::kFloat32, shape, seed++, -3, 3);
    HostTensor gamma = Random(DType::kFloat32, {c}, seed++, 0.5, 2), beta = Random(DType::kFloat32, {c}, seed++);
    const double eps = 1e-3;
    int64_t spatial = 1;
    for (size_t d = 2; d < shape.size(); ++d) spatial *= shape[d];
    HostTensor want(DType::kFloat32, shape);
    for (int64_t n = 0; n < shape[0]; ++n)
      for (int64_t ch = 0; ch < c; ++ch) {
        const int64_t base = (n * c + ch) * spatial;
        double mean = 0, var = 0;
        for (int64_t k = 0; k < spatial; ++k) mean += x.data[base + k] / spatial;
        for (int64_t k = 0; k < spatial; ++k) var += (x.data[base + k] - mean) * (x.data[base + k] - mean) / spatial;
        for (int64_t k = 0; k < spatial; ++k)
          want.data[base + k] = (x.data[base + k] - mean) / std::sqrt(var + eps) * gamma.data[ch] + beta.data[ch];
      }
    HostTensor got = RunOp({x, gamma, beta}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
      return InstanceNorm(b, in[0], in[1], in[2], eps);
    });
    EXPECT_TRUE(AllClose(got, want, 1e-5, 1e-5)) << ShapeString(shape);
  }
}

TEST(BatchNorm, InferencePerChannelEveryFloatDType) {
  uint64_t seed = 100;
  for (DType t : DTypesOf(DTypeSet::kFloat)) {
    for (const Shape& shape : {Shape{2, 3, 4, 5}, Shape{1, 4}, Shape{2, 5, 7}, Shape{1, 1, 1, 1}, Shape{1, 2, 2, 3, 2}}) {
      const int64_t c = shape[1];
      HostTensor x = Random(t, shape, seed++, -3, 3), gamma = Random(t, {c}, seed++), beta = Random(t, {c}, seed++);
      HostTensor mean = Random(t, {c}, seed++), var = Random(t, {c}, seed++, 0.1, 2);
      HostTensor want(t, shape);
      ForEachIndex(shape, [&](const std::vector<int64_t>& i) {
        int64_t ch = i[1];
        want.at(i) = StoreAs(t, (x.at(i) - mean.data[ch]) * gamma.data[ch] / std::sqrt(var.data[ch] + 1e-3) + beta.data[ch]);
      });
      HostTensor got = RunOp({x, gamma, beta, mean, var}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
        return BatchNormInference(b, in[0], in[1], in[2], in[3], in[4], BatchNormParams{1e-3});
      });
      EXPECT_TRUE(AllClose(got, want, 1e-5, 1e-5)) << te::DTypeName(t) << " " << ShapeString(shape);
    }
  }
}

TEST(Normalization, LocalResponseNormOverEvenAndOddWindows) {
  uint64_t seed = 40;
  for (int64_t size : {1, 2, 3, 5}) {
    for (DType t : {DType::kFloat32, DType::kFloat64}) {
      HostTensor x = Random(t, {2, 4, 3, 2}, seed++, -2, 2);
      const LrnParams p{2e-3, 0.6, 1.5, size};
      HostTensor want(t, x.shape);
      ForEachIndex(x.shape, [&](const std::vector<int64_t>& i) {
        double sum = 0;
        for (int64_t c = i[1] - (size - 1) / 2; c <= i[1] + size / 2; ++c) {
          if (c < 0 || c >= 4) continue;
          const double v = x.at({i[0], c, i[2], i[3]});
          sum += v * v;
        }
        want.at(i) = StoreAs(t, x.at(i) / std::pow(p.bias + p.alpha / size * sum, p.beta));
      });
      HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return LocalResponseNorm(b, in[0], p); });
      EXPECT_TRUE(AllClose(got, want, 1e-5, 1e-5)) << "size " << size << " " << te::DTypeName(t);
    }
  }
}

TEST(Normalization, RejectsBadShapesAndDTypes) {
  EXPECT_TRUE(absl::IsInvalidArgument(BuildStatus({HostTensor(DType::kInt32, {3, 4})}, [](DagBuilder& b, const std::vector<Tensor>& in) {
    return Softmax(b, in[0], SoftmaxParams{});
  })));
  EXPECT_TRUE(absl::IsInvalidArgument(BuildStatus({HostTensor(DType::kFloat32, {3, 4})}, [](DagBuilder& b, const std::vector<Tensor>& in) {
    return LogSoftmax(b, in[0], SoftmaxParams{2});
  })));
  EXPECT_TRUE(absl::IsInvalidArgument(BuildStatus(
      {HostTensor(DType::kFloat32, {3, 4}), HostTensor(DType::kFloat32, {3}), HostTensor(DType::kFloat32, {4})},
      [](DagBuilder& b, const std::vector<Tensor>& in) { return LayerNorm(b, in[0], in[1], in[2], LayerNormParams{}); })));
  std::vector<HostTensor> bn = {HostTensor(DType::kFloat32, {2, 3, 4}), HostTensor(DType::kFloat32, {3}),
                                HostTensor(DType::kFloat32, {3}), HostTensor(DType::kFloat32, {4}), HostTensor(DType::kFloat32, {3})};
  EXPECT_TRUE(absl::IsInvalidArgument(BuildStatus(bn, [](DagBuilder& b, const std::vector<Tensor>& in) {
    return BatchNormInference(b, in[0], in[1], in[2], in[3], in[4], BatchNormParams{});
  })));
}

}  // namespace
}  // namespace tunefarm::ops::testing
