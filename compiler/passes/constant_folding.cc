#include "compiler/passes/constant_folding.h"

#include <algorithm>

#include "common/log.h"
#include "common/strings.h"
#include "compiler/graph/const_eval.h"
#include "compiler/passes/graph_rewriter.h"

namespace tunefarm::passes {

absl::StatusOr<graph::Graph> FoldConstants(const graph::Graph& g) {
  GraphRewriter rw(g);
  int folded = 0;
  std::vector<std::string> kept;
  for (int id = 0; id < static_cast<int>(g.nodes().size()); ++id) {
    const graph::Node& n = g.node(id);
    std::vector<const graph::HostTensor*> args;
    int64_t in_elements = 0;
    bool all_params = !n.IsInput() && !n.IsParam() && !n.inputs.empty();
    for (graph::NodeEntry e : n.inputs) {
      if (!all_params) break;
      const graph::HostTensor* t = rw.ParamData(rw.Lookup(e));
      all_params = t != nullptr;
      if (t != nullptr) {
        args.push_back(t);
        in_elements += t->NumElements();
      }
    }
    if (all_params) {
      int64_t limit = std::min(kMaxFoldedElements, std::max(kAlwaysFoldElements, in_elements));
      auto result = graph::EvaluateConstant(n, args, limit);
      // An evaluation error (an interpreter failure: a compiler bug) keeps the node, with a warning.
      if (!result.ok())
        TF_LOG(WARN, "passes") << "const-fold: cannot evaluate " << n.op << " '" << n.name
                               << "': " << std::string(result.status().message());
      if (result.ok() && result->has_value() && (*result)->size() == n.outputs.size()) {
        for (size_t i = 0; i < n.outputs.size(); ++i) {
          auto p = rw.AddParam(n.name, std::move((**result)[i]));
          if (!p.ok()) return p.status();
          rw.Map({id, static_cast<int>(i)}, *p);
        }
        ++folded;
        TF_LOG(DEBUG, "passes") << "const-fold: folded " << n.op << " '" << n.name << "' into a param";
        continue;
      }
      kept.push_back(StrCat(n.op, " '", n.name, "'"));
    }
    if (absl::Status s = rw.Copy(id); !s.ok()) return s;
  }
  for (const std::string& k : kept)
    TF_LOG(DEBUG, "passes") << "const-fold: kept " << k << " on constant inputs (unknown op or too large)";
  TF_LOG(INFO, "passes") << "const-fold: folded " << folded << " nodes, kept " << kept.size()
                         << " with constant inputs";
  return rw.Finish();
}

}  // namespace tunefarm::passes
