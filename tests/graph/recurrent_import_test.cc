// RNN, GRU and LSTM (unrolled at import, family_recurrent.cc) against the ONNX equations written
// out, on what the conformance cases leave out: bidirectional and reverse runs, batch-major
// layout, clip, GRU's linear_before_reset, LSTM's input_forget and peepholes, and
// sequence_lens shorter than the sequence. All inputs are initializers, so the import folds
// the whole unrolled graph through the ops' computes and the outputs are constants.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "common/strings.h"
#include "compiler/frontend/onnx_importer.h"
#include "onnx/onnx_pb.h"

namespace tunefarm::frontend {
namespace {

using Vec = std::vector<double>;

struct Config {
  std::string op = "LSTM", direction = "forward";
  int64_t seq = 3, batch = 2, input = 3, hidden = 2;
  bool batch_major = false, linear_before_reset = false, input_forget = false, peepholes = false;
  double clip = 0;                // 0: none
  std::vector<int32_t> lengths;   // empty: none
};

int64_t Gates(const Config& c) { return c.op == "RNN" ? 1 : c.op == "GRU" ? 3 : 4; }
int64_t Directions(const Config& c) { return c.direction == "bidirectional" ? 2 : 1; }

double Sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

struct Inputs {
  Vec x, w, r, b, p, h0, c0;  // x sequence-major [seq, batch, input]
};

// The reference: Y [seq, dirs, batch, H], then Y_h and Y_c [dirs, batch, H], flattened.
std::vector<Vec> Reference(const Config& c, const Inputs& in) {
  const int64_t G = Gates(c), H = c.hidden, D = Directions(c);
  Vec y(c.seq * D * c.batch * H, 0), yh(D * c.batch * H), yc(D * c.batch * H);
  auto clip = [&](double v) { return c.clip > 0 ? std::clamp(v, -c.clip, c.clip) : v; };
  for (int64_t d = 0; d < D; ++d) {
    const bool reverse = c.direction == "reverse" || d == 1;
    for (int64_t bt = 0; bt < c.batch; ++bt) {
      Vec h(in.h0.begin() + (d * c.batch + bt) * H, in.h0.begin() + (d * c.batch + bt + 1) * H);
      Vec cell = c.op == "LSTM" ? Vec(in.c0.begin() + (d * c.batch + bt) * H, in.c0.begin() + (d * c.batch + bt + 1) * H) : Vec();
      const int64_t len = c.lengths.empty() ? c.seq : c.lengths[bt];
      for (int64_t k = 0; k < c.seq; ++k) {
        const int64_t t = reverse ? c.seq - 1 - k : k;
        if (t >= len) continue;  // forward only: state kept, output 0
        auto W = [&](int64_t row, int64_t col) { return in.w[(d * G * H + row) * c.input + col]; };
        auto R = [&](int64_t row, int64_t col) { return in.r[(d * G * H + row) * H + col]; };
        auto Wb = [&](int64_t row) { return in.b[d * 2 * G * H + row]; };
        auto Rb = [&](int64_t row) { return in.b[d * 2 * G * H + G * H + row]; };
        auto xproj = [&](int64_t row) {
          double s = Wb(row);
          for (int64_t i = 0; i < c.input; ++i) s += W(row, i) * in.x[(t * c.batch + bt) * c.input + i];
          return s;
        };
        auto hproj = [&](int64_t row, const Vec& hv) {
          double s = Rb(row);
          for (int64_t j = 0; j < H; ++j) s += R(row, j) * hv[j];
          return s;
        };
        Vec nh(H), nc(H);
        if (c.op == "RNN") {
          for (int64_t j = 0; j < H; ++j) nh[j] = std::tanh(clip(xproj(j) + hproj(j, h)));
        } else if (c.op == "GRU") {
          Vec z(H), rr(H), rh(H);
          for (int64_t j = 0; j < H; ++j) {
            z[j] = Sigmoid(clip(xproj(j) + hproj(j, h)));
            rr[j] = Sigmoid(clip(xproj(H + j) + hproj(H + j, h)));
            rh[j] = rr[j] * h[j];
          }
          for (int64_t j = 0; j < H; ++j) {
            const double hidden = c.linear_before_reset ? rr[j] * hproj(2 * H + j, h) : hproj(2 * H + j, rh);
            const double cand = std::tanh(clip(xproj(2 * H + j) + hidden));
            nh[j] = (1 - z[j]) * cand + z[j] * h[j];
          }
        } else {
          for (int64_t j = 0; j < H; ++j) {
            const double pi = c.peepholes ? in.p[d * 3 * H + j] : 0, po = c.peepholes ? in.p[d * 3 * H + H + j] : 0;
            const double pf = c.peepholes ? in.p[d * 3 * H + 2 * H + j] : 0;
            const double i = Sigmoid(clip(xproj(j) + hproj(j, h) + pi * cell[j]));
            const double f = c.input_forget ? 1 - i : Sigmoid(clip(xproj(2 * H + j) + hproj(2 * H + j, h) + pf * cell[j]));
            const double g = std::tanh(clip(xproj(3 * H + j) + hproj(3 * H + j, h)));
            nc[j] = f * cell[j] + i * g;
            const double o = Sigmoid(clip(xproj(H + j) + hproj(H + j, h) + po * nc[j]));
            nh[j] = o * std::tanh(nc[j]);
          }
          cell = nc;
        }
        h = nh;
        for (int64_t j = 0; j < H; ++j) y[((t * D + d) * c.batch + bt) * H + j] = h[j];
      }
      for (int64_t j = 0; j < H; ++j) {
        yh[(d * c.batch + bt) * H + j] = h[j];
        if (c.op == "LSTM") yc[(d * c.batch + bt) * H + j] = cell[j];
      }
    }
  }
  return {y, yh, yc};
}

// [a, b, c, ...] with axes 0 and 1 swapped (the batch-major layouts).
Vec Swap01(const Vec& v, int64_t a, int64_t b, int64_t rest) {
  Vec out(v.size());
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < rest; ++k) out[(j * a + i) * rest + k] = v[(i * b + j) * rest + k];
  return out;
}

std::vector<Vec> Imported(const Config& c, const Inputs& in) {
  const int64_t G = Gates(c), H = c.hidden, D = Directions(c);
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(14);
  auto* g = m.mutable_graph();
  auto* node = g->add_node();
  node->set_op_type(c.op);
  auto add = [&](const std::string& name, std::vector<int64_t> dims, const Vec& values, bool ints = false) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(ints ? onnx::TensorProto::INT32 : onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (double v : values) ints ? t->add_int32_data(static_cast<int32_t>(v)) : t->add_float_data(static_cast<float>(v));
    node->add_input(name);
  };
  add("X", c.batch_major ? std::vector<int64_t>{c.batch, c.seq, c.input} : std::vector<int64_t>{c.seq, c.batch, c.input},
      c.batch_major ? Swap01(in.x, c.seq, c.batch, c.input) : in.x);
  add("W", {D, G * H, c.input}, in.w);
  add("R", {D, G * H, H}, in.r);
  add("B", {D, 2 * G * H}, in.b);
  if (c.lengths.empty()) node->add_input("");
  else add("lens", {c.batch}, Vec(c.lengths.begin(), c.lengths.end()), true);
  auto state = [&](const std::string& name, const Vec& v) {
    add(name, c.batch_major ? std::vector<int64_t>{c.batch, D, H} : std::vector<int64_t>{D, c.batch, H},
        c.batch_major ? Swap01(v, D, c.batch, H) : v);
  };
  state("h0", in.h0);
  if (c.op == "LSTM") {
    state("c0", in.c0);
    if (c.peepholes) add("P", {D, 3 * H}, in.p);
  }
  const int outputs = c.op == "LSTM" ? 3 : 2;
  for (int i = 0; i < outputs; ++i) {
    node->add_output(StrCat("out", i));
    g->add_output()->set_name(StrCat("out", i));
  }
  auto attr_i = [&](const char* name, int64_t v) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  };
  attr_i("hidden_size", H);
  if (c.batch_major) attr_i("layout", 1);
  if (c.linear_before_reset) attr_i("linear_before_reset", 1);
  if (c.input_forget) attr_i("input_forget", 1);
  auto* dir = node->add_attribute();
  dir->set_name("direction");
  dir->set_type(onnx::AttributeProto::STRING);
  dir->set_s(c.direction);
  if (c.clip > 0) {
    auto* a = node->add_attribute();
    a->set_name("clip");
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(static_cast<float>(c.clip));
  }
  auto graph = ImportOnnxBytes(m.SerializeAsString(), {}, "model.onnx");
  EXPECT_TRUE(graph.ok()) << graph.status();
  std::vector<Vec> out;
  if (!graph.ok()) return out;
  for (int i = 0; i < outputs; ++i) {
    const graph::NodeEntry e = graph->outputs()[i];
    const graph::Node& producer = graph->node(e.node);
    auto it = graph->params().find(producer.name);
    EXPECT_TRUE(it != graph->params().end()) << "output " << i << " did not fold";
    if (it == graph->params().end()) return {};
    Vec v;
    for (int64_t k = 0; k < it->second.NumElements(); ++k) v.push_back(it->second.GetDouble(k));
    if (c.batch_major && i > 0) v = Swap01(v, c.batch, D, H);
    if (c.batch_major && i == 0) {  // [batch, seq, D, H] -> [seq, batch, D, H] -> [seq, D, batch, H]
      Vec by_step = Swap01(v, c.batch, c.seq, D * H);
      const int64_t block = c.batch * D * H;
      for (int64_t t = 0; t < c.seq; ++t) {
        Vec one = Swap01(Vec(by_step.begin() + t * block, by_step.begin() + (t + 1) * block), c.batch, D, H);
        std::copy(one.begin(), one.end(), v.begin() + t * block);
      }
    }
    out.push_back(v);
  }
  return out;
}

void Check(const Config& c, uint32_t seed) {
  const int64_t G = Gates(c), H = c.hidden, D = Directions(c);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  auto random = [&](int64_t n) {
    Vec v(n);
    for (double& x : v) x = static_cast<float>(u(rng));  // float32 data
    return v;
  };
  Inputs in{random(c.seq * c.batch * c.input), random(D * G * H * c.input), random(D * G * H * H), random(D * 2 * G * H),
            random(D * 3 * H), random(D * c.batch * H), random(D * c.batch * H)};
  std::vector<Vec> want = Reference(c, in), got = Imported(c, in);
  const int outputs = c.op == "LSTM" ? 3 : 2;
  ASSERT_EQ(got.size(), static_cast<size_t>(outputs)) << c.op << " " << c.direction;
  for (int i = 0; i < outputs; ++i) {
    ASSERT_EQ(got[i].size(), want[i].size()) << "output " << i;
    for (size_t k = 0; k < want[i].size(); ++k)
      EXPECT_NEAR(got[i][k], want[i][k], 1e-5) << c.op << " " << c.direction << " output " << i << " element " << k;
  }
}

TEST(RecurrentImport, EveryCellInEveryDirection) {
  uint32_t seed = 1;
  for (const char* op : {"RNN", "GRU", "LSTM"})
    for (const char* direction : {"forward", "reverse", "bidirectional"}) {
      Config c;
      c.op = op;
      c.direction = direction;
      Check(c, seed++);
    }
}

TEST(RecurrentImport, BatchMajorClipLinearBeforeResetInputForgetAndPeepholes) {
  Config gru;
  gru.op = "GRU";
  gru.direction = "bidirectional";
  gru.batch_major = true;
  gru.linear_before_reset = true;
  gru.clip = 0.5;
  Check(gru, 20);
  Config lstm;
  lstm.batch_major = true;
  lstm.input_forget = true;
  lstm.peepholes = true;
  lstm.clip = 0.7;
  Check(lstm, 21);
}

TEST(RecurrentImport, ShortSequencesKeepTheirStateAndOutputZeros) {
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    Config c;
    c.op = op;
    c.seq = 4;
    c.batch = 3;
    c.lengths = {4, 1, 2};
    Check(c, 30);
  }
}

}  // namespace
}  // namespace tunefarm::frontend
