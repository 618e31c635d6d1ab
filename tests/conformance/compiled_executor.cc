#include "tests/conformance/compiled_executor.h"

#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>

#include "compiler/build/model_builder.h"
#include "compiler/codegen/host_target.h"
#include "common/strings.h"
#include "deploy/tunefarm_runtime.h"

namespace tunefarm::conformance {
namespace {

// The artifact as a temporary file, removed when this goes out of scope.
class TempArtifact {
 public:
  absl::Status Write(const std::string& bytes) {
    char tmpl[] = "/tmp/tunefarm_conformance_XXXXXX.so";
    int fd = mkstemps(tmpl, 3);
    if (fd < 0) return absl::InternalError("mkstemps failed");
    path_ = tmpl;
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    close(fd);
    if (done != bytes.size()) return absl::InternalError(StrCat(path_, ": short write"));
    return absl::OkStatus();
  }
  ~TempArtifact() {
    if (!path_.empty()) std::remove(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct ModelDeleter {
  void operator()(tunefarm_model* m) const { tunefarm_model_free(m); }
};
using ModelPtr = std::unique_ptr<tunefarm_model, ModelDeleter>;

absl::Status RuntimeError(const std::string& what) {
  return absl::InternalError(StrCat("runtime: ", what, ": ", std::string(tunefarm_last_error())));
}

// Loads the artifact on a pool of `threads`, feeds the graph inputs by name, runs it and reads
// every output, checking the artifact's idea of each output against the graph's.
absl::StatusOr<std::vector<HostTensor>> RunArtifact(const std::string& path, int threads, const graph::Graph& g,
                                                    const std::vector<HostTensor>& inputs) {
  tunefarm_model* raw = nullptr;
  if (tunefarm_model_load(path.c_str(), threads, &raw) != TUNEFARM_RT_OK) return RuntimeError("load");
  ModelPtr model(raw);
  size_t next = 0;
  for (const graph::Node& n : g.nodes()) {
    if (!n.IsInput()) continue;
    if (next >= inputs.size()) return absl::InvalidArgumentError(StrCat("no data for input '", n.name, "'"));
    const HostTensor& t = inputs[next++];
    int index = tunefarm_model_find_input(model.get(), n.name.c_str());
    if (index < 0) return absl::InternalError(StrCat("the artifact has no input '", n.name, "'"));
    if (tunefarm_model_set_input(model.get(), index, t.bytes.data(), t.bytes.size()) != TUNEFARM_RT_OK)
      return RuntimeError(StrCat("input '", n.name, "'"));
  }
  if (tunefarm_model_run(model.get()) != TUNEFARM_RT_OK) return RuntimeError("run");
  if (tunefarm_model_num_outputs(model.get()) != static_cast<int>(g.outputs().size()))
    return absl::InternalError(StrCat("the artifact has ", tunefarm_model_num_outputs(model.get()), " outputs, the graph ",
                                      g.outputs().size()));
  std::vector<HostTensor> outs;
  for (size_t i = 0; i < g.outputs().size(); ++i) {
    const graph::NodeEntry& e = g.outputs()[i];
    const graph::TensorType& want = g.node(e.node).outputs[e.index];
    tunefarm_tensor_info info;
    if (tunefarm_model_output_info(model.get(), static_cast<int>(i), &info) != TUNEFARM_RT_OK)
      return RuntimeError(StrCat("output ", i));
    std::vector<int64_t> shape(info.shape, info.shape + info.ndim);
    if (te::DTypeName(want.dtype) != std::string_view(info.dtype) || shape != want.shape)
      return absl::InternalError(StrCat("output ", i, " is ", info.dtype, graph::ShapeToString(shape),
                                        " in the artifact, ", want.ToString(), " in the graph"));
    auto t = HostTensor::Zeros(want.dtype, want.shape);
    if (!t.ok()) return t.status();
    if (t->bytes.size() != info.bytes)
      return absl::InternalError(StrCat("output ", i, ": ", info.bytes, " bytes in the artifact, want ", t->bytes.size()));
    if (tunefarm_model_get_output(model.get(), static_cast<int>(i), t->bytes.data(), t->bytes.size()) != TUNEFARM_RT_OK)
      return RuntimeError(StrCat("output ", i));
    outs.push_back(std::move(*t));
  }
  return outs;
}

}  // namespace

absl::StatusOr<std::vector<HostTensor>> RunCompiled(const graph::Graph& g, const std::vector<HostTensor>& inputs,
                                                    const CompiledOptions& options) {
  std::map<int, TempArtifact> artifacts;  // by compile thread count
  std::vector<HostTensor> first;
  for (size_t r = 0; r < options.runs.size(); ++r) {
    const CompiledRun& run = options.runs[r];
    if (!artifacts.count(run.compile_threads)) {
      build::BuildOptions build;
      build.target = codegen::HostTarget();
      build.threads = run.compile_threads;
      auto plan = build::PlanModel(g, build);
      if (!plan.ok()) return plan.status();
      auto bytes = build::BuildArtifact(&*plan, build);
      if (!bytes.ok()) return bytes.status();
      if (absl::Status s = artifacts[run.compile_threads].Write(*bytes); !s.ok()) return s;
    }
    auto outs = RunArtifact(artifacts[run.compile_threads].path(), run.pool_threads, g, inputs);
    if (!outs.ok())
      return absl::Status(outs.status().code(), StrCat("compiled for ", run.compile_threads, " threads, run on ",
                                                       run.pool_threads, ": ", std::string(outs.status().message())));
    if (r == 0) {
      first = std::move(*outs);
      continue;
    }
    for (size_t i = 0; i < first.size(); ++i)
      if (absl::Status s = Compare((*outs)[i], first[i]); !s.ok())
        return absl::InternalError(StrCat("output ", i, " compiled for ", run.compile_threads, " threads, run on ",
                                          run.pool_threads, ", differs from the first run: ", std::string(s.message())));
  }
  return first;
}

CaseExecutor CompiledExecutor(CompiledOptions options) {
  return [options](const graph::Graph& g, const std::vector<HostTensor>& inputs) { return RunCompiled(g, inputs, options); };
}

}  // namespace tunefarm::conformance
