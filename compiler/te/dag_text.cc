#include "compiler/te/dag_text.h"

#include "absl/status/status.h"
#include "common/strings.h"
#include "compiler/te/expr_text.h"

namespace tunefarm::te {
namespace {

constexpr std::string_view kHeader = "tunefarm-dag 1";

std::string ShapeText(const std::vector<int64_t>& shape) {
  return StrCat("[", StrJoin(shape, ","), "]");
}

absl::Status LineError(int line, std::string_view what) {
  return absl::InvalidArgumentError(StrCat("DAG text line ", line, ": ", what));
}

absl::StatusOr<std::vector<int64_t>> ParseShape(std::string_view tok, int line) {
  if (tok.size() < 2 || tok.front() != '[' || tok.back() != ']') return LineError(line, "expected [dims]");
  std::vector<int64_t> shape;
  std::string_view inner = tok.substr(1, tok.size() - 2);
  if (inner.empty()) return shape;
  for (std::string_view d : StrSplit(inner, ',')) {
    int64_t v;
    if (!ParseInt64(d, &v) || v <= 0 || v > (int64_t{1} << 40))
      return LineError(line, StrCat("bad dimension '", d, "'"));
    shape.push_back(v);
  }
  return shape;
}

absl::StatusOr<int> ParseTensorRef(std::string_view tok, int limit, int line) {
  int64_t id;
  if (tok.size() < 2 || tok[0] != 't' || !ParseInt64(tok.substr(1), &id) || id < 0 || id >= limit)
    return LineError(line, StrCat("bad tensor reference '", tok, "'"));
  return static_cast<int>(id);
}

// Checks the body only refers to earlier tensors with the right rank, and to existing axes.
absl::Status CheckBody(const Expr& body, const std::vector<TensorDef>& earlier, const TensorDef& t, int line) {
  absl::Status status;
  Visit(body, [&](const Expr& e) {
    if (!status.ok()) return;
    if (e->kind == ExprKind::kLoad) {
      if (e->int_value < 0 || e->int_value >= static_cast<int64_t>(earlier.size()))
        status = LineError(line, StrCat("load of unknown tensor t", e->int_value));
      else if (e->operands.size() != earlier[e->int_value].shape.size())
        status = LineError(line, StrCat("load of t", e->int_value, " with wrong index count"));
      else if (e->dtype != earlier[e->int_value].dtype)
        status = LineError(line, StrCat("load of t", e->int_value, " with wrong dtype"));
    } else if (e->kind == ExprKind::kAxis && (e->int_value < 0 || e->int_value >= static_cast<int64_t>(t.shape.size()))) {
      status = LineError(line, "axis out of range");
    } else if (e->kind == ExprKind::kReduceAxis &&
               (e->int_value < 0 || e->int_value >= static_cast<int64_t>(t.reduce_extents.size()))) {
      status = LineError(line, "reduce axis out of range");
    } else if (e->kind == ExprKind::kVar) {
      status = LineError(line, "loop variables do not belong in a DAG");
    }
  });
  return status;
}

absl::StatusOr<TensorDef> ParseTensorLine(std::string_view text, int id, const std::vector<TensorDef>& earlier,
                                          int line) {
  size_t pos = 0;
  auto ref = ParseTensorRef(NextToken(text, &pos), id + 1, line);
  if (!ref.ok()) return ref.status();
  if (*ref != id) return LineError(line, "tensors must be numbered in order");
  TensorDef t;
  t.name = StrCat("t", id);
  std::string_view kind = NextToken(text, &pos);
  std::string_view dtype_tok = NextToken(text, &pos);
  auto dtype = ParseDType(dtype_tok);
  if (!dtype) return LineError(line, StrCat("unknown dtype '", dtype_tok, "'"));
  t.dtype = *dtype;
  auto shape = ParseShape(NextToken(text, &pos), line);
  if (!shape.ok()) return shape.status();
  t.shape = *std::move(shape);
  if (kind == "placeholder") {
    t.is_placeholder = true;
    std::string_view role = NextToken(text, &pos);
    if (role != "input" && role != "constant") return LineError(line, "placeholder role must be input or constant");
    t.is_constant = role == "constant";
  } else if (kind == "compute") {
    std::string_view reduce = NextToken(text, &pos);
    if (reduce == "sum" || reduce == "max" || reduce == "min" || reduce == "prod") {
      t.reduce = reduce == "sum"   ? ReduceKind::kSum
                 : reduce == "max" ? ReduceKind::kMax
                 : reduce == "min" ? ReduceKind::kMin
                                   : ReduceKind::kProd;
      auto extents = ParseShape(NextToken(text, &pos), line);
      if (!extents.ok()) return extents.status();
      if (extents->empty()) return LineError(line, "reduction without reduce axes");
      t.reduce_extents = *std::move(extents);
    } else if (reduce != "none") {
      return LineError(line, StrCat("unknown reduction '", reduce, "'"));
    }
    auto body = ParseExprText(text, &pos);
    if (!body.ok()) return LineError(line, std::string(body.status().message()));
    if ((*body)->dtype != t.dtype) return LineError(line, "body dtype differs from the tensor's");
    t.body = *std::move(body);
    if (auto s = CheckBody(t.body, earlier, t, line); !s.ok()) return s;
  } else {
    return LineError(line, StrCat("unknown tensor kind '", kind, "'"));
  }
  if (!NextToken(text, &pos).empty()) return LineError(line, "trailing text");
  return t;
}

}  // namespace

std::string DagToText(const ComputeDag& dag) {
  std::string out(kHeader);
  out.push_back('\n');
  for (int id = 0; id < dag.num_tensors(); ++id) {
    const TensorDef& t = dag.tensor(id);
    StrAppend(&out, "t", id, " ", t.is_placeholder ? "placeholder" : "compute", " ", DTypeName(t.dtype), " ",
                    ShapeText(t.shape));
    if (t.is_placeholder) {
      StrAppend(&out, t.is_constant ? " constant" : " input");
    } else {
      StrAppend(&out, " ", ReduceKindName(t.reduce));
      if (t.reduce != ReduceKind::kNone) StrAppend(&out, " ", ShapeText(t.reduce_extents));
      out.push_back(' ');
      AppendExprText(t.body, &out);
    }
    out.push_back('\n');
  }
  out += "outputs";
  for (int id : dag.outputs()) StrAppend(&out, " t", id);
  out.push_back('\n');
  return out;
}

absl::StatusOr<std::shared_ptr<const ComputeDag>> ParseDagText(std::string_view text) {
  std::vector<std::string_view> lines = StrSplit(text, '\n', true);
  if (lines.empty() || lines[0] != kHeader)
    return absl::InvalidArgumentError(StrCat("DAG text must start with '", kHeader, "'"));
  if (lines.size() < 2 || !StartsWith(lines.back(), "outputs"))
    return absl::InvalidArgumentError("DAG text must end with an 'outputs' line");
  std::vector<TensorDef> tensors;
  for (size_t i = 1; i + 1 < lines.size(); ++i) {
    auto t = ParseTensorLine(lines[i], static_cast<int>(tensors.size()), tensors, static_cast<int>(i + 1));
    if (!t.ok()) return t.status();
    tensors.push_back(*std::move(t));
  }
  std::vector<int> outputs;
  size_t pos = std::string_view("outputs").size();
  int line = static_cast<int>(lines.size());
  for (std::string_view tok = NextToken(lines.back(), &pos); !tok.empty(); tok = NextToken(lines.back(), &pos)) {
    auto id = ParseTensorRef(tok, static_cast<int>(tensors.size()), line);
    if (!id.ok()) return id.status();
    if (tensors[*id].is_placeholder) return LineError(line, "a placeholder cannot be an output");
    outputs.push_back(*id);
  }
  if (outputs.empty()) return LineError(line, "no outputs");
  return std::make_shared<const ComputeDag>(std::move(tensors), std::move(outputs));
}

}  // namespace tunefarm::te
