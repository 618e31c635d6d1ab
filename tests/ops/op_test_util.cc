#include "tests/ops/op_test_util.h"

#include <cmath>
#include <cstring>
#include <random>

#include "common/strings.h"
#include "compiler/schedule/state.h"
#include "compiler/tir/interpreter.h"
#include "compiler/te/float_bits.h"
#include "compiler/tir/lower.h"
#include "tests/codegen/kernel_runner.h"

namespace tunefarm::ops::testing {
namespace {

std::vector<uint8_t> ToBytes(const HostTensor& t) {
  const int w = te::DTypeBytes(t.dtype);
  std::vector<uint8_t> bytes(t.data.size() * w);
  for (size_t k = 0; k < t.data.size(); ++k) {
    uint8_t* p = bytes.data() + k * w;
    double v = t.data[k];
    switch (t.dtype) {
      case DType::kFloat32: { float f = static_cast<float>(v); std::memcpy(p, &f, 4); break; }
      case DType::kFloat64: std::memcpy(p, &v, 8); break;
      case DType::kBool: *p = v != 0; break;
      case DType::kInt8: { int8_t i = static_cast<int8_t>(v); std::memcpy(p, &i, 1); break; }
      case DType::kUInt8: *p = static_cast<uint8_t>(v); break;
      case DType::kInt16: { int16_t i = static_cast<int16_t>(v); std::memcpy(p, &i, 2); break; }
      case DType::kInt32: { int32_t i = static_cast<int32_t>(v); std::memcpy(p, &i, 4); break; }
      case DType::kInt64: { int64_t i = static_cast<int64_t>(v); std::memcpy(p, &i, 8); break; }
      case DType::kUInt16: { uint16_t i = static_cast<uint16_t>(static_cast<int64_t>(v)); std::memcpy(p, &i, 2); break; }
      case DType::kUInt32: { uint32_t i = static_cast<uint32_t>(static_cast<int64_t>(v)); std::memcpy(p, &i, 4); break; }
      case DType::kUInt64: { uint64_t i = static_cast<uint64_t>(te::SaturateToIntDType(DType::kUInt64, v)); std::memcpy(p, &i, 8); break; }
      case DType::kFloat16: { uint16_t h = te::DoubleToHalfBits(v); std::memcpy(p, &h, 2); break; }
      case DType::kBFloat16: { uint16_t h = te::DoubleToBFloat16Bits(v); std::memcpy(p, &h, 2); break; }
    }
  }
  return bytes;
}

HostTensor FromBytes(DType t, const Shape& shape, const uint8_t* bytes) {
  HostTensor out(t, shape);
  const int w = te::DTypeBytes(t);
  for (int64_t k = 0; k < out.size(); ++k) {
    const uint8_t* p = bytes + k * w;
    double& v = out.data[k];
    switch (t) {
      case DType::kFloat32: { float f; std::memcpy(&f, p, 4); v = f; break; }
      case DType::kFloat64: std::memcpy(&v, p, 8); break;
      case DType::kBool: v = *p; break;  // a stored bool other than 0/1 shows up as a mismatch
      case DType::kInt8: { int8_t i; std::memcpy(&i, p, 1); v = i; break; }
      case DType::kUInt8: v = *p; break;
      case DType::kInt16: { int16_t i; std::memcpy(&i, p, 2); v = i; break; }
      case DType::kInt32: { int32_t i; std::memcpy(&i, p, 4); v = i; break; }
      case DType::kInt64: { int64_t i; std::memcpy(&i, p, 8); v = static_cast<double>(i); break; }
      case DType::kUInt16: { uint16_t i; std::memcpy(&i, p, 2); v = i; break; }
      case DType::kUInt32: { uint32_t i; std::memcpy(&i, p, 4); v = i; break; }
      case DType::kUInt64: { uint64_t i; std::memcpy(&i, p, 8); v = static_cast<double>(i); break; }
      case DType::kFloat16: { uint16_t h; std::memcpy(&h, p, 2); v = te::HalfBitsToDouble(h); break; }
      case DType::kBFloat16: { uint16_t h; std::memcpy(&h, p, 2); v = te::BFloat16BitsToDouble(h); break; }
    }
  }
  return out;
}

// Output bytes before the kernel runs: NaN for floats, a recognisable pattern otherwise, so an
// element the kernel never writes is caught.
constexpr uint8_t kPoison = 0xA5;

absl::Status CheckOneOutput(const te::ComputeDag& dag, const std::vector<HostTensor>& inputs) {
  if (dag.outputs().size() != 1) return absl::InvalidArgumentError("expected one output");
  if (dag.inputs().size() != inputs.size()) return absl::InvalidArgumentError("wrong number of inputs");
  return absl::OkStatus();
}

}  // namespace

int64_t HostTensor::Flat(const std::vector<int64_t>& index) const {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + index[d];
  return flat;
}

double StoreAs(DType t, double v) {
  switch (t) {
    case DType::kFloat32: return static_cast<float>(v);
    case DType::kFloat64: return v;
    case DType::kBool: return v != 0;
    case DType::kInt8: return static_cast<int8_t>(static_cast<int64_t>(v));
    case DType::kUInt8: return static_cast<uint8_t>(static_cast<int64_t>(v));
    case DType::kInt16: return static_cast<int16_t>(static_cast<int64_t>(v));
    case DType::kInt32: return static_cast<int32_t>(static_cast<int64_t>(v));
    case DType::kInt64: return static_cast<double>(static_cast<int64_t>(v));
    case DType::kUInt16: return static_cast<uint16_t>(static_cast<int64_t>(v));
    case DType::kUInt32: return static_cast<uint32_t>(static_cast<int64_t>(v));
    case DType::kUInt64: return v < 0 ? static_cast<double>(static_cast<uint64_t>(static_cast<int64_t>(v))) : v;
    case DType::kFloat16: return te::HalfBitsToDouble(te::DoubleToHalfBits(v));
    case DType::kBFloat16: return te::BFloat16BitsToDouble(te::DoubleToBFloat16Bits(v));
  }
  return v;
}

HostTensor Random(DType t, const Shape& shape, uint64_t seed, double lo, double hi) {
  HostTensor out(t, shape);
  std::mt19937_64 rng(seed);
  if (te::IsFloat(t) || te::IsStorageFloat(t)) {
    std::uniform_real_distribution<double> dist(lo, hi);
    for (double& v : out.data) v = StoreAs(t, dist(rng));
  } else if (t == DType::kBool) {
    for (double& v : out.data) v = static_cast<double>(rng() & 1);
  } else {
    // 64-bit values stay below 2^53 so the doubles hold them exactly.
    double tlo = te::DTypeBytes(t) == 8 ? (te::IsSigned(t) ? -1e15 : 0) : static_cast<double>(Lowest(t)->int_value);
    double thi = te::DTypeBytes(t) == 8 ? 1e15 : static_cast<double>(Highest(t)->int_value);
    std::uniform_int_distribution<int64_t> dist(static_cast<int64_t>(std::max(lo, tlo)),
                                                static_cast<int64_t>(std::min(hi, thi)));
    for (double& v : out.data) v = static_cast<double>(dist(rng));
  }
  return out;
}

void ForEachIndex(const Shape& shape, const std::function<void(const std::vector<int64_t>&)>& fn) {
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t d : shape)
    if (d == 0) return;
  while (true) {
    fn(index);
    int d = static_cast<int>(shape.size()) - 1;
    while (d >= 0 && ++index[d] == shape[d]) index[d--] = 0;
    if (d < 0) return;
  }
}

absl::StatusOr<std::shared_ptr<const te::ComputeDag>> BuildOpDag(const std::vector<HostTensor>& inputs,
                                                                 const OpFn& op) {
  DagBuilder b;
  std::vector<Tensor> placeholders;
  for (size_t k = 0; k < inputs.size(); ++k)
    placeholders.push_back(b.Placeholder(StrCat("in", k), inputs[k].dtype, inputs[k].shape));
  auto out = op(b, placeholders);
  if (!out.ok()) return out.status();
  auto dag = b.Build({*out});
  auto parsed = te::ComputeDag::Parse(dag->CanonicalText());
  if (!parsed.ok()) return absl::InternalError(StrCat("DAG text does not parse back: ", std::string(parsed.status().message())));
  if ((*parsed)->CanonicalText() != dag->CanonicalText()) return absl::InternalError("DAG text does not round-trip");
  return dag;
}

absl::StatusOr<HostTensor> Interpret(const te::ComputeDag& dag, const std::vector<HostTensor>& inputs) {
  return InterpretState(schedule::State(std::make_shared<const te::ComputeDag>(dag)), inputs);
}

absl::StatusOr<HostTensor> InterpretState(const schedule::State& state, const std::vector<HostTensor>& inputs) {
  const te::ComputeDag& dag = state.dag();
  if (auto s = CheckOneOutput(dag, inputs); !s.ok()) return s;
  auto f = tir::Lower(state, "op");
  if (!f.ok()) return f.status();
  std::vector<std::vector<uint8_t>> bytes;
  for (const HostTensor& t : inputs) bytes.push_back(ToBytes(t));
  const te::TensorDef& out = dag.tensor(dag.outputs()[0]);
  bytes.emplace_back(out.NumElements() * te::DTypeBytes(out.dtype), kPoison);
  std::vector<void*> args;
  for (auto& v : bytes) args.push_back(v.data());
  if (auto s = tir::Interpret(*f, args); !s.ok()) return s;
  return FromBytes(out.dtype, out.shape, bytes.back().data());
}

absl::StatusOr<HostTensor> RunSharedObject(const te::ComputeDag& dag, const std::vector<HostTensor>& inputs,
                                           int threads) {
  return RunStateSharedObject(schedule::State(std::make_shared<const te::ComputeDag>(dag)), inputs, threads);
}

absl::StatusOr<HostTensor> RunStateSharedObject(const schedule::State& state, const std::vector<HostTensor>& inputs,
                                                int threads, const std::string& target) {
  using codegen::testing::Array;
  const te::ComputeDag& dag = state.dag();
  if (auto s = CheckOneOutput(dag, inputs); !s.ok()) return s;
  auto f = tir::Lower(state, "op");
  if (!f.ok()) return f.status();
  auto runner = codegen::testing::KernelRunner::Create({*f}, codegen::testing::Backend::kSharedObject, target);
  if (!runner) return absl::InternalError("could not build the .so");
  std::vector<std::unique_ptr<Array<uint8_t>>> buffers;
  std::vector<void*> args;
  for (const HostTensor& t : inputs) {
    std::vector<uint8_t> b = ToBytes(t);
    buffers.push_back(std::make_unique<Array<uint8_t>>(b.size()));
    std::memcpy(buffers.back()->data(), b.data(), b.size());
    args.push_back(buffers.back()->data());
  }
  const te::TensorDef& out = dag.tensor(dag.outputs()[0]);
  size_t out_bytes = out.NumElements() * te::DTypeBytes(out.dtype);
  buffers.push_back(std::make_unique<Array<uint8_t>>(out_bytes));
  std::memset(buffers.back()->data(), kPoison, out_bytes);
  args.push_back(buffers.back()->data());
  int32_t rc = runner->Run("op", args, threads);
  if (rc != 0) return absl::InternalError(StrCat("kernel returned ", rc));
  return FromBytes(out.dtype, out.shape, buffers.back()->data());
}

HostTensor RunOp(const std::vector<HostTensor>& inputs, const OpFn& op) {
  auto dag = BuildOpDag(inputs, op);
  if (!dag.ok()) {
    ADD_FAILURE() << "building the op: " << dag.status();
    return {};
  }
  auto out = Interpret(**dag, inputs);
  if (!out.ok()) {
    ADD_FAILURE() << "running the op: " << out.status();
    return {};
  }
  return *std::move(out);
}

absl::Status BuildStatus(const std::vector<HostTensor>& inputs, const OpFn& op) {
  return BuildOpDag(inputs, op).status();
}

::testing::AssertionResult AllClose(const HostTensor& got, const HostTensor& want, double atol, double rtol) {
  if (got.dtype != want.dtype)
    return ::testing::AssertionFailure() << "dtype " << te::DTypeName(got.dtype) << ", expected "
                                         << te::DTypeName(want.dtype);
  if (got.shape != want.shape)
    return ::testing::AssertionFailure() << "shape " << ShapeString(got.shape) << ", expected "
                                         << ShapeString(want.shape);
  int64_t bad = 0, first = -1;
  double worst = 0;
  for (int64_t k = 0; k < got.size(); ++k) {
    double g = got.data[k], w = want.data[k];
    bool ok = (std::isnan(g) && std::isnan(w)) || g == w ||
              (std::isfinite(w) && std::fabs(g - w) <= atol + rtol * std::fabs(w));
    if (ok) continue;
    if (first < 0) first = k;
    ++bad;
    if (!std::isnan(g)) worst = std::max(worst, std::fabs(g - w));
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << got.size() << " elements differ (dtype "
                                       << te::DTypeName(got.dtype) << ", shape " << ShapeString(got.shape)
                                       << "); first at flat index " << first << ": got " << got.data[first]
                                       << ", expected " << want.data[first] << "; worst difference " << worst;
}

double Tolerance(DType t) {
  if (t == DType::kFloat32) return 2e-6;
  if (t == DType::kFloat64) return 1e-12;
  return 0;
}

std::vector<DType> DTypesOf(DTypeSet set) {
  std::vector<DType> out;
  for (DType t : {DType::kBool, DType::kInt8, DType::kInt16, DType::kInt32, DType::kInt64, DType::kUInt8,
                  DType::kUInt16, DType::kUInt32, DType::kUInt64, DType::kFloat32, DType::kFloat64})
    if (InDTypeSet(t, set)) out.push_back(t);
  return out;
}

}  // namespace tunefarm::ops::testing
