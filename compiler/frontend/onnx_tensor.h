// ONNX TensorProto → graph::HostTensor.
#pragma once

#include "absl/status/statusor.h"
#include "compiler/graph/host_tensor.h"
#include "onnx/onnx_pb.h"

namespace tunefarm::frontend {

// ONNX TensorProto data_type → dtype; an error for types tunefarm does not support.
absl::StatusOr<te::DType> DTypeFromOnnx(int32_t data_type);

// Reads raw_data or the typed fields (float, double, int8/16/32/64, uint8, bool); checks the
// element count against the dims and the byte size of raw_data. Strings, float16 and external
// data are unsupported.
absl::StatusOr<graph::HostTensor> HostTensorFromOnnx(const onnx::TensorProto& proto);

}  // namespace tunefarm::frontend
