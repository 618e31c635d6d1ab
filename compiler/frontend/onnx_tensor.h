// ONNX TensorProto → graph::HostTensor.
#pragma once

#include <optional>

#include "absl/status/statusor.h"
#include "compiler/graph/host_tensor.h"
#include "onnx/onnx_pb.h"

namespace tunefarm::frontend {

// ONNX TensorProto data_type → dtype; an error for types tunefarm does not support.
absl::StatusOr<te::DType> DTypeFromOnnx(int32_t data_type);
// The inverse; nullopt for a dtype ONNX has no code for.
std::optional<onnx::TensorProto::DataType> OnnxFromDType(te::DType dtype);

// Reads raw_data or the typed fields (float_data, double_data, int64_data, uint64_data for
// uint32/uint64, int32_data for the other integers, bool and the bit patterns of
// float16/bfloat16); checks the element count against the dims and the byte size of raw_data.
// Strings and external data are unsupported.
absl::StatusOr<graph::HostTensor> HostTensorFromOnnx(const onnx::TensorProto& proto);

}  // namespace tunefarm::frontend
