// The recurrent family: ONNX RNN, GRU and LSTM, unrolled over the (static) sequence at import
// into graph ops that exist already: one Gemm for the input projection of every step at once,
// then per step a Gemm for the hidden projection, the gate slices, their activations and the
// state update. Each step's kernels are ordinary tasks for the tuner; nothing here has a compute.
//
// Covers every direction, layout 0 and 1, biases, initial states, LSTM peepholes and
// input_forget, GRU's linear_before_reset, clip, the activations with a graph op (Relu, Tanh,
// Sigmoid, LeakyRelu, ThresholdedRelu, HardSigmoid, Elu, Softsign, Softplus), and forward
// sequence_lens (a step past a batch row's length keeps its state and outputs 0).
#include <cmath>
#include <map>
#include <tuple>

#include "compiler/graph/family_common.h"
#include "compiler/graph/onnx_emitter.h"

namespace tunefarm::graph {
namespace {
using namespace family;
using Shape = std::vector<int64_t>;

struct Activation {
  std::string op;
  Attrs attrs;
};

// The activation list: the node's, or `defaults` for each direction. Alphas and betas are
// consumed in order by the functions that take them.
absl::StatusOr<std::vector<Activation>> Activations(OnnxNode& n, const std::vector<std::string>& defaults,
                                                    int directions) {
  std::vector<std::string> names = n.attrs().GetStrings("activations");
  if (names.empty())
    for (int d = 0; d < directions; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  if (names.size() != defaults.size() * directions)
    return n.Error(StrCat(names.size(), " activations given, ", defaults.size() * directions, " expected"));
  const std::vector<double> alphas = n.attrs().GetFloats("activation_alpha"), betas = n.attrs().GetFloats("activation_beta");
  size_t next_alpha = 0, next_beta = 0;
  // name -> (graph op, default alpha or NaN when it takes none, default beta or NaN)
  const double none = std::nan("");
  const std::map<std::string, std::tuple<const char*, double, double>> kKnown = {
      {"Relu", {"Relu", none, none}},       {"Tanh", {"Tanh", none, none}},
      {"Sigmoid", {"Sigmoid", none, none}}, {"LeakyRelu", {"LeakyRelu", 0.01, none}},
      {"ThresholdedRelu", {"ThresholdedRelu", 1.0, none}}, {"HardSigmoid", {"HardSigmoid", 0.2, 0.5}},
      {"Elu", {"Elu", 1.0, none}},          {"Softsign", {"Softsign", none, none}},
      {"Softplus", {"Softplus", none, none}}};
  std::vector<Activation> out;
  for (const std::string& name : names) {
    auto it = kKnown.find(name);
    if (it == kKnown.end()) return n.Error(StrCat("activation '", name, "' is not supported"));
    const auto& [op, alpha, beta] = it->second;
    Activation a{op, {}};
    if (!std::isnan(alpha)) a.attrs.Set("alpha", next_alpha < alphas.size() ? alphas[next_alpha++] : alpha);
    if (!std::isnan(beta)) a.attrs.Set("beta", next_beta < betas.size() ? betas[next_beta++] : beta);
    out.push_back(std::move(a));
  }
  return out;
}

enum class CellKind { kRnn, kGru, kLstm };

struct Sizes {
  int64_t seq, batch, input, hidden, gates;
};

// One direction's weights, sliced out of the [directions, ...] inputs.
struct DirectionWeights {
  std::string w, r;            // [G*H, I], [G*H, H]
  std::string w_bias, r_bias;  // [G*H] each, "" without B
  std::string peephole;        // [3H] (LSTM), "" without P
};

absl::StatusOr<DirectionWeights> WeightsOf(OnnxNode& n, OnnxEmitter& u, const Sizes& s, int64_t d) {
  DirectionWeights dw;
  const int64_t gh = s.gates * s.hidden;
  TF_ASSIGN(dw.w, u.Slice(n.input(1), 0, d, d + 1));
  TF_ASSIGN(dw.w, u.Reshape(dw.w, {gh, s.input}));
  TF_ASSIGN(dw.r, u.Slice(n.input(2), 0, d, d + 1));
  TF_ASSIGN(dw.r, u.Reshape(dw.r, {gh, s.hidden}));
  if (n.HasInput(3)) {
    std::string b;
    TF_ASSIGN(b, u.Slice(n.input(3), 0, d, d + 1));
    TF_ASSIGN(b, u.Reshape(b, {2 * gh}));
    TF_ASSIGN(dw.w_bias, u.Slice(b, 0, 0, gh));
    TF_ASSIGN(dw.r_bias, u.Slice(b, 0, gh, 2 * gh));
  }
  if (n.op() == "LSTM" && n.HasInput(7)) {
    TF_ASSIGN(dw.peephole, u.Slice(n.input(7), 0, d, d + 1));
    TF_ASSIGN(dw.peephole, u.Reshape(dw.peephole, {3 * s.hidden}));
  }
  return dw;
}

struct State {
  std::string h, c;  // [batch, H]; c for LSTM only
};

// Gate pre-activation clipped to [-clip, clip] when the node sets clip.
absl::StatusOr<std::string> Clipped(OnnxNode& n, OnnxEmitter& u, const std::string& v) {
  if (!n.attrs().Has("clip")) return v;
  const double clip = n.attrs().GetFloat("clip");
  Attrs a;
  a.Set("min", -clip);
  a.Set("max", clip);
  return u.Op("Clip", {v}, std::move(a));
}

// One step of the cell: `xw` is this step's input projection [batch, G*H] (W bias included).
absl::StatusOr<State> Step(OnnxNode& n, OnnxEmitter& u, CellKind kind, const Sizes& s, const DirectionWeights& dw,
                           const std::vector<Activation>& f, const State& prev, const std::string& xw) {
  const int64_t H = s.hidden;
  State next;
  if (kind == CellKind::kRnn) {
    std::string hr, pre;
    TF_ASSIGN(hr, u.Linear(prev.h, dw.r, dw.r_bias));
    TF_ASSIGN(pre, u.Op("Add", {xw, hr}));
    TF_ASSIGN(pre, Clipped(n, u, pre));
    TF_ASSIGN(next.h, u.Op(f[0].op, {pre}, f[0].attrs));
    return next;
  }
  if (kind == CellKind::kLstm) {
    // Gates in ONNX's order i, o, f, c.
    std::string hr, g, gi, go, gf, gc;
    TF_ASSIGN(hr, u.Linear(prev.h, dw.r, dw.r_bias));
    TF_ASSIGN(g, u.Op("Add", {xw, hr}));
    TF_ASSIGN(gi, u.Slice(g, 1, 0, H));
    TF_ASSIGN(go, u.Slice(g, 1, H, 2 * H));
    TF_ASSIGN(gf, u.Slice(g, 1, 2 * H, 3 * H));
    TF_ASSIGN(gc, u.Slice(g, 1, 3 * H, 4 * H));
    std::string p_i, p_o, p_f;
    if (!dw.peephole.empty()) {
      TF_ASSIGN(p_i, u.Slice(dw.peephole, 0, 0, H));
      TF_ASSIGN(p_o, u.Slice(dw.peephole, 0, H, 2 * H));
      TF_ASSIGN(p_f, u.Slice(dw.peephole, 0, 2 * H, 3 * H));
      std::string t;
      TF_ASSIGN(t, u.Op("Mul", {p_i, prev.c}));
      TF_ASSIGN(gi, u.Op("Add", {gi, t}));
      TF_ASSIGN(t, u.Op("Mul", {p_f, prev.c}));
      TF_ASSIGN(gf, u.Op("Add", {gf, t}));
    }
    std::string i, forget, candidate, o, t1, t2;
    TF_ASSIGN(gi, Clipped(n, u, gi));
    TF_ASSIGN(i, u.Op(f[0].op, {gi}, f[0].attrs));
    if (n.attrs().GetInt("input_forget", 0) != 0) {
      HostTensor one = HostTensor::FromFloats({1.0f}, {});
      if (n.InputType(0).dtype != te::DType::kFloat32) {
        auto z = HostTensor::Zeros(n.InputType(0).dtype, {});
        if (!z.ok()) return z.status();
        z->SetDouble(0, 1.0);
        one = *z;
      }
      TF_ASSIGN(forget, u.Op("Sub", {u.Constant(std::move(one)), i}));
    } else {
      TF_ASSIGN(gf, Clipped(n, u, gf));
      TF_ASSIGN(forget, u.Op(f[0].op, {gf}, f[0].attrs));
    }
    TF_ASSIGN(gc, Clipped(n, u, gc));
    TF_ASSIGN(candidate, u.Op(f[1].op, {gc}, f[1].attrs));
    TF_ASSIGN(t1, u.Op("Mul", {forget, prev.c}));
    TF_ASSIGN(t2, u.Op("Mul", {i, candidate}));
    TF_ASSIGN(next.c, u.Op("Add", {t1, t2}));
    if (!p_o.empty()) {
      std::string t;
      TF_ASSIGN(t, u.Op("Mul", {p_o, next.c}));
      TF_ASSIGN(go, u.Op("Add", {go, t}));
    }
    TF_ASSIGN(go, Clipped(n, u, go));
    TF_ASSIGN(o, u.Op(f[0].op, {go}, f[0].attrs));
    std::string hc;
    TF_ASSIGN(hc, u.Op(f[2].op, {next.c}, f[2].attrs));
    TF_ASSIGN(next.h, u.Op("Mul", {o, hc}));
    return next;
  }
  // GRU, gates z, r, h.
  std::string r_zr, r_h, b_zr, b_h, xzr, xh, hzr, zr, z, r, candidate;
  TF_ASSIGN(r_zr, u.Slice(dw.r, 0, 0, 2 * H));
  TF_ASSIGN(r_h, u.Slice(dw.r, 0, 2 * H, 3 * H));
  if (!dw.r_bias.empty()) {
    TF_ASSIGN(b_zr, u.Slice(dw.r_bias, 0, 0, 2 * H));
    TF_ASSIGN(b_h, u.Slice(dw.r_bias, 0, 2 * H, 3 * H));
  }
  TF_ASSIGN(xzr, u.Slice(xw, 1, 0, 2 * H));
  TF_ASSIGN(xh, u.Slice(xw, 1, 2 * H, 3 * H));
  TF_ASSIGN(hzr, u.Linear(prev.h, r_zr, b_zr));
  TF_ASSIGN(zr, u.Op("Add", {xzr, hzr}));
  TF_ASSIGN(zr, Clipped(n, u, zr));
  TF_ASSIGN(zr, u.Op(f[0].op, {zr}, f[0].attrs));
  TF_ASSIGN(z, u.Slice(zr, 1, 0, H));
  TF_ASSIGN(r, u.Slice(zr, 1, H, 2 * H));
  std::string hidden_part;
  if (n.attrs().GetInt("linear_before_reset", 0) != 0) {
    TF_ASSIGN(hidden_part, u.Linear(prev.h, r_h, b_h));
    TF_ASSIGN(hidden_part, u.Op("Mul", {r, hidden_part}));
  } else {
    std::string reset;
    TF_ASSIGN(reset, u.Op("Mul", {r, prev.h}));
    TF_ASSIGN(hidden_part, u.Linear(reset, r_h, b_h));
  }
  TF_ASSIGN(candidate, u.Op("Add", {xh, hidden_part}));
  TF_ASSIGN(candidate, Clipped(n, u, candidate));
  TF_ASSIGN(candidate, u.Op(f[1].op, {candidate}, f[1].attrs));
  // h = (1 - z) * candidate + z * h_prev = candidate + z * (h_prev - candidate)
  std::string diff, scaled;
  TF_ASSIGN(diff, u.Op("Sub", {prev.h, candidate}));
  TF_ASSIGN(scaled, u.Op("Mul", {z, diff}));
  TF_ASSIGN(next.h, u.Op("Add", {candidate, scaled}));
  return next;
}

absl::Status ConvertRecurrent(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(3));
  const CellKind kind = n.op() == "RNN" ? CellKind::kRnn : n.op() == "GRU" ? CellKind::kGru : CellKind::kLstm;
  const TensorType& x_type = n.InputType(0);
  if (absl::Status s = NeedFloat(x_type, "X"); !s.ok()) return n.Error(std::string(s.message()));
  if (x_type.shape.size() != 3) return n.Error(StrCat("X must be 3-D, got ", x_type.ToString()));
  const bool batch_major = n.attrs().GetInt("layout", 0) != 0;
  const std::string direction = n.attrs().GetString("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    return n.Error(StrCat("direction '", direction, "' is not forward, reverse or bidirectional"));
  const int64_t directions = direction == "bidirectional" ? 2 : 1;
  Sizes s{x_type.shape[batch_major ? 1 : 0], x_type.shape[batch_major ? 0 : 1], x_type.shape[2],
          n.attrs().GetInt("hidden_size", 0), kind == CellKind::kRnn ? 1 : kind == CellKind::kGru ? 3 : 4};
  // Bounded before it multiplies anything (W and R must then hold gates * hidden rows anyway).
  if (s.hidden < 1 || s.hidden > (int64_t{1} << 20)) return n.Error("hidden_size must be given, positive and at most 2^20");
  if (s.seq > 4096) return n.Error(StrCat("a sequence of ", s.seq, " steps is longer than the 4096 this unrolling takes"));
  const Shape w_shape = {directions, s.gates * s.hidden, s.input}, r_shape = {directions, s.gates * s.hidden, s.hidden};
  if (n.InputType(1).shape != w_shape || n.InputType(2).shape != r_shape)
    return n.Error(StrCat("W ", n.InputType(1).ToString(), " and R ", n.InputType(2).ToString(), " should be ",
                          ShapeToString(w_shape), " and ", ShapeToString(r_shape)));
  if (n.HasInput(3) && n.InputType(3).shape != Shape{directions, 2 * s.gates * s.hidden})
    return n.Error(StrCat("B ", n.InputType(3).ToString(), " should be [", directions, ",", 2 * s.gates * s.hidden, "]"));
  const bool masked = n.HasInput(4);
  if (masked && direction != "forward") return n.Error("sequence_lens is supported in the forward direction only");
  if (masked && (n.InputType(4).shape != Shape{s.batch} || !te::IsInt(n.InputType(4).dtype)))
    return n.Error(StrCat("sequence_lens ", n.InputType(4).ToString(), " should be integers [", s.batch, "]"));
  if (kind != CellKind::kLstm && n.num_outputs() > 2) return n.Error(StrCat(n.op(), " has two outputs"));
  auto f = Activations(n, kind == CellKind::kRnn   ? std::vector<std::string>{"Tanh"}
                          : kind == CellKind::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                   : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"},
                       static_cast<int>(directions));
  if (!f.ok()) return f.status();
  const size_t per_direction = f->size() / directions;

  std::string base;
  for (int i = 0; i < n.num_outputs() && base.empty(); ++i) base = n.output(i);
  if (base.empty()) return absl::OkStatus();  // nothing reads it
  OnnxEmitter u(n, base);
  const te::DType dtype = x_type.dtype;
  auto zeros = [&](Shape shape) -> absl::StatusOr<std::string> {
    auto z = HostTensor::Zeros(dtype, std::move(shape));
    if (!z.ok()) return z.status();
    return u.Constant(std::move(*z));
  };
  // Sequence-major X [seq, batch, input], flattened for one input projection per direction.
  std::string x = n.input(0);
  if (batch_major) TF_ASSIGN(x, u.Transpose(x, {1, 0, 2}));
  std::string x2;
  TF_ASSIGN(x2, u.Reshape(x, {s.seq * s.batch, s.input}));
  // Initial states [directions, batch, H] (batch-major: [batch, directions, H]).
  auto initial = [&](int input) -> absl::StatusOr<std::string> {
    if (!n.HasInput(input)) return std::string();
    if (!batch_major) return n.input(input);
    return u.Transpose(n.input(input), {1, 0, 2});
  };
  std::string h0, c0;
  TF_ASSIGN(h0, initial(5));
  if (kind == CellKind::kLstm) TF_ASSIGN(c0, initial(6));

  std::vector<std::string> ys, hs, cs;  // per direction: [seq, 1, batch, H], [1, batch, H]
  for (int64_t d = 0; d < directions; ++d) {
    DirectionWeights dw;
    TF_ASSIGN(dw, WeightsOf(n, u, s, d));
    const std::vector<Activation> fd(f->begin() + d * per_direction, f->begin() + (d + 1) * per_direction);
    std::string xw;
    TF_ASSIGN(xw, u.Linear(x2, dw.w, dw.w_bias));
    TF_ASSIGN(xw, u.Reshape(xw, {s.seq, s.batch, s.gates * s.hidden}));
    State state;
    auto state_of = [&](const std::string& all) -> absl::StatusOr<std::string> {
      if (all.empty()) return zeros({s.batch, s.hidden});
      auto one = u.Slice(all, 0, d, d + 1);
      if (!one.ok()) return one;
      return u.Reshape(*one, {s.batch, s.hidden});
    };
    TF_ASSIGN(state.h, state_of(h0));
    if (kind == CellKind::kLstm) TF_ASSIGN(state.c, state_of(c0));
    std::vector<std::string> steps(s.seq);
    const bool reverse = direction == "reverse" || d == 1;
    for (int64_t k = 0; k < s.seq; ++k) {
      const int64_t t = reverse ? s.seq - 1 - k : k;
      std::string xw_t;
      TF_ASSIGN(xw_t, u.Slice(xw, 0, t, t + 1));
      TF_ASSIGN(xw_t, u.Reshape(xw_t, {s.batch, s.gates * s.hidden}));
      State next;
      TF_ASSIGN(next, Step(n, u, kind, s, dw, fd, state, xw_t));
      std::string y = next.h;
      if (masked) {
        // Rows whose sequence has ended keep their state and output 0.
        auto t_value = HostTensor::Zeros(n.InputType(4).dtype, {});
        if (!t_value.ok()) return t_value.status();
        t_value->SetInt(0, t);
        std::string live, zero;
        TF_ASSIGN(live, u.Op("Less", {u.Constant(std::move(*t_value)), n.input(4)}));
        TF_ASSIGN(live, u.Reshape(live, {s.batch, 1}));
        TF_ASSIGN(zero, zeros({s.batch, s.hidden}));
        TF_ASSIGN(y, u.Op("Where", {live, next.h, zero}));
        TF_ASSIGN(next.h, u.Op("Where", {live, next.h, state.h}));
        if (kind == CellKind::kLstm) TF_ASSIGN(next.c, u.Op("Where", {live, next.c, state.c}));
      }
      TF_ASSIGN(steps[t], u.Reshape(y, {1, 1, s.batch, s.hidden}));
      state = next;
    }
    std::string y_d;
    TF_ASSIGN(y_d, u.Concat(steps, 0));
    ys.push_back(y_d);
    std::string h_last, c_last;
    TF_ASSIGN(h_last, u.Reshape(state.h, {1, s.batch, s.hidden}));
    hs.push_back(h_last);
    if (kind == CellKind::kLstm) {
      TF_ASSIGN(c_last, u.Reshape(state.c, {1, s.batch, s.hidden}));
      cs.push_back(c_last);
    }
  }
  // Outputs: Y [seq, directions, batch, H], Y_h and Y_c [directions, batch, H]; batch-major
  // layout moves batch first.
  auto finish = [&](int output, const std::vector<std::string>& parts, int64_t axis, Shape batch_major_perm) -> absl::Status {
    if (!n.HasOutput(output)) return absl::OkStatus();
    std::string v;
    TF_ASSIGN(v, u.Concat(parts, axis));
    // Each output gets a node name of its own (the ONNX node's name can serve only one).
    const std::string node_name = n.UniqueName(n.output(output));
    if (!batch_major) return n.Emit("Identity", {v}, {}, {n.output(output)}, node_name);
    Attrs perm;
    perm.Set("perm", std::move(batch_major_perm));
    return n.Emit("Transpose", {v}, std::move(perm), {n.output(output)}, node_name);
  };
  TF_RETURN_IF_ERROR(finish(0, ys, 1, {2, 0, 1, 3}));
  TF_RETURN_IF_ERROR(finish(1, hs, 0, {1, 0, 2}));
  if (kind == CellKind::kLstm) TF_RETURN_IF_ERROR(finish(2, cs, 0, {1, 0, 2}));
  return absl::OkStatus();
}

}  // namespace

void RegisterRecurrentFamily(OpRegistry* r) {
  for (const char* op : {"RNN", "GRU", "LSTM"}) r->RegisterOnnx({op, 7, -1, ConvertRecurrent});
}

}  // namespace tunefarm::graph
