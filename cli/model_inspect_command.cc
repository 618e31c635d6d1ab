// `tunefarm inspect MODEL.onnx|MODEL.so [--json]`: what the compiler makes of a model — the ops
// before and after the graph passes, the fused kernels with their workload keys and schedules,
// layout conversions and the memory plan. An .onnx is planned (no code generation, fast); an
// artifact shows the plan embedded in it.

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/model_common.h"
#include "cli/subcommands.h"
#include "cli/table.h"
#include "compiler/build/model_builder.h"
#include "common/strings.h"
#include "deploy/artifact_blobs.h"

namespace tunefarm::cli {
namespace {

const CommandSpec& Spec() {
  static const CommandSpec spec{
      "inspect",
      "Shows the ops, fused kernels, workload keys, layout conversions and memory plan of a model.",
      {{"json", 0, "", "print one JSON document"},
       {"target", 0, "TARGET", "for an .onnx: target to plan for (default: this machine)"},
       {"threads", 0, "N", "for an .onnx: thread count to plan for (default 1)"},
       {"input-shape", 0, "NAME=D,D,...", "for an .onnx: shape of an input with symbolic dimensions", false, true},
       {"bind", 0, "NAME=FILE", "for an .onnx: a graph input fixed at compile time (.npy or .pb): a Reshape's shape, Slice's starts, ...", false, true}},
      {"MODEL"}};
  return spec;
}

nlohmann::json OpCounts(const graph::Graph& g) {
  nlohmann::json counts = nlohmann::json::object();
  for (const auto& [op, n] : g.OpCounts()) counts[op] = n;
  return counts;
}

// The plan JSON embedded in an artifact, for the CPU or a GPU. Loading is safe here: an artifact
// imports nothing but memcpy/memset/memmove and runs no constructors, and its integrity trailer
// is checked first (a damaged file can crash dlopen itself).
absl::StatusOr<nlohmann::json> PlanOfArtifact(const std::string& path) {
  deploy::Result<std::unique_ptr<deploy::KernelLibrary>> library = deploy::LoadArtifactLibrary(path);
  if (!library.ok()) return absl::InvalidArgumentError(StrCat(path, ": cannot load: ", library.status().message()));
  std::optional<std::string_view> text = deploy::FindBlob(**library, deploy::kModelPlanSymbol);
  if (!text.has_value()) {
    return absl::InvalidArgumentError(StrCat(path, ": not a tunefarm model artifact (no tunefarm_model_plan)"));
  }
  nlohmann::json plan = nlohmann::json::parse(text->begin(), text->end(), nullptr, false);
  if (plan.is_discarded()) return absl::InvalidArgumentError(StrCat(path, ": the embedded plan is not valid JSON"));
  return plan;
}

// The inspect document from a plan JSON (docs/model-artifact.md), common to both inputs.
nlohmann::json Summarize(const std::string& path, const nlohmann::json& plan) {
  nlohmann::json calls = nlohmann::json::array();
  nlohmann::json ops = nlohmann::json::object();
  nlohmann::json layout = nlohmann::json::array();
  std::map<std::string, int> kernels;
  const nlohmann::json& values = plan.at("values");
  for (const nlohmann::json& c : plan.at("calls")) {
    const auto& args = c.at("args");
    const nlohmann::json& out = values.at(args.back().get<int>());
    calls.push_back({{"kernel", c.at("kernel")}, {"group", c.at("group")}, {"ops", c.at("ops")},
                     {"output_shape", out.at("shape")}, {"workload", c.at("workload")}, {"schedule", c.at("schedule")}});
    kernels[c.at("kernel").get<std::string>()]++;
    for (const auto& op : c.at("ops")) {
      std::string name = op.get<std::string>();
      ops[name] = ops.value(name, 0) + 1;
      if (name.find("Layout") != std::string::npos) layout.push_back(c.at("group"));
    }
  }
  return {{"model", path},
          {"target", plan.at("target")},
          {"threads", plan.at("threads")},
          {"kernel_calls", calls.size()},
          {"distinct_kernels", kernels.size()},
          {"ops", ops},
          {"layout_conversions", layout},
          {"calls", calls},
          {"memory",
           {{"arena_bytes", plan.at("arena_bytes")},
            {"peak_live_bytes", plan.value("peak_live_bytes", 0)},
            {"naive_bytes", plan.value("naive_bytes", 0)},
            {"params_bytes", plan.at("params_bytes")}}}};
}

std::string ShortKey(const std::string& key) { return key.size() > 19 ? key.substr(0, 19) : key; }

void PrintHuman(const nlohmann::json& doc) {
  std::string text = StrCat(doc.at("model").get<std::string>(), ": ", doc.at("kernel_calls").get<int>(),
                            " kernel calls, ", doc.at("distinct_kernels").get<int>(), " distinct kernels, target ",
                            doc.at("target").get<std::string>(), ", ", doc.at("threads").get<int>(), " threads\n");
  if (doc.contains("graph")) {
    for (const char* stage : {"imported_ops", "optimized_ops"}) {
      std::vector<std::string> parts;
      for (const auto& [op, n] : doc.at("graph").at(stage).items()) parts.push_back(StrCat(op, " ", n.get<int>()));
      StrAppend(&text, stage, ": ", StrJoin(parts, ", "), "\n");
    }
  }
  Table table({{"#"}, {"kernel"}, {"ops"}, {"output"}, {"workload"}, {"schedule"}});
  int i = 0;
  for (const nlohmann::json& c : doc.at("calls")) {
    std::vector<std::string> ops, dims;
    for (const auto& op : c.at("ops")) ops.push_back(op.get<std::string>());
    for (const auto& d : c.at("output_shape")) dims.push_back(std::to_string(d.get<int64_t>()));
    table.AddRow({std::to_string(i++), c.at("kernel").get<std::string>(), StrJoin(ops, "+"),
                  StrCat("[", StrJoin(dims, ","), "]"), ShortKey(c.at("workload").get<std::string>()),
                  c.at("schedule").get<std::string>()});
  }
  text += table.ToString();
  const nlohmann::json& m = doc.at("memory");
  StrAppend(&text, "layout conversions: ", doc.at("layout_conversions").size(), "\n",
            "memory: arena ", m.at("arena_bytes").get<int64_t>(), " bytes, peak live ", m.at("peak_live_bytes").get<int64_t>(),
            " bytes, without reuse ", m.at("naive_bytes").get<int64_t>(), " bytes, parameters ",
            m.at("params_bytes").get<int64_t>(), " bytes\n");
  std::fputs(text.c_str(), stdout);
}

bool IsOnnx(const std::string& path) { return path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0; }

}  // namespace

int RunInspectCommand(int argc, char** argv) {
  ParseResult parsed = ParseCommandLine(Spec(), argc, argv);
  if (!parsed.flags) return parsed.exit_code;
  const ParsedFlags& flags = *parsed.flags;
  const std::string path = flags.positionals()[0];
  nlohmann::json doc;
  if (IsOnnx(path)) {
    auto options = BuildOptionsFromFlags(flags, 1);
    if (!options.ok()) return ReportUsageError(Spec(), options.status());
    auto graph = ImportModel(path, flags);
    if (!graph.ok()) return ReportFailure("inspect", graph.status());
    auto plan = build::PlanModel(*graph, *options);
    if (!plan.ok()) return ReportFailure("inspect", plan.status());
    doc = Summarize(path, nlohmann::json::parse(build::PlanToJson(*plan, *options)));
    doc["graph"] = {{"imported_ops", OpCounts(*graph)}, {"optimized_ops", OpCounts(plan->graph)}};
  } else {
    auto plan = PlanOfArtifact(path);
    if (!plan.ok()) return ReportFailure("inspect", plan.status());
    try {
      doc = Summarize(path, *plan);
    } catch (const nlohmann::json::exception& e) {
      return ReportFailure("inspect", StrCat(path, ": malformed plan: ", e.what()));
    }
  }
  if (flags.Has("json")) {
    std::printf("%s\n", doc.dump(2).c_str());
  } else {
    PrintHuman(doc);
  }
  return kExitOk;
}

}  // namespace tunefarm::cli
