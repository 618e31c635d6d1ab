#include "compiler/graph/host_tensor.h"

#include <cstring>

#include "absl/status/status.h"
#include "common/strings.h"
#include "compiler/te/float_bits.h"

namespace tunefarm::graph {

using te::DType;

absl::StatusOr<int64_t> CheckedNumElements(const std::vector<int64_t>& shape, int elem_bytes) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0) return absl::InvalidArgumentError(StrCat("negative dimension in shape ", ShapeToString(shape)));
    if (d != 0 && count > (kMaxHostTensorBytes / elem_bytes) / d)
      return absl::InvalidArgumentError(
          StrCat("shape ", ShapeToString(shape), " has too many elements (limit ", kMaxHostTensorBytes, " bytes)"));
    count *= d;
  }
  return count;
}

absl::StatusOr<HostTensor> HostTensor::Zeros(DType dtype, std::vector<int64_t> shape) {
  auto count = CheckedNumElements(shape, te::DTypeBytes(dtype));
  if (!count.ok()) return count.status();
  HostTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.bytes.assign(static_cast<size_t>(*count * te::DTypeBytes(dtype)), 0);
  return t;
}

HostTensor HostTensor::FromInt64s(const std::vector<int64_t>& values, std::vector<int64_t> shape) {
  HostTensor t;
  t.dtype = DType::kInt64;
  t.shape = std::move(shape);
  t.bytes.resize(values.size() * 8);
  // memcpy from an empty vector's null data() is UB even for 0 bytes (fuzz: Shape of a scalar).
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

HostTensor HostTensor::FromFloats(const std::vector<float>& values, std::vector<int64_t> shape) {
  HostTensor t;
  t.dtype = DType::kFloat32;
  t.shape = std::move(shape);
  t.bytes.resize(values.size() * 4);
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

int64_t HostTensor::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

namespace {
template <typename T>
T Load(const std::vector<uint8_t>& bytes, int64_t i) {
  T v;
  std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}
template <typename T>
void Store(std::vector<uint8_t>* bytes, int64_t i, T v) {
  std::memcpy(bytes->data() + i * sizeof(T), &v, sizeof(T));
}
}  // namespace

int64_t HostTensor::GetInt(int64_t i) const {
  switch (dtype) {
    case DType::kBool: return Load<uint8_t>(bytes, i) != 0;
    case DType::kInt8: return Load<int8_t>(bytes, i);
    case DType::kInt16: return Load<int16_t>(bytes, i);
    case DType::kInt32: return Load<int32_t>(bytes, i);
    case DType::kInt64: return Load<int64_t>(bytes, i);
    case DType::kUInt8: return Load<uint8_t>(bytes, i);
    case DType::kUInt16: return Load<uint16_t>(bytes, i);
    case DType::kUInt32: return Load<uint32_t>(bytes, i);
    case DType::kUInt64: return Load<int64_t>(bytes, i);  // the bit pattern
    default: return te::SaturateToIntDType(DType::kInt64, GetDouble(i));
  }
}

double HostTensor::GetDouble(int64_t i) const {
  switch (dtype) {
    case DType::kFloat32: return Load<float>(bytes, i);
    case DType::kFloat64: return Load<double>(bytes, i);
    case DType::kFloat16: return te::HalfBitsToDouble(Load<uint16_t>(bytes, i));
    case DType::kBFloat16: return te::BFloat16BitsToDouble(Load<uint16_t>(bytes, i));
    default: return te::IntDTypeValue(dtype, GetInt(i));
  }
}

void HostTensor::SetInt(int64_t i, int64_t v) {
  switch (dtype) {
    case DType::kBool: Store<uint8_t>(&bytes, i, v != 0); break;
    case DType::kInt8:
    case DType::kUInt8: Store<uint8_t>(&bytes, i, static_cast<uint8_t>(v)); break;
    case DType::kInt16:
    case DType::kUInt16: Store<uint16_t>(&bytes, i, static_cast<uint16_t>(v)); break;
    case DType::kInt32:
    case DType::kUInt32: Store<uint32_t>(&bytes, i, static_cast<uint32_t>(v)); break;
    case DType::kInt64:
    case DType::kUInt64: Store<int64_t>(&bytes, i, v); break;
    default: SetDouble(i, static_cast<double>(v)); break;
  }
}

void HostTensor::SetDouble(int64_t i, double v) {
  switch (dtype) {
    case DType::kFloat32: Store<float>(&bytes, i, static_cast<float>(v)); break;
    case DType::kFloat64: Store<double>(&bytes, i, v); break;
    case DType::kFloat16: Store<uint16_t>(&bytes, i, te::DoubleToHalfBits(v)); break;
    case DType::kBFloat16: Store<uint16_t>(&bytes, i, te::DoubleToBFloat16Bits(v)); break;
    case DType::kBool: Store<uint8_t>(&bytes, i, v != 0.0); break;
    default: SetInt(i, te::SaturateToIntDType(dtype, v)); break;
  }
}

std::vector<int64_t> HostTensor::ToInt64s() const {
  std::vector<int64_t> out(static_cast<size_t>(NumElements()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = GetInt(static_cast<int64_t>(i));
  return out;
}

std::string ShapeToString(const std::vector<int64_t>& shape) { return StrCat("[", StrJoin(shape, ","), "]"); }

std::string HostTensor::ToString(int max_values) const {
  std::string out = StrCat(te::DTypeName(dtype), ShapeToString(shape));
  int64_t n = NumElements();
  if (max_values <= 0 || n == 0) return out;
  out += "{";
  for (int64_t i = 0; i < n && i < max_values; ++i) {
    if (i) out += ",";
    if (te::IsFloat(dtype) || te::IsStorageFloat(dtype)) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", GetDouble(i));
      out += buf;
    } else {
      out += std::to_string(GetInt(i));
    }
  }
  if (n > max_values) out += ",...";
  return out + "}";
}

}  // namespace tunefarm::graph
