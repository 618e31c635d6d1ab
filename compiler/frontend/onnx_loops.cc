// Loop and Scan, imported by unrolling: the body subgraph is inlined once per iteration into the
// one static graph, each copy reading the previous copy's loop-carried values. So the number of
// iterations must be known at import: Loop's trip count M and every condition it computes must
// be compile-time constants (a constant, or a graph input given with --bind), and a Scan runs as
// many iterations as its scan axis is long. Per-iteration scan outputs are stacked with
// Unsqueeze + Concat; scan inputs are cut with Slice + Squeeze.
#include <algorithm>

#include "common/status_macros.h"
#include "common/strings.h"
#include "compiler/frontend/importer.h"

namespace tunefarm::frontend {
namespace {

// Unrolling copies the body this many times at most: a bigger loop is a runtime loop, which the
// static graph cannot hold.
constexpr int64_t kMaxUnrolledIterations = 4096;
// ... and copies this many body nodes at most over the whole model, so that nested loops (whose
// copies multiply) cannot make a small file import for ever.
constexpr int64_t kMaxUnrolledNodes = int64_t{1} << 17;

const onnx::GraphProto* BodyOf(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute())
    if (a.name() == "body" && a.has_g()) return &a.g();
  return nullptr;
}

std::vector<int64_t> IntsAttr(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return {a.ints().begin(), a.ints().end()};
  return {};
}

int64_t IntAttr(const onnx::NodeProto& n, const char* name, int64_t fallback) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.i();
  return fallback;
}

}  // namespace

// The graph helpers the two loops share, on the importer's values.
class LoopBuilder {
 public:
  LoopBuilder(Importer& importer, const onnx::NodeProto& n) : im_(importer), n_(n) {}

  // A fresh int64 or bool scalar constant.
  std::string Scalar(const std::string& base, te::DType dtype, int64_t value) {
    const std::string name = im_.FreshValueName(base);
    HostTensor t = *HostTensor::Zeros(dtype, {});  // one element: cannot fail
    t.SetInt(0, value);
    im_.BindConst(name, std::move(t));
    return name;
  }

  // x[..., index, ...] along `axis`, that axis removed.
  absl::StatusOr<std::string> Take(const std::string& x, int64_t axis, int64_t index) {
    Attrs slice;
    slice.Set("starts", std::vector<int64_t>{index});
    slice.Set("ends", std::vector<int64_t>{index + 1});
    slice.Set("axes", std::vector<int64_t>{axis});
    const std::string cut = im_.FreshValueName(StrCat(x, "/at", index));
    TF_RETURN_IF_ERROR(im_.Emit(n_, cut, "Slice", {x}, std::move(slice), {cut}));
    Attrs squeeze;
    squeeze.Set("axes", std::vector<int64_t>{axis});
    const std::string out = im_.FreshValueName(StrCat(cut, "/squeezed"));
    TF_RETURN_IF_ERROR(im_.Emit(n_, out, "Squeeze", {cut}, std::move(squeeze), {out}));
    return out;
  }

  // The values stacked along a new axis `axis` (negative counts from the end of the result).
  absl::Status Stack(const std::vector<std::string>& parts, int64_t axis, const std::string& out) {
    const int64_t rank = static_cast<int64_t>(im_.values_.at(parts.at(0)).type.shape.size()) + 1;
    if (axis < -rank || axis >= rank)
      return NodeError(n_, StrCat("output axis ", axis, " is out of range for rank ", rank));
    if (axis < 0) axis += rank;
    std::vector<std::string> expanded;
    for (const std::string& part : parts) {
      Attrs unsqueeze;
      unsqueeze.Set("axes", std::vector<int64_t>{axis});
      const std::string name = im_.FreshValueName(StrCat(out, "/part", expanded.size()));
      TF_RETURN_IF_ERROR(im_.Emit(n_, name, "Unsqueeze", {part}, std::move(unsqueeze), {name}));
      expanded.push_back(name);
    }
    Attrs concat;
    concat.Set("axis", axis);
    return im_.Emit(n_, im_.FreshValueName(StrCat(out, "/stack")), "Concat", expanded, std::move(concat), {out});
  }

  // Output `i` of the node reads value `from` (nothing to do for an omitted output).
  void Alias(int i, const std::string& from) {
    if (i < n_.output_size() && !n_.output(i).empty()) im_.values_[n_.output(i)] = im_.values_.at(from);
  }

  // Counts one more copy of `body` against the model's unrolling budget.
  absl::Status Charge(const onnx::GraphProto& body) {
    im_.unrolled_nodes_ += body.node_size();
    if (im_.unrolled_nodes_ > kMaxUnrolledNodes)
      return NodeError(n_, StrCat("unrolling the model's loops copies more than ", kMaxUnrolledNodes,
                                  " nodes: tunefarm unrolls Loop and Scan at import and takes loops up to that size"));
    return absl::OkStatus();
  }

  // A stem for the names of the values the node adds.
  std::string Base() const { return n_.output_size() > 0 && !n_.output(0).empty() ? n_.output(0) : n_.name(); }

 private:
  Importer& im_;
  const onnx::NodeProto& n_;
};

absl::Status Importer::ConvertLoop(const onnx::NodeProto& n) {
  const onnx::GraphProto* body = BodyOf(n);
  if (body == nullptr) return NodeError(n, "needs a body graph");
  if (n.input_size() < 2) return NodeError(n, "needs inputs M and cond (either may be empty)");
  const int carried_count = n.input_size() - 2;
  if (body->input_size() != carried_count + 2)
    return NodeError(n, StrCat("the body takes ", body->input_size(), " inputs; with ", carried_count,
                               " loop-carried values it must take ", carried_count + 2));
  const int scan_count = body->output_size() - 1 - carried_count;
  if (scan_count < 0)
    return NodeError(n, StrCat("the body has ", body->output_size(), " outputs, fewer than cond and the ",
                               carried_count, " loop-carried values"));
  for (int i = 2; i < n.input_size(); ++i)
    if (n.input(i).empty()) return NodeError(n, StrCat("loop-carried input ", i, " is empty"));
  const bool has_m = !n.input(0).empty(), has_cond = !n.input(1).empty();
  if (!has_m && !has_cond) return NodeError(n, "has neither a trip count M nor a condition: it never ends");
  int64_t trips = kMaxUnrolledIterations + 1;
  if (has_m) {
    auto m = ConstInts(n, 0, "the trip count M");
    if (!m.ok()) return m.status();
    if (m->size() != 1) return NodeError(n, StrCat("the trip count M must be one integer, got ", m->size()));
    trips = std::max<int64_t>(0, (*m)[0]);
  }
  auto const_cond = [&](const std::string& name, const std::string& what) -> absl::StatusOr<bool> {
    const Value& v = values_.at(name);
    if (v.constant == nullptr)
      return NodeError(n, StrCat(what, " ('", name, "') is computed at run time: tunefarm unrolls Loop at import, ",
                                 "so its condition must be known at compile time", SuggestBind(name)));
    if (v.constant->NumElements() != 1)
      return NodeError(n, StrCat(what, " must be one value, got ", v.constant->ToString()));
    return v.constant->GetInt(0) != 0;
  };
  // Without a cond input the loop is a for loop: the body's condition output is ignored.
  bool go = true;
  if (has_cond) {
    auto c = const_cond(n.input(1), "the condition");
    if (!c.ok()) return c.status();
    go = *c;
  }
  LoopBuilder lb(*this, n);
  std::vector<std::string> carried(n.input().begin() + 2, n.input().end());
  std::vector<std::vector<std::string>> scans(scan_count);
  std::string cond = has_cond ? n.input(1) : lb.Scalar(StrCat(lb.Base(), "/cond"), te::DType::kBool, 1);
  int64_t i = 0;
  for (; go && i < trips; ++i) {
    if (i == kMaxUnrolledIterations)
      return NodeError(n, StrCat("runs more than ", kMaxUnrolledIterations,
                                 " iterations: tunefarm unrolls Loop at import and takes loops up to that size"));
    std::vector<std::string> inputs = {lb.Scalar(StrCat(lb.Base(), "/iter", i), te::DType::kInt64, i), cond};
    inputs.insert(inputs.end(), carried.begin(), carried.end());
    TF_RETURN_IF_ERROR(lb.Charge(*body));
    auto outs = InlineSubgraph(n, *body, StrCat("iter", i), inputs);
    if (!outs.ok()) return outs.status();
    cond = (*outs)[0];
    if (has_cond) {
      auto c = const_cond(cond, StrCat("the body's condition output in iteration ", i));
      if (!c.ok()) return c.status();
      go = *c;
    }
    carried.assign(outs->begin() + 1, outs->begin() + 1 + carried_count);
    for (int k = 0; k < scan_count; ++k) scans[k].push_back((*outs)[1 + carried_count + k]);
  }
  for (int j = 0; j < carried_count; ++j) lb.Alias(j, carried[j]);
  for (int k = 0; k < scan_count; ++k) {
    const int out = carried_count + k;
    if (out >= n.output_size() || n.output(out).empty()) continue;
    if (scans[k].empty())
      return NodeError(n, StrCat("runs no iteration, so its scan output '", n.output(out),
                                 "' would be empty with a shape the body never computed; not supported"));
    TF_RETURN_IF_ERROR(lb.Stack(scans[k], 0, n.output(out)));
  }
  return absl::OkStatus();
}

absl::Status Importer::ConvertScan(const onnx::NodeProto& n) {
  const onnx::GraphProto* body = BodyOf(n);
  if (body == nullptr) return NodeError(n, "needs a body graph");
  const int64_t scan_inputs = IntAttr(n, "num_scan_inputs", -1);
  // Opset 8 has a batch axis 0 before the scan axis and an optional sequence_lens first input.
  const bool batched = opset_ < 9;
  const int first = batched ? 1 : 0;
  const int states = n.input_size() - first - static_cast<int>(scan_inputs);
  if (scan_inputs < 1 || states < 0)
    return NodeError(n, StrCat("num_scan_inputs ", scan_inputs, " does not fit its ", n.input_size(), " inputs"));
  if (batched && !n.input(0).empty())
    return NodeError(n, "sequence_lens is not supported: every batch entry scans its whole sequence");
  if (body->input_size() != states + scan_inputs)
    return NodeError(n, StrCat("the body takes ", body->input_size(), " inputs, not ", states, " states + ",
                               scan_inputs, " scan inputs"));
  const int scan_outputs = body->output_size() - states;
  if (scan_outputs < 0) return NodeError(n, StrCat("the body has fewer outputs than the ", states, " states"));
  auto per_input = [&](const char* name, int64_t count) -> absl::StatusOr<std::vector<int64_t>> {
    std::vector<int64_t> v = IntsAttr(n, name);
    if (v.empty()) v.assign(count, 0);
    if (static_cast<int64_t>(v.size()) != count)
      return NodeError(n, StrCat(name, " has ", v.size(), " entries, not ", count));
    return v;
  };
  auto in_axes = per_input("scan_input_axes", scan_inputs);
  auto in_dirs = per_input(batched ? "directions" : "scan_input_directions", scan_inputs);
  auto out_axes = per_input("scan_output_axes", scan_outputs);
  auto out_dirs = per_input("scan_output_directions", scan_outputs);
  for (const auto* v : {&in_axes, &in_dirs, &out_axes, &out_dirs})
    if (!v->ok()) return v->status();
  if (batched && !IntsAttr(n, "scan_input_axes").empty())
    return NodeError(n, "scan_input_axes is an opset 9 attribute");

  for (int i = first; i < n.input_size(); ++i) {
    if (n.input(i).empty()) return NodeError(n, StrCat("input ", i, " is empty"));
    // Opset 8: states carry the batch axis, scan inputs the batch and the scan axis.
    const size_t rank = values_.at(n.input(i)).type.shape.size(), least = i < first + states ? 1 : 2;
    if (batched && rank < least)
      return NodeError(n, StrCat("input ", i, " has rank ", rank, "; with opset 8's batch axis it needs ", least));
  }
  LoopBuilder lb(*this, n);
  std::vector<std::string> state_in(n.input().begin() + first, n.input().begin() + first + states);
  std::vector<std::string> scan_in(n.input().begin() + first + states, n.input().end());
  // With a batch axis each batch entry scans on its own slices; without one, once, whole.
  const int64_t batch = batched ? values_.at(scan_in.at(0)).type.shape.at(0) : 1;
  std::vector<std::vector<std::string>> final_states(states), stacked(scan_outputs);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<std::string> st = state_in, xs = scan_in;
    if (batched) {
      for (auto* list : {&st, &xs})
        for (std::string& v : *list) {
          auto taken = lb.Take(v, 0, b);
          if (!taken.ok()) return taken.status();
          v = *taken;
        }
    }
    // The scan axes, normalized, and the iteration count they agree on.
    int64_t steps = -1;
    std::vector<int64_t> axes(scan_inputs);
    for (int j = 0; j < scan_inputs; ++j) {
      const auto& shape = values_.at(xs[j]).type.shape;
      const int64_t rank = static_cast<int64_t>(shape.size());
      int64_t axis = (*in_axes)[j];
      if (axis < -rank || axis >= rank)
        return NodeError(n, StrCat("scan input ", j, ": axis ", axis, " is out of range for rank ", rank));
      axes[j] = axis < 0 ? axis + rank : axis;
      if (steps >= 0 && shape[axes[j]] != steps)
        return NodeError(n, StrCat("the scan inputs have ", steps, " and ", shape[axes[j]], " steps"));
      steps = shape[axes[j]];
    }
    if (steps > kMaxUnrolledIterations)
      return NodeError(n, StrCat("scans ", steps, " steps: tunefarm unrolls Scan at import and takes up to ",
                                 kMaxUnrolledIterations));
    if (steps == 0 && scan_outputs > 0)
      return NodeError(n, "scans 0 steps, so its scan outputs would have shapes the body never computed");
    std::vector<std::vector<std::string>> per_step(scan_outputs);
    for (int64_t t = 0; t < steps; ++t) {
      std::vector<std::string> inputs = st;
      for (int j = 0; j < scan_inputs; ++j) {
        auto slice = lb.Take(xs[j], axes[j], (*in_dirs)[j] != 0 ? steps - 1 - t : t);
        if (!slice.ok()) return slice.status();
        inputs.push_back(*slice);
      }
      TF_RETURN_IF_ERROR(lb.Charge(*body));
      auto outs = InlineSubgraph(n, *body, batched ? StrCat("b", b, "/step", t) : StrCat("step", t), inputs);
      if (!outs.ok()) return outs.status();
      st.assign(outs->begin(), outs->begin() + states);
      for (int k = 0; k < scan_outputs; ++k) per_step[k].push_back((*outs)[states + k]);
    }
    for (int j = 0; j < states; ++j) final_states[j].push_back(st[j]);
    for (int k = 0; k < scan_outputs; ++k) {
      if ((*out_dirs)[k] != 0) std::reverse(per_step[k].begin(), per_step[k].end());
      if (!batched) {
        stacked[k] = per_step[k];
        continue;
      }
      const std::string one = FreshValueName(StrCat(lb.Base(), "/scan", k, "/b", b));
      TF_RETURN_IF_ERROR(lb.Stack(per_step[k], (*out_axes)[k], one));
      stacked[k].push_back(one);
    }
  }
  for (int j = 0; j < states; ++j) {
    if (j >= n.output_size() || n.output(j).empty()) continue;
    if (batched)
      TF_RETURN_IF_ERROR(lb.Stack(final_states[j], 0, n.output(j)));
    else
      lb.Alias(j, final_states[j][0]);
  }
  for (int k = 0; k < scan_outputs; ++k) {
    const int out = states + k;
    if (out >= n.output_size() || n.output(out).empty()) continue;
    // Batched: the per-entry stacks gain the batch axis in front; else the steps are stacked.
    TF_RETURN_IF_ERROR(lb.Stack(stacked[k], batched ? 0 : (*out_axes)[k], n.output(out)));
  }
  return absl::OkStatus();
}

}  // namespace tunefarm::frontend
