#include "compiler/ops/einsum.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "common/strings.h"

namespace tunefarm::ops {
namespace {

constexpr std::string_view kOp = "einsum";
constexpr int kMaxEllipsisAxes = 9;  // labels '0'..'8'

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts(1);
  for (char c : s) {
    if (c == sep) parts.emplace_back();
    else parts.back() += c;
  }
  return parts;
}

// One term's labels, with "..." expanded to `ellipsis` broadcast labels (right-aligned: the
// term's first ellipsis axis is label '0' + total - ellipsis).
absl::StatusOr<std::string> ExpandTerm(const std::string& term, int ellipsis, int total) {
  std::string labels;
  bool seen_ellipsis = false;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term.compare(i, 3, "...") == 0) {
      if (seen_ellipsis) return OpError(kOp, StrCat("term '", term, "' has two ellipses"));
      seen_ellipsis = true;
      for (int k = 0; k < ellipsis; ++k) labels += static_cast<char>('0' + total - ellipsis + k);
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(term[i]))) {
      labels += term[i];
    } else {
      return OpError(kOp, StrCat("term '", term, "' has the character '", std::string(1, term[i]), "'"));
    }
  }
  return labels;
}

int LettersIn(const std::string& term) {
  return static_cast<int>(std::count_if(term.begin(), term.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }));
}

}  // namespace

absl::StatusOr<EinsumPlan> PlanEinsum(const std::string& equation, const std::vector<Shape>& shapes) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq += c;
  const size_t arrow = eq.find("->");
  const std::vector<std::string> terms = Split(eq.substr(0, arrow), ',');
  if (terms.size() != shapes.size())
    return OpError(kOp, StrCat("equation '", equation, "' has ", terms.size(), " inputs, the node ", shapes.size()));

  // Ellipsis axes of each input, and of the broadcast of them all.
  std::vector<int> ellipsis(terms.size(), 0);
  int total = 0;
  for (size_t t = 0; t < terms.size(); ++t) {
    const int rank = static_cast<int>(shapes[t].size()), letters = LettersIn(terms[t]);
    const bool has = terms[t].find("...") != std::string::npos;
    if (has ? rank < letters : rank != letters)
      return OpError(kOp, StrCat("term '", terms[t], "' does not fit input ", t, " of rank ", rank));
    ellipsis[t] = has ? rank - letters : 0;
    total = std::max(total, ellipsis[t]);
  }
  if (total > kMaxEllipsisAxes) return OpError(kOp, StrCat(total, " broadcast axes are too many"));

  EinsumPlan plan;
  plan.extent_of.assign(128, -1);  // -1: not seen yet
  std::map<char, int> uses;
  for (size_t t = 0; t < terms.size(); ++t) {
    auto labels = ExpandTerm(terms[t], ellipsis[t], total);
    if (!labels.ok()) return labels.status();
    for (size_t a = 0; a < labels->size(); ++a) {
      const char l = (*labels)[a];
      const int64_t extent = shapes[t][a];
      int64_t& known = plan.extent_of[static_cast<unsigned char>(l)];
      const bool broadcast = std::isdigit(static_cast<unsigned char>(l));
      if (known < 0 || (broadcast && known == 1)) known = extent;
      else if (extent != known && !(broadcast && extent == 1))
        return OpError(kOp, StrCat("label '", std::string(1, l), "' has extents ", known, " and ", extent));
      ++uses[l];
    }
    plan.input_labels.push_back(*labels);
  }
  if (arrow == std::string::npos) {
    for (int k = 0; k < total; ++k) plan.output_labels += static_cast<char>('0' + k);
    for (const auto& [l, count] : uses)
      if (std::isalpha(static_cast<unsigned char>(l)) && count == 1) plan.output_labels += l;
  } else {
    auto labels = ExpandTerm(eq.substr(arrow + 2), total, total);
    if (!labels.ok()) return labels.status();
    if (eq.find("...", arrow) == std::string::npos && total > 0)
      return OpError(kOp, "the inputs have broadcast axes ('...') that the output drops");
    plan.output_labels = *labels;
  }
  for (char l : plan.output_labels) {
    if (!uses.count(l)) return OpError(kOp, StrCat("output label '", std::string(1, l), "' is in no input"));
    if (std::count(plan.output_labels.begin(), plan.output_labels.end(), l) > 1)
      return OpError(kOp, StrCat("output label '", std::string(1, l), "' is repeated"));
    plan.output_shape.push_back(plan.extent_of[static_cast<unsigned char>(l)]);
  }
  for (const auto& [l, count] : uses)
    if (plan.output_labels.find(l) == std::string::npos) plan.reduce_labels += l;
  return plan;
}

absl::StatusOr<Tensor> Einsum(DagBuilder& b, const std::vector<Tensor>& inputs, const std::string& equation,
                              std::string name) {
  if (inputs.empty()) return OpError(kOp, "no inputs");
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) {
    if (auto s = CheckShape(kOp, "input", t.shape); !s.ok()) return s;
    if (auto s = CheckDType(kOp, "input", t.dtype, DTypeSet::kNumeric); !s.ok()) return s;
    if (t.dtype != inputs[0].dtype) return OpError(kOp, "inputs differ in dtype");
    shapes.push_back(t.shape);
  }
  auto plan = PlanEinsum(equation, shapes);
  if (!plan.ok()) return plan.status();
  Shape reduce_extents;
  for (char l : plan->reduce_labels) reduce_extents.push_back(plan->extent_of[static_cast<unsigned char>(l)]);
  if (auto s = CheckShape(kOp, "summed axes", reduce_extents); !s.ok()) return s;

  auto body = [&](const Axes& out, const Axes& reduce) {
    std::map<char, Expr> at;
    for (size_t k = 0; k < out.size(); ++k) at[plan->output_labels[k]] = out[k];
    for (size_t k = 0; k < reduce.size(); ++k) at[plan->reduce_labels[k]] = reduce[k];
    Expr product;
    for (size_t t = 0; t < inputs.size(); ++t) {
      std::vector<Expr> index;
      for (size_t a = 0; a < plan->input_labels[t].size(); ++a)
        index.push_back(inputs[t].shape[a] == 1 ? Expr(int64_t{0}) : at.at(plan->input_labels[t][a]));
      Expr read = inputs[t](index);
      product = product.defined() ? product * read : read;
    }
    return product;
  };
  if (reduce_extents.empty())
    return b.Compute(std::move(name), plan->output_shape, [&](const Axes& out) { return body(out, {}); });
  return b.Reduce(std::move(name), te::ReduceKind::kSum, plan->output_shape, reduce_extents, body);
}

}  // namespace tunefarm::ops
