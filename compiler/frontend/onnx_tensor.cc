#include "compiler/frontend/onnx_tensor.h"

#include <cstring>
#include <optional>
#include <utility>

#include "common/strings.h"

namespace tunefarm::frontend {

using te::DType;

namespace {

// ONNX TensorProto data types and the dtypes they are, both ways.
constexpr std::pair<onnx::TensorProto::DataType, DType> kOnnxTypes[] = {
    {onnx::TensorProto::FLOAT, DType::kFloat32},   {onnx::TensorProto::DOUBLE, DType::kFloat64},
    {onnx::TensorProto::INT8, DType::kInt8},       {onnx::TensorProto::INT16, DType::kInt16},
    {onnx::TensorProto::INT32, DType::kInt32},     {onnx::TensorProto::INT64, DType::kInt64},
    {onnx::TensorProto::UINT8, DType::kUInt8},     {onnx::TensorProto::UINT16, DType::kUInt16},
    {onnx::TensorProto::UINT32, DType::kUInt32},   {onnx::TensorProto::UINT64, DType::kUInt64},
    {onnx::TensorProto::FLOAT16, DType::kFloat16}, {onnx::TensorProto::BFLOAT16, DType::kBFloat16},
    {onnx::TensorProto::BOOL, DType::kBool},
};

}  // namespace

absl::StatusOr<DType> DTypeFromOnnx(int32_t data_type) {
  for (const auto& [code, dtype] : kOnnxTypes)
    if (code == data_type) return dtype;
  std::string name = onnx::TensorProto::DataType_IsValid(data_type)
                         ? onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(data_type))
                         : StrCat("#", data_type);
  return absl::UnimplementedError(StrCat("unsupported tensor element type ", name));
}

std::optional<onnx::TensorProto::DataType> OnnxFromDType(DType dtype) {
  for (const auto& [code, t] : kOnnxTypes)
    if (t == dtype) return code;
  return std::nullopt;
}

absl::StatusOr<graph::HostTensor> HostTensorFromOnnx(const onnx::TensorProto& proto) {
  std::string label = StrCat("tensor '", proto.name(), "': ");
  auto err = [&](const std::string& why) { return absl::InvalidArgumentError(label + why); };
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    return absl::UnimplementedError(label + "external data is not supported");
  auto dtype = DTypeFromOnnx(proto.data_type());
  if (!dtype.ok()) return absl::UnimplementedError(label + std::string(dtype.status().message()));
  std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
  int bytes_per = te::DTypeBytes(*dtype);
  auto count = graph::CheckedNumElements(shape, bytes_per);
  if (!count.ok()) return err(std::string(count.status().message()));
  graph::HostTensor t;
  t.dtype = *dtype;
  t.shape = shape;
  if (proto.has_raw_data()) {
    if (static_cast<int64_t>(proto.raw_data().size()) != *count * bytes_per)
      return err(StrCat("raw_data has ", proto.raw_data().size(), " bytes, shape ", graph::ShapeToString(shape),
                        " needs ", *count * bytes_per));
    t.bytes.assign(proto.raw_data().begin(), proto.raw_data().end());
    return t;
  }
  // The typed field each dtype uses (onnx.proto): float16/bfloat16 keep their bit patterns in
  // int32_data, uint32/uint64 use uint64_data, the other integers int32_data.
  int64_t have = 0;
  switch (*dtype) {
    case DType::kFloat32: have = proto.float_data_size(); break;
    case DType::kFloat64: have = proto.double_data_size(); break;
    case DType::kInt64: have = proto.int64_data_size(); break;
    case DType::kUInt32:
    case DType::kUInt64: have = proto.uint64_data_size(); break;
    default: have = proto.int32_data_size(); break;
  }
  if (have != *count)
    return err(StrCat("has ", have, " values, shape ", graph::ShapeToString(shape), " needs ", *count));
  t.bytes.assign(static_cast<size_t>(*count * bytes_per), 0);
  for (int64_t i = 0; i < *count; ++i) {
    switch (*dtype) {
      case DType::kFloat32: t.SetDouble(i, proto.float_data(i)); break;
      case DType::kFloat64: t.SetDouble(i, proto.double_data(i)); break;
      case DType::kInt64: t.SetInt(i, proto.int64_data(i)); break;
      case DType::kUInt32:
      case DType::kUInt64: t.SetInt(i, static_cast<int64_t>(proto.uint64_data(i))); break;
      case DType::kFloat16:
      case DType::kBFloat16: {
        uint16_t bits = static_cast<uint16_t>(proto.int32_data(i));
        std::memcpy(t.bytes.data() + i * 2, &bits, 2);
        break;
      }
      default: t.SetInt(i, proto.int32_data(i)); break;
    }
  }
  return t;
}

}  // namespace tunefarm::frontend
