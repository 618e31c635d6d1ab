#include "tests/build/compile_and_run.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

#include "compiler/codegen/host_target.h"
#include "deploy/tunefarm_runtime.h"

namespace tunefarm::build {

BuildOptions HostOptions(int threads) {
  BuildOptions options;
  options.target = codegen::HostTarget();
  options.threads = threads;
  return options;
}

std::vector<std::string> CompileAndRun(const graph::Graph& g, const std::vector<std::string>& inputs) {
  BuildOptions options = HostOptions(2);
  auto plan = PlanModel(g, options);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return {};
  auto bytes = BuildArtifact(&*plan, options);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  if (!bytes.ok()) return {};
  char path[] = "/tmp/tunefarm_compile_and_run_XXXXXX";
  int fd = mkstemp(path);
  EXPECT_EQ(write(fd, bytes->data(), bytes->size()), static_cast<ssize_t>(bytes->size()));
  close(fd);
  std::vector<std::string> outputs;
  tunefarm_model* model = nullptr;
  EXPECT_EQ(tunefarm_model_load(path, 2, &model), TUNEFARM_RT_OK) << tunefarm_last_error();
  if (model != nullptr) {
    for (size_t i = 0; i < inputs.size(); ++i)
      EXPECT_EQ(tunefarm_model_set_input(model, static_cast<int>(i), inputs[i].data(), inputs[i].size()), TUNEFARM_RT_OK)
          << tunefarm_last_error();
    EXPECT_EQ(tunefarm_model_run(model), TUNEFARM_RT_OK) << tunefarm_last_error();
    for (int i = 0; i < tunefarm_model_num_outputs(model); ++i) {
      tunefarm_tensor_info info;
      EXPECT_EQ(tunefarm_model_output_info(model, i, &info), TUNEFARM_RT_OK);
      std::string out(info.bytes, '\0');
      EXPECT_EQ(tunefarm_model_get_output(model, i, out.data(), out.size()), TUNEFARM_RT_OK) << tunefarm_last_error();
      outputs.push_back(std::move(out));
    }
    tunefarm_model_free(model);
  }
  std::remove(path);
  return outputs;
}

}  // namespace tunefarm::build
