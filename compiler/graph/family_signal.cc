// The signal family: ONNX DFT, STFT and MelWeightMatrix (opset 17), converted at import. A DFT of
// a static length N is two matmuls with constant [N, K] cosine and sine matrices (K = N, or
// N/2 + 1 one-sided), computed on the host in double precision; STFT gathers its frames with a
// constant index table, applies the window and runs the same DFT. MelWeightMatrix has no
// runtime input: its matrix is computed here as ONNX's reference computes it.
#include <cmath>
#include <numbers>

#include "compiler/graph/family_common.h"
#include "compiler/graph/onnx_emitter.h"

namespace tunefarm::graph {
namespace {
using namespace family;
using Shape = std::vector<int64_t>;

// A complex value as its real and imaginary parts, each [..., N]; im "" when the signal is real.
struct Complex {
  std::string re, im;
};

// [n, k] of cos or sin(2 pi i j / n) * scale, in `dtype`.
absl::StatusOr<HostTensor> Twiddle(te::DType dtype, int64_t n, int64_t k, bool sine, double scale) {
  auto t = HostTensor::Zeros(dtype, {n, k});
  if (!t.ok()) return t.status();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) {
      // (i * j) mod n keeps the angle small, so large lengths stay accurate.
      const double angle = 2 * std::numbers::pi * static_cast<double>((i * j) % n) / static_cast<double>(n);
      t->SetDouble(i * k + j, (sine ? std::sin(angle) : std::cos(angle)) * scale);
    }
  return t;
}

// The DFT of x along its last axis of length n, k outputs: forward sum x e^{-2 pi i jm/n},
// inverse (1/n) sum x e^{+2 pi i jm/n}. With (a + ib): re = a C + b S, im = b C - a S, where
// S carries the direction's sign.
// The cos and sin tables are n x k each: bounded, as an O(n^2) DFT beyond that is no way to run it.
constexpr int64_t kMaxDftTable = int64_t{1} << 24;

absl::StatusOr<Complex> Dft(OnnxEmitter& u, te::DType dtype, const Complex& x, int64_t n, int64_t k, bool inverse) {
  if (n * k > kMaxDftTable)
    return absl::InvalidArgumentError(StrCat("a DFT of length ", n, " needs ", n, "x", k, " tables, more than ", kMaxDftTable,
                                             " entries (this DFT is a matmul, not an FFT)"));
  const double scale = inverse ? 1.0 / static_cast<double>(n) : 1.0;
  auto cos_table = Twiddle(dtype, n, k, false, scale);
  if (!cos_table.ok()) return cos_table.status();
  auto sin_table = Twiddle(dtype, n, k, true, inverse ? -scale : scale);
  if (!sin_table.ok()) return sin_table.status();
  const std::string c = u.Constant(std::move(*cos_table)), s = u.Constant(std::move(*sin_table));
  Complex out;
  std::string a_s;
  TF_ASSIGN(out.re, u.Op("MatMul", {x.re, c}));
  TF_ASSIGN(a_s, u.Op("MatMul", {x.re, s}));
  if (x.im.empty()) {
    TF_ASSIGN(out.im, u.Op("Neg", {a_s}));
    return out;
  }
  std::string b_s, b_c;
  TF_ASSIGN(b_s, u.Op("MatMul", {x.im, s}));
  TF_ASSIGN(out.re, u.Op("Add", {out.re, b_s}));
  TF_ASSIGN(b_c, u.Op("MatMul", {x.im, c}));
  TF_ASSIGN(out.im, u.Op("Sub", {b_c, a_s}));
  return out;
}

// The parts of a [..., 1 or 2] tensor, each [...] (the last axis dropped).
absl::StatusOr<Complex> Split(OnnxEmitter& u, const std::string& v, const Shape& shape) {
  const Shape part(shape.begin(), shape.end() - 1);
  const int64_t last = static_cast<int64_t>(shape.size()) - 1;
  Complex x;
  TF_ASSIGN(x.re, u.Slice(v, last, 0, 1));
  TF_ASSIGN(x.re, u.Reshape(x.re, part));
  if (shape.back() == 2) {
    TF_ASSIGN(x.im, u.Slice(v, last, 1, 2));
    TF_ASSIGN(x.im, u.Reshape(x.im, part));
  }
  return x;
}

// re and im [...] stacked into [..., 2].
absl::StatusOr<std::string> Stack(OnnxEmitter& u, const Complex& x, Shape shape) {
  shape.push_back(1);
  std::string re, im;
  TF_ASSIGN(re, u.Reshape(x.re, shape));
  TF_ASSIGN(im, u.Reshape(x.im, shape));
  return u.Concat({re, im}, static_cast<int64_t>(shape.size()) - 1);
}

absl::StatusOr<int64_t> OptionalLength(OnnxNode& n, int input, int64_t fallback, const char* what) {
  if (!n.HasInput(input)) return fallback;
  auto v = n.ConstInt(input, what);
  if (!v.ok()) return v.status();
  if (*v < 1 || *v > (int64_t{1} << 20)) return n.Error(StrCat(what, " ", *v, " is outside [1, 2^20]"));
  return *v;
}

// DFT-17: input [batch, ..., signal, 1 | 2], dft_length (optional input), axis, inverse, onesided.
absl::Status ConvertDft(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  TF_RETURN_IF_ERROR(n.FirstOutputOnly());
  const TensorType& t = n.InputType(0);
  if (absl::Status s = NeedFloat(t, "input"); !s.ok()) return n.Error(std::string(s.message()));
  const int64_t rank = static_cast<int64_t>(t.shape.size());
  if (rank < 3 || (t.shape.back() != 1 && t.shape.back() != 2))
    return n.Error(StrCat("input ", t.ToString(), " should be [batch, ..., signal, 1 or 2]"));
  int64_t axis = n.attrs().GetInt("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 1 || axis >= rank - 1) return n.Error(StrCat("axis ", n.attrs().GetInt("axis", 1), " is not a signal axis"));
  const bool inverse = n.attrs().GetInt("inverse", 0) != 0, onesided = n.attrs().GetInt("onesided", 0) != 0;
  if (onesided && (inverse || t.shape.back() == 2)) return n.Error("onesided needs a real forward transform");
  const int64_t signal = t.shape[axis];
  auto length = OptionalLength(n, 1, signal, "dft_length");
  if (!length.ok()) return length.status();
  const int64_t N = *length, K = onesided ? N / 2 + 1 : N;

  OnnxEmitter u(n, n.output(0));
  // Move the signal axis last (before the complex axis), then split the parts.
  Shape perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && d != rank - 1) perm.push_back(d);
  perm.push_back(axis);
  perm.push_back(rank - 1);
  Shape moved;
  for (int64_t d : perm) moved.push_back(t.shape[d]);
  std::string x;
  TF_ASSIGN(x, u.Transpose(n.input(0), perm));
  // Truncate or zero-pad the signal to N.
  if (N < signal) {
    TF_ASSIGN(x, u.Slice(x, rank - 2, 0, N));
  } else if (N > signal) {
    Attrs pad;
    Shape pads(2 * rank, 0);
    pads[rank + rank - 2] = N - signal;
    pad.Set("pads", pads);
    TF_ASSIGN(x, u.Op("Pad", {x}, std::move(pad)));
  }
  moved[rank - 2] = N;
  Complex parts;
  TF_ASSIGN(parts, Split(u, x, moved));
  auto y_or = Dft(u, t.dtype, parts, N, K, inverse);
  if (!y_or.ok()) return n.Error(std::string(y_or.status().message()));
  Complex y = *y_or;
  Shape out_shape(moved.begin(), moved.end() - 1);
  out_shape.back() = K;
  std::string stacked;
  TF_ASSIGN(stacked, Stack(u, y, out_shape));
  // Back to the input's axis order.
  Shape back(rank);
  for (int64_t d = 0; d < rank; ++d) back[perm[d]] = d;
  Attrs attrs;
  attrs.Set("perm", back);
  return n.Emit("Transpose", {stacked}, std::move(attrs), {n.output(0)});
}

// STFT-17: signal [batch, length, 1 | 2], frame_step, window [frame_length] (optional),
// frame_length (optional), onesided (default 1) -> [batch, frames, bins, 2].
absl::Status ConvertStft(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(2));
  const TensorType& t = n.InputType(0);
  if (absl::Status s = NeedFloat(t, "signal"); !s.ok()) return n.Error(std::string(s.message()));
  if (t.shape.size() != 3 || (t.shape[2] != 1 && t.shape[2] != 2))
    return n.Error(StrCat("signal ", t.ToString(), " should be [batch, length, 1 or 2]"));
  const int64_t batch = t.shape[0], length = t.shape[1];
  auto step = n.ConstInt(1, "frame_step");
  if (!step.ok()) return step.status();
  if (*step < 1) return n.Error(StrCat("frame_step ", *step, " is not positive"));
  int64_t frame = n.HasInput(2) ? n.InputType(2).NumElements() : length;
  auto given = OptionalLength(n, 3, frame, "frame_length");
  if (!given.ok()) return given.status();
  if (n.HasInput(2) && *given != frame) return n.Error("frame_length differs from the window's length");
  frame = *given;
  if (frame > length) return n.Error(StrCat("frame_length ", frame, " exceeds the signal's ", length));
  const bool onesided = n.attrs().GetInt("onesided", 1) != 0;
  if (onesided && t.shape[2] == 2) return n.Error("onesided needs a real signal");
  const int64_t frames = 1 + (length - frame) / *step, K = onesided ? frame / 2 + 1 : frame;
  if (frames * frame > kMaxDftTable) return n.Error(StrCat(frames, " frames of ", frame, " samples are too many"));

  OnnxEmitter u(n, n.output(0));
  Complex parts;
  TF_ASSIGN(parts, Split(u, n.input(0), t.shape));  // [batch, length]
  // Frame f holds samples f * step + j.
  std::vector<int64_t> positions;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t j = 0; j < frame; ++j) positions.push_back(f * *step + j);
  const std::string index = u.Constant(HostTensor::FromInt64s(positions, {frames, frame}));
  Complex framed;
  Attrs axis1;
  axis1.Set("axis", int64_t{1});
  for (auto [part, out] : {std::pair{&parts.re, &framed.re}, std::pair{&parts.im, &framed.im}}) {
    if (part->empty()) continue;
    TF_ASSIGN(*out, u.Op("Gather", {*part, index}, axis1));  // [batch, frames, frame]
    if (n.HasInput(2)) TF_ASSIGN(*out, u.Op("Mul", {*out, n.input(2)}));
  }
  auto y_or = Dft(u, t.dtype, framed, frame, K, false);
  if (!y_or.ok()) return n.Error(std::string(y_or.status().message()));
  Complex y = *y_or;
  std::string stacked;
  TF_ASSIGN(stacked, Stack(u, y, {batch, frames, K}));
  return n.Emit("Identity", {stacked}, {}, {n.output(0)});
}

// MelWeightMatrix-17 as ONNX's reference computes it (op_mel_weight_matrix.py): triangular
// filters between mel-spaced bins, the bin edges truncated to integers.
absl::Status ConvertMelWeightMatrix(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(5));
  auto mel_bins = n.ConstInt(0, "num_mel_bins");
  if (!mel_bins.ok()) return mel_bins.status();
  auto dft_length = n.ConstInt(1, "dft_length");
  if (!dft_length.ok()) return dft_length.status();
  auto rate = n.ConstInt(2, "sample_rate");
  if (!rate.ok()) return rate.status();
  auto lower = n.ConstScalar(3, "lower_edge_hertz");
  if (!lower.ok()) return lower.status();
  auto upper = n.ConstScalar(4, "upper_edge_hertz");
  if (!upper.ok()) return upper.status();
  if (*mel_bins < 1 || *mel_bins > 4096 || *dft_length < 1 || *dft_length > (1 << 20) || *rate < 1)
    return n.Error("num_mel_bins, dft_length and sample_rate must be positive (and at most 4096, 2^20)");
  if (!(*lower >= 0 && *upper > *lower && std::isfinite(*upper))) return n.Error("the hertz edges must satisfy 0 <= lower < upper");
  auto dtype = n.DTypeFromOnnxCode(n.attrs().GetInt("output_datatype", 1));
  if (!dtype.ok()) return n.Error(std::string(dtype.status().message()));
  const int64_t bins = *dft_length / 2 + 1, mels = *mel_bins;
  auto mel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
  const double low = mel(*lower), high = mel(*upper), step = (high - low) / static_cast<double>(mels + 2);
  std::vector<int64_t> edge(mels + 2);
  for (int64_t i = 0; i < mels + 2; ++i) {
    const double hz = 700 * (std::pow(10.0, (static_cast<double>(i) * step + low) / 2595) - 1);
    const double bin = std::floor(static_cast<double>(*dft_length + 1) * hz / static_cast<double>(*rate));
    // The last edge is an end (no filter reads it), so it may equal the bin count.
    const double limit = static_cast<double>(i == mels + 1 ? bins : bins - 1);
    if (!(bin >= 0 && bin <= limit)) return n.Error(StrCat("mel bin edge ", bin, " is outside the ", bins, " spectrogram bins"));
    edge[i] = static_cast<int64_t>(bin);
  }
  auto out = HostTensor::Zeros(*dtype, {bins, mels});
  if (!out.ok()) return n.Error(std::string(out.status().message()));
  for (int64_t i = 0; i < mels; ++i) {
    const int64_t left = edge[i], center = edge[i + 1], right = edge[i + 2];
    if (center == left) {
      out->SetDouble(center * mels + i, 1.0);
    } else {
      for (int64_t j = left; j <= center; ++j)
        out->SetDouble(j * mels + i, static_cast<double>(j - left) / static_cast<double>(center - left));
    }
    for (int64_t j = center; j < right; ++j)
      out->SetDouble(j * mels + i, static_cast<double>(right - j) / static_cast<double>(right - center));
  }
  n.BindConstant(n.output(0), std::move(*out));
  return absl::OkStatus();
}

}  // namespace

void RegisterSignalFamily(OpRegistry* r) {
  r->RegisterOnnx({"DFT", 17, 19, ConvertDft});
  r->RegisterOnnx({"STFT", 17, -1, ConvertStft});
  r->RegisterOnnx({"MelWeightMatrix", 17, -1, ConvertMelWeightMatrix});
}

}  // namespace tunefarm::graph
