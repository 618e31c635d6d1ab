// `tunefarm tune` as a user runs it, on a loopback farm of a tracker and two agents: a model
// of two kernels is tuned, the tuner is SIGKILLed mid-job, `--resume` finishes the job without
// measuring anything twice or losing a record, and the model compiled with the tuned records
// computes the reference output.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <random>
#include <set>

#include "common/strings.h"
#include "db/tuning_database.h"
#include "onnx/onnx_pb.h"
#include "tests/farm/child_process.h"
#include "tests/tuner/local_farm.h"
#include "tests/tuner/tuner_test_util.h"

namespace tunefarm::tuner {
namespace {

using namespace std::chrono_literals;
using tunefarm::testing::ChildProcess;
using tunefarm::testing::TempDir;

constexpr int kM = 16, kK = 32, kN = 24, kP = 8;

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

void SetTensor(onnx::TensorProto* t, const std::string& name, std::vector<int64_t> dims, const std::vector<float>& v) {
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)));
}

void AddValueInfo(onnx::ValueInfoProto* info, const std::string& name, std::vector<int64_t> dims) {
  info->set_name(name);
  auto* tt = info->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

// y = relu(x W1) W2: two kernels (the ReLU fuses into the first MatMul).
struct TwoKernelModel {
  std::vector<float> x = Random(kM * kK, 1), w1 = Random(kK * kN, 2), w2 = Random(kN * kP, 3);

  std::string Onnx() const {
    onnx::ModelProto m;
    m.set_ir_version(7);
    m.add_opset_import()->set_version(13);
    auto* g = m.mutable_graph();
    g->set_name("two_kernels");
    AddValueInfo(g->add_input(), "x", {kM, kK});
    AddValueInfo(g->add_output(), "y", {kM, kP});
    SetTensor(g->add_initializer(), "w1", {kK, kN}, w1);
    SetTensor(g->add_initializer(), "w2", {kN, kP}, w2);
    auto node = [&](const char* op, std::vector<std::string> in, const std::string& out) {
      auto* n = g->add_node();
      n->set_op_type(op);
      n->set_name(out);
      for (const auto& i : in) n->add_input(i);
      n->add_output(out);
    };
    node("MatMul", {"x", "w1"}, "h");
    node("Relu", {"h"}, "r");
    node("MatMul", {"r", "w2"}, "y");
    return m.SerializeAsString();
  }

  std::vector<float> Reference() const {
    std::vector<float> h(kM * kN, 0), y(kM * kP, 0);
    for (int i = 0; i < kM; ++i)
      for (int j = 0; j < kN; ++j) {
        float acc = 0;
        for (int k = 0; k < kK; ++k) acc += x[i * kK + k] * w1[k * kN + j];
        h[i * kN + j] = std::max(acc, 0.0f);
      }
    for (int i = 0; i < kM; ++i)
      for (int j = 0; j < kP; ++j)
        for (int k = 0; k < kN; ++k) y[i * kP + j] += h[i * kN + k] * w2[k * kP + j];
    return y;
  }
};

std::string WriteTensorFile(const TempDir& dir, const std::string& name, std::vector<int64_t> dims,
                            const std::vector<float>& v) {
  onnx::TensorProto t;
  SetTensor(&t, name, std::move(dims), v);
  return dir.WriteFile(name + ".pb", t.SerializeAsString());
}

// Runs a command to its end; its exit code (128 + signal), -1 when it ran over `timeout`.
int RunToEnd(const std::vector<std::string>& argv, std::chrono::seconds timeout, std::string* out = nullptr) {
  auto child = ChildProcess::Spawn(argv, {"TUNEFARM_TOKEN="});
  if (!child.ok()) return -1;
  auto text = (*child)->ReadToEnd(timeout);
  if (out != nullptr && text.ok()) *out = *text;
  auto rc = (*child)->Wait(5s);
  return rc.ok() ? *rc : -1;
}

TEST(TuneCommand, TwoKernelJobSurvivesSigkillResumesAndCompilesToTheReferenceOutput) {
  auto farm = testing::LocalFarm::Start(/*agents=*/2);
  ASSERT_TRUE(farm.ok()) << farm.status();
  TempDir dir;
  TwoKernelModel model;
  const std::string onnx = dir.WriteFile("two.onnx", model.Onnx());
  const std::string db_path = dir.path() + "/tune.db";
  constexpr int kTrials = 24;
  std::vector<std::string> tune = {TUNEFARM_CLI_BIN,
                                   "tune",
                                   onnx,
                                   "--tracker",
                                   (*farm)->tracker_address(),
                                   "--key",
                                   testing::kDeviceKey,
                                   "--db",
                                   db_path,
                                   "--trials",
                                   std::to_string(kTrials),
                                   "--per-round",
                                   "4",
                                   "--population",
                                   "32",
                                   "--generations",
                                   "2",
                                   "--threads",
                                   "1",
                                   "--min-repeat-ms",
                                   "1",
                                   "--token-file",
                                   (*farm)->token_file()};

  // First run: killed without warning once two rounds are done.
  std::string job_id;
  {
    auto tuner = ChildProcess::Spawn(tune, {"TUNEFARM_TOKEN="});
    ASSERT_TRUE(tuner.ok()) << tuner.status();
    for (;;) {
      auto line = (*tuner)->ReadLine(120s);
      ASSERT_TRUE(line.ok()) << "tunefarm tune ended before its second round: " << line.status();
      if (line->rfind("job ", 0) == 0 && job_id.empty()) job_id = line->substr(4, line->find(':') - 4);
      if (line->rfind("round 2 ", 0) == 0) break;
    }
    (*tuner)->Signal(SIGKILL);
    ASSERT_TRUE((*tuner)->Wait(10s).ok());
  }
  ASSERT_FALSE(job_id.empty());
  auto database = db::TuningDatabase::Open(db_path);
  ASSERT_TRUE(database.ok()) << database.status();
  auto first = (*database)->RecordsOfJob(job_id);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_GE(first->size(), 2u);
  ASSERT_LT(first->size(), static_cast<size_t>(kTrials));
  auto job = (*database)->GetJob(job_id);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->state, db::JobState::kRunning);  // killed: still to be finished

  // Resumed: the job ends with exactly its budget, every schedule measured once.
  std::vector<std::string> resume = tune;
  resume.insert(resume.end(), {"--resume", job_id});
  std::string out;
  ASSERT_EQ(RunToEnd(resume, 300s, &out), 0) << out;
  EXPECT_NE(out.find("JOB_STATE_SUCCEEDED"), std::string::npos) << out;
  auto all = (*database)->RecordsOfJob(job_id);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), static_cast<size_t>(kTrials));
  std::set<std::string> hashes, ids, workloads;
  for (const db::TuningRecord& r : *all) {
    ids.insert(r.record_id);
    hashes.insert(r.workload_key + "/" + r.schedule_hash);
    workloads.insert(r.workload_key);
    EXPECT_EQ(r.error_kind, db::ErrorKind::kNone) << r.error_message;
  }
  EXPECT_EQ(hashes.size(), static_cast<size_t>(kTrials));
  EXPECT_EQ(workloads.size(), 2u);
  for (const db::TuningRecord& r : *first) EXPECT_TRUE(ids.count(r.record_id)) << "lost " << r.record_id;

  // Compiled with the tuned records, the model computes the reference output.
  const std::string so = dir.path() + "/two.so";
  ASSERT_EQ(RunToEnd({TUNEFARM_CLI_BIN, "compile", onnx, "--db", db_path, "--threads", "1", "-o", so}, 120s, &out), 0)
      << out;
  const std::string x = WriteTensorFile(dir, "x", {kM, kK}, model.x);
  const std::string y = WriteTensorFile(dir, "y", {kM, kP}, model.Reference());
  EXPECT_EQ(RunToEnd({TUNEFARM_CLI_BIN, "run", so, "--input", "x=" + x, "--expect", "y=" + y, "--tolerance", "1e-4"},
                     60s, &out),
            0)
      << out;
}

// A model whose Reshape takes its shape as a graph input: `tune --bind` keeps the binding with
// the job (the tuner imports the model itself), and without it the job fails naming --bind.
TEST(TuneCommand, BindFixesAShapeInputForTheJob) {
  auto farm = testing::LocalFarm::Start(/*agents=*/1);
  ASSERT_TRUE(farm.ok()) << farm.status();
  TempDir dir;
  const std::string c = std::string(TUNEFARM_SHARED_DIR) + "/onnx-tests/node/test_reshape_negative_dim/";
  auto tune = [&](std::vector<std::string> extra, std::string* out) {
    std::vector<std::string> argv = {TUNEFARM_CLI_BIN, "tune", c + "model.onnx", "--tracker", (*farm)->tracker_address(),
                                     "--key", testing::kDeviceKey, "--db", dir.path() + "/bind.db", "--trials", "4",
                                     "--per-round", "2", "--threads", "1", "--min-repeat-ms", "1", "--token-file",
                                     (*farm)->token_file()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return RunToEnd(argv, 120s, out);
  };
  std::string unbound;
  EXPECT_EQ(tune({}, &unbound), 1);
  EXPECT_NE(unbound.find("give its value at compile time with --bind shape=FILE"), std::string::npos) << unbound;
  // A binding whose file is missing is refused (on stderr) before a job is created or run.
  std::string missing;
  EXPECT_EQ(tune({"--bind", "shape=" + dir.path() + "/none.pb"}, &missing), 1);
  EXPECT_EQ(missing.find("JOB_STATE"), std::string::npos) << missing;
  std::string bound;
  EXPECT_EQ(tune({"--bind", "shape=" + c + "test_data_set_0/input_1.pb"}, &bound), 0) << bound;
  EXPECT_NE(bound.find("JOB_STATE_SUCCEEDED"), std::string::npos) << bound;
}

// `tunefarm jobs list` shows each job's priority. The key has no device, so the jobs wait and
// stay listed.
TEST(JobsCommand, ListShowsEachJobsPriority) {
  auto farm = testing::LocalFarm::Start(/*agents=*/0);
  ASSERT_TRUE(farm.ok()) << farm.status();
  TempDir dir;
  const std::string db_path = dir.path() + "/jobs.db";
  auto server = TunerServer::Start(testing::ServerOptions(db_path, (*farm)->tracker_address()));
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = testing::Stub(**server);
  v1::SubmitJobRequest submit;
  *submit.mutable_spec() = testing::GemmSpec(db_path, 4);
  submit.mutable_spec()->set_priority(-17);
  v1::SubmitJobReply submitted;
  ASSERT_TRUE(stub->SubmitJob(testing::Context().get(), submit, &submitted).ok());
  const std::string token = dir.WriteFile("token", testing::kToken);
  std::string out;
  ASSERT_EQ(RunToEnd({TUNEFARM_CLI_BIN, "jobs", "list", "--tuner", (*server)->address(), "--token-file", token}, 60s,
                     &out),
            0)
      << out;
  EXPECT_NE(out.find("PRIORITY"), std::string::npos) << out;
  const size_t row = out.find(submitted.job_id());
  ASSERT_NE(row, std::string::npos) << out;
  const std::string line = out.substr(row, out.find('\n', row) - row);
  EXPECT_NE(line.find(" -17 "), std::string::npos) << line;
}

}  // namespace
}  // namespace tunefarm::tuner
