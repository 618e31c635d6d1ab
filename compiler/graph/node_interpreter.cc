#include "compiler/graph/node_interpreter.h"

#include "common/strings.h"
#include "compiler/graph/op_compute.h"
#include "compiler/schedule/default_rules.h"
#include "compiler/tir/interpreter.h"
#include "compiler/tir/lower.h"

namespace tunefarm::graph {
namespace {

absl::Status NodeError(const Node& n, absl::StatusCode code, std::string_view why) {
  return absl::Status(code, StrCat("node '", n.name, "' (op ", n.op, "): ", why));
}

// Element evaluations of every stage: its elements times its reduce extents.
int64_t InterpretedWork(const te::ComputeDag& dag) {
  int64_t work = 0;
  for (int id : dag.stages()) {
    const te::TensorDef& t = dag.tensor(id);
    int64_t points = t.NumElements();
    for (int64_t extent : t.reduce_extents)
      if (__builtin_mul_overflow(points, extent, &points)) return INT64_MAX;
    if (__builtin_add_overflow(work, points, &work)) return INT64_MAX;
  }
  return work;
}

}  // namespace

absl::StatusOr<std::vector<HostTensor>> InterpretNode(const Node& n, const std::vector<const HostTensor*>& in) {
  // Checked before the outputs are allocated: an op without inputs (Range, EyeLike) may ask for
  // any size, and zero-filling it would exhaust memory before the work limit below is reached.
  int64_t output_elements = 0;
  for (const TensorType& t : n.outputs)
    if (__builtin_add_overflow(output_elements, t.NumElements(), &output_elements)) output_elements = INT64_MAX;
  if (output_elements > kMaxInterpretedWork)
    return NodeError(n, absl::StatusCode::kResourceExhausted,
                     StrCat(output_elements, " output elements are more than the interpreter takes (", kMaxInterpretedWork, ")"));
  std::vector<HostTensor> outs;
  bool empty_output = false;
  for (const TensorType& t : n.outputs) {
    auto z = HostTensor::Zeros(t.dtype, t.shape);
    if (!z.ok()) return z.status();
    empty_output = empty_output || z->NumElements() == 0;
    outs.push_back(std::move(*z));
  }
  // A zero-sized output has no elements to compute (the op library rejects such tensors).
  if (empty_output) {
    if (n.outputs.size() == 1) return outs;
    return NodeError(n, absl::StatusCode::kUnimplemented, "zero-sized output among several");
  }
  for (const HostTensor* t : in)
    if (t->NumElements() == 0) return NodeError(n, absl::StatusCode::kUnimplemented, "zero-sized input");

  te::DagBuilder b;
  std::vector<TeTensor> placeholders;
  for (size_t i = 0; i < in.size(); ++i)
    placeholders.push_back(b.Placeholder(StrCat(n.name, ".in", i), in[i]->dtype, in[i]->shape));
  auto tensors = ComputeNode(b, n, placeholders);
  if (!tensors.ok()) {
    if (tensors.status().code() == absl::StatusCode::kInternal) return tensors.status();
    return absl::UnimplementedError(tensors.status().message());
  }
  auto dag = b.Build(*tensors);
  if (const int64_t work = InterpretedWork(*dag); work > kMaxInterpretedWork)
    return NodeError(n, absl::StatusCode::kResourceExhausted,
                     StrCat(work, " element evaluations are more than the interpreter takes (", kMaxInterpretedWork, ")"));
  auto state = schedule::ApplyDefaultSchedule(dag, schedule::RuleContext{8, 1});
  if (!state.ok()) return NodeError(n, absl::StatusCode::kInternal, StrCat("schedule: ", std::string(state.status().message())));
  auto f = tir::Lower(*state, "node");
  if (!f.ok()) return NodeError(n, absl::StatusCode::kInternal, StrCat("lower: ", std::string(f.status().message())));
  if (f->num_args != static_cast<int>(in.size() + outs.size()))
    return NodeError(n, absl::StatusCode::kInternal, StrCat("kernel has ", f->num_args, " arguments"));
  std::vector<void*> args;
  for (const HostTensor* t : in) args.push_back(const_cast<uint8_t*>(t->bytes.data()));
  for (HostTensor& t : outs) args.push_back(t.bytes.data());
  if (absl::Status s = tir::Interpret(*f, args); !s.ok())
    return NodeError(n, absl::StatusCode::kInvalidArgument, std::string(s.message()));
  return outs;
}

}  // namespace tunefarm::graph
