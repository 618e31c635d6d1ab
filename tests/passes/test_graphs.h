// Helpers for building small graphs in pass tests, and a naive reference evaluator for the few
// float ops the tests compare before and after a rewrite (Conv NCHW, BatchNormalization,
// broadcast Add/Mul/Sub, Relu). Independent of compiler/ops on purpose.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/strings.h"
#include "compiler/graph/graph.h"
#include "compiler/graph/op_registry.h"

namespace tunefarm::passes::testing {

using graph::Attrs;
using graph::Graph;
using graph::HostTensor;
using graph::NodeEntry;

inline HostTensor RandomTensor(std::vector<int64_t> shape, std::mt19937& rng, float lo = -1, float hi = 1) {
  std::uniform_real_distribution<float> dist(lo, hi);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return HostTensor::FromFloats(v, std::move(shape));
}

inline NodeEntry Input(Graph& g, const std::string& name, std::vector<int64_t> shape) {
  auto e = g.AddInput(name, {te::DType::kFloat32, std::move(shape)});
  EXPECT_TRUE(e.ok()) << e.status();
  return *e;
}

inline NodeEntry Param(Graph& g, const std::string& name, HostTensor t) {
  auto e = g.AddParam(name, std::move(t));
  EXPECT_TRUE(e.ok()) << e.status();
  return *e;
}

inline NodeEntry Op(Graph& g, const std::string& op, const std::string& name, std::vector<NodeEntry> in,
                    Attrs attrs = {}) {
  auto e = g.AddNode(op, name, std::move(in), std::move(attrs));
  EXPECT_TRUE(e.ok()) << e.status();
  return e.ok() ? (*e)[0] : NodeEntry{};
}

inline Attrs ConvAttrs(std::vector<int64_t> pads, std::vector<int64_t> strides, int64_t group = 1) {
  Attrs a;
  a.Set("pads", std::move(pads));
  a.Set("strides", std::move(strides));
  a.Set("group", group);
  return a;
}

// Float values of every graph output, computed naively.
class ReferenceEvaluator {
 public:
  explicit ReferenceEvaluator(const Graph& g) : g_(g) {}

  std::vector<std::vector<double>> Run(const std::map<std::string, HostTensor>& inputs) {
    values_.clear();
    for (int id = 0; id < static_cast<int>(g_.nodes().size()); ++id) {
      const graph::Node& n = g_.node(id);
      if (n.IsInput()) values_[id] = ToDoubles(inputs.at(n.name));
      else if (n.IsParam()) values_[id] = ToDoubles(g_.params().at(n.name));
      else values_[id] = Eval(n);
    }
    std::vector<std::vector<double>> outs;
    for (NodeEntry e : g_.outputs()) outs.push_back(values_.at(e.node));
    return outs;
  }

 private:
  static std::vector<double> ToDoubles(const HostTensor& t) {
    std::vector<double> v(t.NumElements());
    for (int64_t i = 0; i < t.NumElements(); ++i) v[i] = t.GetDouble(i);
    return v;
  }
  const std::vector<int64_t>& Shape(NodeEntry e) const { return g_.type(e).shape; }

  std::vector<double> Eval(const graph::Node& n) {
    const std::vector<double>& x = values_.at(n.inputs[0].node);
    if (n.op == "Relu") {
      std::vector<double> r = x;
      for (double& v : r) v = v > 0 ? v : 0;
      return r;
    }
    if (n.op == "Add" || n.op == "Mul" || n.op == "Sub") return Binary(n);
    if (n.op == "BatchNormalization") return BatchNorm(n);
    if (n.op == "Conv") return Conv(n);
    ADD_FAILURE() << "reference evaluator lacks " << n.op;
    return {};
  }

  std::vector<double> Binary(const graph::Node& n) {
    const std::vector<int64_t>& out = n.outputs[0].shape;
    std::vector<int64_t> idx(out.size(), 0);
    int64_t total = n.outputs[0].NumElements();
    std::vector<double> r(total);
    auto offset = [&](NodeEntry e) {
      const std::vector<int64_t>& s = Shape(e);
      int64_t off = 0;
      size_t lead = out.size() - s.size();
      for (size_t d = 0; d < s.size(); ++d) off = off * s[d] + (s[d] == 1 ? 0 : idx[lead + d]);
      return off;
    };
    for (int64_t o = 0; o < total; ++o) {
      int64_t rest = o;
      for (int64_t d = static_cast<int64_t>(out.size()) - 1; d >= 0; --d) {
        idx[d] = rest % out[d];
        rest /= out[d];
      }
      double a = values_.at(n.inputs[0].node)[offset(n.inputs[0])];
      double b = values_.at(n.inputs[1].node)[offset(n.inputs[1])];
      r[o] = n.op == "Add" ? a + b : n.op == "Mul" ? a * b : a - b;
    }
    return r;
  }

  std::vector<double> BatchNorm(const graph::Node& n) {
    const std::vector<int64_t>& s = Shape(n.inputs[0]);
    int64_t channels = s[1], inner = 1;
    for (size_t d = 2; d < s.size(); ++d) inner *= s[d];
    std::vector<double> r = values_.at(n.inputs[0].node);
    const auto& scale = values_.at(n.inputs[1].node);
    const auto& bias = values_.at(n.inputs[2].node);
    const auto& mean = values_.at(n.inputs[3].node);
    const auto& var = values_.at(n.inputs[4].node);
    double eps = n.attrs.GetFloat("epsilon");
    for (size_t i = 0; i < r.size(); ++i) {
      int64_t c = (static_cast<int64_t>(i) / inner) % channels;
      r[i] = (r[i] - mean[c]) / std::sqrt(var[c] + eps) * scale[c] + bias[c];
    }
    return r;
  }

  // Direct NCHW convolution with groups, pads, strides and dilations.
  std::vector<double> Conv(const graph::Node& n) {
    const auto& xs = Shape(n.inputs[0]);
    const auto& ws = Shape(n.inputs[1]);
    const auto& ys = n.outputs[0].shape;
    const auto& x = values_.at(n.inputs[0].node);
    const auto& w = values_.at(n.inputs[1].node);
    std::vector<int64_t> pads = n.attrs.GetInts("pads"), strides = n.attrs.GetInts("strides"),
                         dil = n.attrs.GetInts("dilations");
    if (pads.empty()) pads = {0, 0, 0, 0};
    if (strides.empty()) strides = {1, 1};
    if (dil.empty()) dil = {1, 1};
    int64_t group = n.attrs.GetInt("group", 1);
    int64_t cin_g = ws[1], cout_g = ws[0] / group;
    std::vector<double> y(n.outputs[0].NumElements());
    for (int64_t b = 0; b < ys[0]; ++b)
      for (int64_t oc = 0; oc < ys[1]; ++oc)
        for (int64_t oh = 0; oh < ys[2]; ++oh)
          for (int64_t ow = 0; ow < ys[3]; ++ow) {
            double acc = n.inputs.size() == 3 ? values_.at(n.inputs[2].node)[oc] : 0.0;
            int64_t g0 = oc / cout_g;
            for (int64_t ic = 0; ic < cin_g; ++ic)
              for (int64_t kh = 0; kh < ws[2]; ++kh)
                for (int64_t kw = 0; kw < ws[3]; ++kw) {
                  int64_t ih = oh * strides[0] - pads[0] + kh * dil[0];
                  int64_t iw = ow * strides[1] - pads[1] + kw * dil[1];
                  if (ih < 0 || iw < 0 || ih >= xs[2] || iw >= xs[3]) continue;
                  int64_t c = g0 * cin_g + ic;
                  acc += x[((b * xs[1] + c) * xs[2] + ih) * xs[3] + iw] * w[((oc * cin_g + ic) * ws[2] + kh) * ws[3] + kw];
                }
            y[((b * ys[1] + oc) * ys[2] + oh) * ys[3] + ow] = acc;
          }
    return y;
  }

  const Graph& g_;
  std::map<int, std::vector<double>> values_;
};

inline int CountOp(const Graph& g, const std::string& op) {
  auto counts = g.OpCounts();
  auto it = counts.find(op);
  return it == counts.end() ? 0 : it->second;
}

}  // namespace tunefarm::passes::testing
