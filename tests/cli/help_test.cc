// The `tunefarm` binary's dispatch: help, version, unknown subcommands and flag errors.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_process.h"

namespace tunefarm::cli::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::ContainsRegex;

const char* const kSubcommands[] = {"tracker", "agent", "devices", "db", "version"};
const char* const kDbActions[] = {"best", "top", "stats", "jobs", "export", "import", "check"};

// Whether `listing` has a line "  <name>  <help>".
bool ListsCommand(const std::string& listing, const std::string& name) {
  return listing.find("\n  " + name + "  ") != std::string::npos;
}

TEST(CliHelpTest, HelpListsEverySubcommandOnStdout) {
  for (const char* flag : {"--help", "-h", "help"}) {
    CliResult r = RunTunefarm({flag});
    EXPECT_EQ(r.exit_code, 0) << flag << "\n" << r.err;
    EXPECT_THAT(r.out, HasSubstr("usage: tunefarm <command>"));
    for (const char* name : kSubcommands) EXPECT_TRUE(ListsCommand(r.out, name)) << name << "\n" << r.out;
    EXPECT_EQ(r.err, "");
  }
}

TEST(CliHelpTest, NoSubcommandIsAUsageError) {
  CliResult r = RunTunefarm({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("tunefarm: missing command"));
  for (const char* name : kSubcommands) EXPECT_TRUE(ListsCommand(r.err, name)) << name;
}

TEST(CliHelpTest, UnknownSubcommandIsNamedWithTheList) {
  CliResult r = RunTunefarm({"tarcker", "--port", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("unknown command 'tarcker' (one of: tracker, agent, devices, tuner, tune, jobs, db, compile, run, inspect, bench, version)"));
  EXPECT_TRUE(ListsCommand(r.err, "db")) << r.err;
}

TEST(CliHelpTest, JobsNamesItsActionsAndAnUnreachableTuner) {
  CliResult r = RunTunefarm({"jobs", "lst"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown command 'lst' (one of: list, watch, cancel)"));
  r = RunTunefarm({"jobs", "list", "--tuner", "127.0.0.1:1", "--token-file", "/nonexistent/token"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/token"));
}

// `tune`'s own refusals, each naming what is wrong, before any farm starts.
TEST(CliHelpTest, TuneRefusesAKeylessTrackerABadPolicyOrPriorityAndAnUnknownJob) {
  TempDir dir;
  const std::string model = std::string(TUNEFARM_SHARED_DIR) + "/onnx-tests/node/test_add/model.onnx";
  CliResult r = RunTunefarm({"tune", model, "--tracker", "127.0.0.1:1", "--db", dir.File("t.db")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--key is required with --tracker"));
  // gRPC would dial 99999 modulo 65536 and send the token to port 34463.
  r = RunTunefarm({"tune", model, "--tracker", "127.0.0.1:99999", "--key", "k", "--db", dir.File("t.db")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("bad address '127.0.0.1:99999': port 99999 is outside 1-65535"));
  r = RunTunefarm({"tune", model, "--policy", "annealing", "--db", dir.File("t.db")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("spec.search.policy 'annealing' is unknown"));
  r = RunTunefarm({"tune", model, "--priority", "5000", "--db", dir.File("t.db")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--priority"));
  r = RunTunefarm({"tune", model, "--resume", "no-such-job", "--db", dir.File("t.db")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no-such-job"));
}

#ifdef TUNEFARM_HAVE_EMBEDDED_FARM
// Pids of the processes whose environment holds `marker`.
std::vector<int> ProcessesWithEnv(const std::string& marker) {
  std::vector<int> pids;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "environ", std::ios::binary);
    const std::string env((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (env.find(marker) != std::string::npos) pids.push_back(std::stoi(name));
  }
  return pids;
}

// The README's main command tunes on an embedded farm: when `tune` exits, nothing it started
// (tracker, agent, measuring helpers) may be left running.
TEST(CliHelpTest, TuneOnTheEmbeddedFarmLeavesNothingRunning) {
  TempDir dir;
  const std::string model = std::string(TUNEFARM_SHARED_DIR) + "/onnx-tests/node/test_add/model.onnx";
  const std::string marker = "TUNEFARM_TEST_MARKER=" + std::to_string(::getpid()) + "-leftovers";
  CliResult r = RunTunefarm({"tune", model, "--db", dir.File("t.db"), "--trials", "2", "--threads", "1",
                             "--population", "16", "--min-repeat-ms", "1"},
                            {marker});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The job ends with where its time went, per measured trial. The Add's search space holds one
  // or two distinct programs, so the job may run out of candidates after one.
  EXPECT_THAT(r.out, ContainsRegex("where this run's time went: [12] trials in")) << r.out;
  std::vector<int> left;
  for (int attempt = 0; attempt < 50; ++attempt) {  // exited children may take a moment to be reaped
    left = ProcessesWithEnv(marker);
    if (left.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(left.empty()) << left.size() << " processes started by tune are still running, e.g. pid " << left[0];
}
#endif  // TUNEFARM_HAVE_EMBEDDED_FARM

TEST(CliHelpTest, VersionPrintsTheBinaryAndSchema) {
  CliResult r = RunTunefarm({"version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("tunefarm ", 0), 0u) << r.out;
  EXPECT_THAT(r.out, HasSubstr("tuning database schema version "));
#ifdef TUNEFARM_EXPECT_JEMALLOC
  // Configured with jemalloc (cmake/FastAllocator.cmake): the tuner must run on it.
  EXPECT_THAT(r.out, HasSubstr("allocator: jemalloc "));
#else
  EXPECT_THAT(r.out, HasSubstr("allocator: glibc malloc"));
#endif
  EXPECT_EQ(RunTunefarm({"version", "--bogus"}).exit_code, 2);
}

TEST(CliHelpTest, DbListsItsActions) {
  CliResult r = RunTunefarm({"db", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* action : kDbActions) EXPECT_TRUE(ListsCommand(r.out, action)) << action << "\n" << r.out;

  r = RunTunefarm({"db"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("tunefarm db: missing command"));

  r = RunTunefarm({"db", "frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown command 'frobnicate'"));
}

TEST(CliHelpTest, HelpForOneCommandShowsItsFlags) {
  CliResult r = RunTunefarm({"db", "best", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("usage: tunefarm db best --db FILE --workload KEY --target TARGET "
                               "--threads N [--json]"));
  r = RunTunefarm({"help", "db"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(ListsCommand(r.out, "export")) << r.out;
  r = RunTunefarm({"help", "devices"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("--tracker HOST:PORT"));
}

TEST(CliHelpTest, MissingRequiredFlagIsNamed) {
  CliResult r = RunTunefarm({"db", "best", "--db", "x.db", "--workload", "w", "--threads", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("tunefarm db best: missing required flag --target TARGET"));
  EXPECT_THAT(r.err, HasSubstr("usage: tunefarm db best"));

  r = RunTunefarm({"devices", "--json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--tracker"));
}

TEST(CliHelpTest, UnknownFlagIsNamed) {
  CliResult r = RunTunefarm({"db", "stats", "--db", "x.db", "--colour"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("tunefarm db stats: unknown flag --colour"));

  r = RunTunefarm({"tracker", "--prot", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--prot"));
}

TEST(CliHelpTest, BadFlagValuesAreUsageErrors) {
  CliResult r = RunTunefarm({"db", "top", "--db", "x.db", "--workload", "w", "--target",
                             "llvm -mtriple=x86_64-linux-gnu", "--threads", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--threads '0'"));

  r = RunTunefarm({"db", "best", "--db", "x.db", "--workload", "w", "--target", "vulkan",
                   "--threads", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--target 'vulkan'"));

  r = RunTunefarm({"db", "jobs", "--db", "x.db", "--state", "sleeping"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--state"));
  EXPECT_THAT(r.err, HasSubstr("sleeping"));
}

}  // namespace
}  // namespace tunefarm::cli::testing
