// The shared models through the pass pipeline, fusion and memory planning. Prints per-model
// figures (nodes per pass, groups, arena vs peak vs naive bytes).
#include <chrono>

#include "compiler/frontend/onnx_importer.h"
#include "compiler/passes/batch_norm_folding.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/passes/cse.h"
#include "compiler/passes/dce.h"
#include "compiler/passes/fusion.h"
#include "compiler/passes/graph_memory.h"
#include "compiler/passes/graph_rewriter.h"
#include "compiler/passes/pass_pipeline.h"
#include "compiler/passes/square_by_multiplication.h"
#include "tests/passes/plan_checker.h"
#include "tests/passes/test_graphs.h"

namespace tunefarm::passes {
namespace {
using namespace testing;

const std::string kModels = std::string(TUNEFARM_SHARED_DIR) + "/models/";

struct Optimized {
  Graph graph;
  FusionPlan plan;
};

// Imports, runs each pass of the pipeline one by one (printing node counts), and fuses.
Optimized Prepare(const std::string& model) {
  auto g = frontend::ImportOnnxFile(kModels + model + ".onnx");
  EXPECT_TRUE(g.ok()) << g.status();
  if (!g.ok()) return {};
  auto op_nodes = [](const Graph& graph) {
    int n = 0;
    for (const auto& [op, count] : graph.OpCounts()) n += count;
    return n;
  };
  std::string line = StrCat(model, " (nodes incl. inputs/params; op nodes): import ", g->nodes().size(), "/",
                            op_nodes(*g));
  Graph current = *g;
  using Pass = absl::StatusOr<Graph> (*)(const Graph&);
  const std::pair<const char*, Pass> passes[] = {{"const-fold", FoldConstants},
                                                 {"bn-fold", FoldBatchNorm},
                                                 {"const-fold", FoldConstants},
                                                 {"square-by-mul", SquareByMultiplication},
                                                 {"cse", EliminateCommonSubexpressions},
                                                 {"dce", EliminateDeadCode}};
  for (const auto& [name, pass] : passes) {
    auto next = pass(current);
    EXPECT_TRUE(next.ok()) << name << ": " << next.status();
    if (!next.ok()) return {};
    current = std::move(*next);
    StrAppend(&line, " -> ", name, " ", current.nodes().size(), "/", op_nodes(current));
  }
  auto whole = OptimizeGraph(*g);
  EXPECT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(whole->nodes().size(), current.nodes().size()) << "OptimizeGraph runs the same passes";
  auto plan = FuseOps(current);
  EXPECT_TRUE(plan.ok()) << plan.status();
  int views = 0;
  for (const FusedGroup& group : plan->groups) views += group.is_view;
  std::printf("%s; %zu groups (%d views)\n  ops after: %s\n", line.c_str(), plan->groups.size(), views,
              OpCountsString(current).c_str());
  return {std::move(current), std::move(*plan)};
}

int KernelGroups(const FusionPlan& plan) {
  int n = 0;
  for (const FusedGroup& group : plan.groups) n += !group.is_view;
  return n;
}

TEST(ModelsTest, Resnet18FoldsEveryBatchNormAndFusesToFewKernels) {
  Optimized m = Prepare("resnet18");
  EXPECT_EQ(CountOp(m.graph, "BatchNormalization"), 0);
  EXPECT_EQ(CountOp(m.graph, "Conv"), 20);
  EXPECT_LE(m.plan.groups.size(), 25u) << FusionPlanToString(m.graph, m.plan);
  int conv_groups = 0;
  for (const FusedGroup& group : m.plan.groups) {
    const graph::Node& anchor = m.graph.node(group.anchor);
    if (anchor.op != "Conv") continue;
    ++conv_groups;
    EXPECT_EQ(anchor.inputs.size(), 3u) << "folded Conv '" << anchor.name << "' carries the BN shift as bias";
    EXPECT_GE(group.nodes.size(), 1u);
  }
  EXPECT_EQ(conv_groups, 20);
  // Every Relu and residual Add rides in a Conv group.
  for (const FusedGroup& group : m.plan.groups)
    if (group.nodes.size() == 1) {
      EXPECT_NE(m.graph.node(group.nodes[0]).op, "Relu");
    }
  std::printf("%s", FusionPlanToString(m.graph, m.plan).c_str());
}

TEST(ModelsTest, MobilenetV2HasNoStandaloneClip) {
  Optimized m = Prepare("mobilenet_v2");
  EXPECT_EQ(CountOp(m.graph, "BatchNormalization"), 0);
  for (const FusedGroup& group : m.plan.groups)
    if (group.nodes.size() == 1) {
      EXPECT_NE(m.graph.node(group.nodes[0]).op, "Clip") << m.graph.node(group.nodes[0]).name;
    }
}

TEST(ModelsTest, TransformerHasNoShapeArithmeticLeft) {
  Optimized m = Prepare("transformer_encoder");
  for (const char* op : {"Shape", "Gather", "Concat", "Constant", "Unsqueeze", "ConstantOfShape"})
    EXPECT_EQ(CountOp(m.graph, op), 0) << op;
  for (const graph::Node& n : m.graph.nodes()) {
    if (n.IsInput() || n.IsParam()) continue;
    bool all_params = !n.inputs.empty();
    for (NodeEntry e : n.inputs) all_params = all_params && m.graph.node(e.node).IsParam();
    EXPECT_FALSE(all_params && n.op != "Softmax") << n.op << " '" << n.name << "' on constants only";
  }
}

class ModelMemoryTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelMemoryTest, PlanIsDisjointAlignedAndNearPeak) {
  Optimized m = Prepare(GetParam());
  auto problem = BuildMemoryProblem(m.graph, m.plan);
  ASSERT_TRUE(problem.ok()) << problem.status();
  EXPECT_EQ(static_cast<int>(problem->calls.size()), KernelGroups(m.plan));
  auto start = std::chrono::steady_clock::now();
  auto plan = PlanMemory(problem->values, problem->calls);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(plan.ok()) << plan.status();
  CheckPlan(problem->values, problem->calls, *plan);
  double ratio = static_cast<double>(plan->arena_bytes) / static_cast<double>(plan->peak_live_bytes);
  std::printf("%s memory: arena %lld, peak live %lld, naive %lld bytes; arena/peak %.3f, naive/arena %.2f; %zu calls, "
              "%.1f ms\n",
              GetParam().c_str(), static_cast<long long>(plan->arena_bytes),
              static_cast<long long>(plan->peak_live_bytes), static_cast<long long>(plan->naive_bytes), ratio,
              static_cast<double>(plan->naive_bytes) / static_cast<double>(plan->arena_bytes), problem->calls.size(), ms);
  EXPECT_LE(ratio, 1.3);
  // The graph's input and output are never shared.
  for (NodeEntry e : m.graph.outputs()) EXPECT_TRUE(problem->values[problem->value_of.at(e)].pinned);
}

INSTANTIATE_TEST_SUITE_P(Shared, ModelMemoryTest,
                         ::testing::Values("resnet18", "mobilenet_v2", "squeezenet1_1", "transformer_encoder"));

}  // namespace
}  // namespace tunefarm::passes
