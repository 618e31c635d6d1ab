#include "compiler/frontend/onnx_tensor.h"

#include <cstring>

#include "common/strings.h"

namespace tunefarm::frontend {

using te::DType;

absl::StatusOr<DType> DTypeFromOnnx(int32_t data_type) {
  switch (data_type) {
    case onnx::TensorProto::FLOAT: return DType::kFloat32;
    case onnx::TensorProto::DOUBLE: return DType::kFloat64;
    case onnx::TensorProto::INT8: return DType::kInt8;
    case onnx::TensorProto::INT16: return DType::kInt16;
    case onnx::TensorProto::INT32: return DType::kInt32;
    case onnx::TensorProto::INT64: return DType::kInt64;
    case onnx::TensorProto::UINT8: return DType::kUInt8;
    case onnx::TensorProto::UINT16: return DType::kUInt16;
    case onnx::TensorProto::UINT32: return DType::kUInt32;
    case onnx::TensorProto::UINT64: return DType::kUInt64;
    case onnx::TensorProto::FLOAT16: return DType::kFloat16;
    case onnx::TensorProto::BFLOAT16: return DType::kBFloat16;
    case onnx::TensorProto::BOOL: return DType::kBool;
    default: break;
  }
  std::string name = onnx::TensorProto::DataType_IsValid(data_type)
                         ? onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(data_type))
                         : StrCat("#", data_type);
  return absl::UnimplementedError(StrCat("unsupported tensor element type ", name));
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
