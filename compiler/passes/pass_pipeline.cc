#include "compiler/passes/pass_pipeline.h"

#include "common/log.h"
#include "compiler/passes/batch_norm_folding.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/passes/cse.h"
#include "compiler/passes/dce.h"
#include "compiler/passes/dense_weights.h"
#include "compiler/passes/graph_rewriter.h"
#include "compiler/passes/layout.h"
#include "compiler/passes/square_by_multiplication.h"

namespace tunefarm::passes {
namespace {

using Pass = absl::StatusOr<graph::Graph> (*)(const graph::Graph&);

absl::Status Run(const char* name, Pass pass, graph::Graph* g) {
  size_t before = g->nodes().size();
  auto next = pass(*g);
  if (!next.ok()) return next.status();
  *g = std::move(*next);
  TF_LOG(DEBUG, "passes") << name << ": " << before << " -> " << g->nodes().size() << " nodes; "
                          << OpCountsString(*g);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<graph::Graph> OptimizeGraph(const graph::Graph& input, const PassOptions& options) {
  struct Step {
    const char* name;
    Pass pass;
    bool enabled;
  };
  // Folding constants first exposes params to BN folding (statistics computed from weights);
  // folding again cleans up what BN folding left on constants.
  const Step steps[] = {
      {"const-fold", FoldConstants, options.fold_constants},
      {"bn-fold", FoldBatchNorm, options.fold_batch_norm},
      {"const-fold", FoldConstants, options.fold_constants},
      {"dense-weights", PretransposeDenseWeights, options.pretranspose_dense_weights},
      {"square-by-mul", SquareByMultiplication, options.square_by_multiplication},
      {"cse", EliminateCommonSubexpressions, options.eliminate_common_subexpressions},
      {"dce", EliminateDeadCode, true},
  };
  graph::Graph g = input;
  for (const Step& step : steps) {
    if (!step.enabled) continue;
    if (absl::Status s = Run(step.name, step.pass, &g); !s.ok()) return s;
  }
  if (options.layout_block > 1) {
    // After DCE, so only live convs are converted; DCE again drops the NCHW weights.
    size_t before = g.nodes().size();
    auto blocked = ConvertLayout(g, options.layout_block, options.winograd,
                                 options.min_winograd_channels > 0 ? options.min_winograd_channels : kDefaultMinWinogradChannels);
    if (!blocked.ok()) return blocked.status();
    g = std::move(*blocked);
    TF_LOG(DEBUG, "passes") << "layout: " << before << " -> " << g.nodes().size() << " nodes; " << OpCountsString(g);
    if (absl::Status s = Run("dce", EliminateDeadCode, &g); !s.ok()) return s;
  }
  return g;
}

}  // namespace tunefarm::passes
