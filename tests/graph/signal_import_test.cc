// DFT and STFT (converted at import to constant-matrix matmuls, family_signal.cc) against the
// transform written out as a sum of complex exponentials, on what the conformance cases leave
// out: a signal axis other than 1, complex input, truncation and zero-padding to dft_length,
// one-sided output, the inverse, and STFT frames that overlap. All inputs are initializers, so
// the import folds the graph and the output is a constant.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>

#include "common/strings.h"
#include "compiler/frontend/onnx_importer.h"
#include "tests/graph/random_values.h"
#include "onnx/onnx_pb.h"

namespace tunefarm::frontend {
namespace {

using Vec = std::vector<double>;

struct Model {
  onnx::ModelProto m;
  onnx::NodeProto* node;
  explicit Model(const std::string& op) {
    m.set_ir_version(8);
    m.add_opset_import()->set_version(17);
    node = m.mutable_graph()->add_node();
    node->set_op_type(op);
    node->add_output("y");
    m.mutable_graph()->add_output()->set_name("y");
  }
  void Input(const std::string& name, std::vector<int64_t> dims, const Vec& values, bool int64 = false) {
    auto* t = m.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(int64 ? onnx::TensorProto::INT64 : onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (double v : values) int64 ? t->add_int64_data(static_cast<int64_t>(v)) : t->add_float_data(static_cast<float>(v));
    node->add_input(name);
  }
  void Attr(const char* name, int64_t v) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  Vec Run() const {
    auto g = ImportOnnxBytes(m.SerializeAsString(), {}, "model.onnx");
    EXPECT_TRUE(g.ok()) << g.status();
    if (!g.ok() || g->params().size() != 1) return {};
    Vec out;
    const auto& y = g->params().begin()->second;
    for (int64_t i = 0; i < y.NumElements(); ++i) out.push_back(y.GetDouble(i));
    return out;
  }
};

Vec RandomValues(int64_t n, uint32_t seed) { return testing::RandomFloat32Values(n, seed); }

// out[k] = scale * sum_j x[j] exp(sign * 2 pi i j k / n) for k < count.
std::vector<std::complex<double>> Transform(const std::vector<std::complex<double>>& x, int64_t n, int64_t count,
                                            bool inverse) {
  std::vector<std::complex<double>> out(count);
  for (int64_t k = 0; k < count; ++k)
    for (int64_t j = 0; j < n; ++j) {
      const std::complex<double> v = j < static_cast<int64_t>(x.size()) ? x[j] : 0.0;
      out[k] += v * std::polar(1.0, (inverse ? 2 : -2) * std::numbers::pi * static_cast<double>(j * k) / n);
    }
  if (inverse)
    for (auto& v : out) v /= static_cast<double>(n);
  return out;
}

void ExpectNear(const Vec& got, const Vec& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4) << what << " element " << i;
}

TEST(SignalImport, DftOnAnInnerAxisOfAComplexSignalPaddedTruncatedAndInverse) {
  // input [2, 3, 5, 2]: the transform runs along axis 2 (length 5) for each of [2, 3].
  const Vec x = RandomValues(2 * 3 * 5 * 2, 4);
  for (int64_t length : {5, 3, 8})
    for (int64_t inverse : {0, 1}) {
      Model model("DFT");
      model.Input("x", {2, 3, 5, 2}, x);
      model.Input("len", {}, {static_cast<double>(length)}, true);
      model.Attr("axis", 2);
      model.Attr("inverse", inverse);
      Vec want;
      for (int64_t a = 0; a < 6; ++a) {
        std::vector<std::complex<double>> signal;
        for (int64_t j = 0; j < std::min<int64_t>(5, length); ++j)
          signal.emplace_back(x[(a * 5 + j) * 2], x[(a * 5 + j) * 2 + 1]);
        for (auto v : Transform(signal, length, length, inverse != 0)) {
          want.push_back(v.real());
          want.push_back(v.imag());
        }
      }
      ExpectNear(model.Run(), want, StrCat("length ", length, " inverse ", inverse));
    }
}

TEST(SignalImport, OneSidedDftOfARealSignalOnAxisOne) {
  // input [2, 6, 3, 1], axis 1: the transform of each of the 3 columns, bins 0..3.
  const Vec x = RandomValues(2 * 6 * 3, 5);
  Model model("DFT");
  model.Input("x", {2, 6, 3, 1}, x);
  model.Attr("onesided", 1);
  Vec want(2 * 4 * 3 * 2);
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t col = 0; col < 3; ++col) {
      std::vector<std::complex<double>> signal;
      for (int64_t j = 0; j < 6; ++j) signal.emplace_back(x[(b * 6 + j) * 3 + col], 0);
      auto y = Transform(signal, 6, 4, false);
      for (int64_t k = 0; k < 4; ++k) {
        want[((b * 4 + k) * 3 + col) * 2] = y[k].real();
        want[((b * 4 + k) * 3 + col) * 2 + 1] = y[k].imag();
      }
    }
  ExpectNear(model.Run(), want, "one-sided");
}

TEST(SignalImport, StftWithOverlappingWindowedFrames) {
  // signal [1, 10, 1], frames of 4 every 2 samples: 4 frames of 3 one-sided bins.
  const Vec x = RandomValues(10, 6), window = {0.1, 0.7, 1.0, 0.4};
  Model model("STFT");
  model.Input("signal", {1, 10, 1}, x);
  model.Input("step", {}, {2}, true);
  model.Input("window", {4}, window);
  Vec want;
  for (int64_t f = 0; f < 4; ++f) {
    std::vector<std::complex<double>> frame;
    for (int64_t j = 0; j < 4; ++j) frame.emplace_back(x[f * 2 + j] * static_cast<float>(window[j]), 0);
    for (auto v : Transform(frame, 4, 3, false)) {
      want.push_back(v.real());
      want.push_back(v.imag());
    }
  }
  ExpectNear(model.Run(), want, "stft");
}

}  // namespace
}  // namespace tunefarm::frontend
