// `tunefarm tracker` and `tunefarm devices` as processes: the server prints its address, serves
// with a token, and stops cleanly on SIGTERM/SIGINT.
#include <signal.h>

#include <chrono>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_process.h"

namespace tunefarm::cli::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr char kListening[] = "tunefarm tracker listening on ";
constexpr char kToken[] = "TUNEFARM_TOKEN=cli-test-token";

// Starts `tunefarm tracker` on a free loopback port; returns its address in *address.
std::unique_ptr<CliProcess> StartTracker(std::string* address) {
  absl::StatusOr<std::unique_ptr<CliProcess>> tracker = CliProcess::Start(
      {"tracker", "--port", "0", "--host", "127.0.0.1", "--quiet"}, {kToken});
  EXPECT_TRUE(tracker.ok()) << tracker.status();
  if (!tracker.ok()) return nullptr;
  absl::StatusOr<std::string> line = (*tracker)->ReadLine(20s);
  EXPECT_TRUE(line.ok()) << line.status() << "\nstderr: " << (*tracker)->err();
  if (!line.ok()) return nullptr;
  EXPECT_EQ(line->rfind(kListening, 0), 0u) << *line;
  *address = line->substr(std::string(kListening).size());
  return std::move(*tracker);
}

TEST(CliTrackerTest, ServesDevicesAndStopsOnSigterm) {
  std::string address;
  std::unique_ptr<CliProcess> tracker = StartTracker(&address);
  ASSERT_NE(tracker, nullptr);
  EXPECT_THAT(address, ::testing::StartsWith("127.0.0.1:"));
  EXPECT_NE(address, "127.0.0.1:0") << "port 0 must print the port picked";

  CliResult r = RunTunefarm({"devices", "--tracker", address, "--json"}, {kToken});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json json = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(json.is_discarded()) << r.out;
  EXPECT_EQ(json["devices"], nlohmann::json::array());
  EXPECT_EQ(json["pools"], nlohmann::json::array());

  r = RunTunefarm({"devices", "--tracker", address}, {kToken});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out, "");

  tracker->Signal(SIGTERM);
  absl::StatusOr<int> code = tracker->Finish(20s);
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0) << tracker->err();
  EXPECT_THAT(tracker->err(), HasSubstr("stopping on signal"));
}

TEST(CliTrackerTest, StopsOnSigint) {
  std::string address;
  std::unique_ptr<CliProcess> tracker = StartTracker(&address);
  ASSERT_NE(tracker, nullptr);
  tracker->Signal(SIGINT);
  absl::StatusOr<int> code = tracker->Finish(20s);
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0) << tracker->err();
}

TEST(CliTrackerTest, DevicesWithAWrongTokenFails) {
  std::string address;
  std::unique_ptr<CliProcess> tracker = StartTracker(&address);
  ASSERT_NE(tracker, nullptr);
  CliResult r = RunTunefarm({"devices", "--tracker", address, "--json"},
                            {"TUNEFARM_TOKEN=not-the-token"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr(address));
  tracker->Signal(SIGTERM);
  EXPECT_EQ(tracker->Finish(20s).value_or(-1), 0);
}

// A refused call leaves a line naming the method called, even with --quiet.
TEST(CliTrackerTest, RefusedCallsAreLoggedWithTheMethod) {
  std::string address;
  std::unique_ptr<CliProcess> tracker = StartTracker(&address);
  ASSERT_NE(tracker, nullptr);
  CliResult r = RunTunefarm({"devices", "--tracker", address}, {"TUNEFARM_TOKEN=not-the-token"});
  EXPECT_EQ(r.exit_code, 1);
  tracker->Signal(SIGTERM);
  ASSERT_EQ(tracker->Finish(20s).value_or(-1), 0);
  EXPECT_THAT(tracker->err(), HasSubstr("tunefarm tracker: refused a call to /tunefarm.v1.Tracker/ListDevices"));
  EXPECT_THAT(tracker->err(), HasSubstr(": wrong tunefarm-token"));
}

// `tune` on a pool with no devices says it is waiting (in a file, not only on a terminal) and
// gives up after --wait-timeout instead of waiting forever.
TEST(CliTrackerTest, TuneWaitsVisiblyForADeviceAndGivesUp) {
  std::string address;
  std::unique_ptr<CliProcess> tracker = StartTracker(&address);
  ASSERT_NE(tracker, nullptr);
  TempDir dir;
  const std::string model = std::string(TUNEFARM_SHARED_DIR) + "/onnx-tests/node/test_add/model.onnx";
  CliResult r = RunTunefarm({"tune", model, "--tracker", address, "--key", "no-such-pool", "--db", dir.File("t.db"),
                             "--wait-timeout", "2"},
                            {kToken});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("waiting for a 'no-such-pool' device"));
  EXPECT_THAT(r.err, HasSubstr("no 'no-such-pool' device granted by tracker " + address + " within 2000 ms"));
  tracker->Signal(SIGTERM);
  EXPECT_EQ(tracker->Finish(20s).value_or(-1), 0);
}

// SIGTERM while waiting (or tuning) leaves a job that `db jobs` shows as interrupted, not as
// running forever, and that --resume continues.
TEST(CliTrackerTest, ATunerStoppedBySigtermLeavesItsJobInterrupted) {
  std::string address;
  std::unique_ptr<CliProcess> tracker = StartTracker(&address);
  ASSERT_NE(tracker, nullptr);
  TempDir dir;
  const std::string db = dir.File("t.db");
  const std::string model = std::string(TUNEFARM_SHARED_DIR) + "/onnx-tests/node/test_add/model.onnx";
  absl::StatusOr<std::unique_ptr<CliProcess>> tune = CliProcess::Start(
      {"tune", model, "--tracker", address, "--key", "no-such-pool", "--db", db, "--wait-timeout", "600"}, {kToken});
  ASSERT_TRUE(tune.ok()) << tune.status();
  bool waiting = false;
  while (!waiting) {
    absl::StatusOr<std::string> line = (*tune)->ReadLine(30s);
    ASSERT_TRUE(line.ok()) << line.status() << "\nstderr: " << (*tune)->err();
    waiting = line->find("waiting for a 'no-such-pool' device") != std::string::npos;
  }
  (*tune)->Signal(SIGTERM);
  EXPECT_EQ((*tune)->Finish(30s).value_or(-1), 130) << (*tune)->err();
  EXPECT_THAT((*tune)->out(), HasSubstr("interrupted; continue it with: tunefarm tune"));
  CliResult jobs = RunTunefarm({"db", "jobs", "--db", db, "--json"});
  ASSERT_EQ(jobs.exit_code, 0) << jobs.err;
  const nlohmann::json parsed = nlohmann::json::parse(jobs.out);
  ASSERT_EQ(parsed["jobs"].size(), 1u) << jobs.out;
  EXPECT_EQ(parsed["jobs"][0]["state"], "interrupted");
  tracker->Signal(SIGTERM);
  EXPECT_EQ(tracker->Finish(20s).value_or(-1), 0);
}

TEST(CliTrackerTest, TrackerWithoutATokenIsAUsageError) {
  CliResult r = RunTunefarm({"tracker", "--port", "0", "--host", "127.0.0.1"}, {"TUNEFARM_TOKEN"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("TUNEFARM_TOKEN"));
}

// A one-character token guards nothing: refused where other machines can connect, and
// warned about on loopback.
TEST(CliTrackerTest, AShortTokenIsRefusedOffLoopback) {
  CliResult r = RunTunefarm({"tracker", "--port", "0", "--host", "0.0.0.0"}, {"TUNEFARM_TOKEN=x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("the token is only 1 bytes, too short for a server on 0.0.0.0: use at least 16 bytes"));
#ifdef TUNEFARM_HAVE_AGENT
  r = RunTunefarm({"agent", "--key", "k", "--port", "0"}, {"TUNEFARM_TOKEN=x"});  // --host defaults to all
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("the token is only 1 bytes"));
#endif
}

TEST(CliTrackerTest, AShortTokenOnLoopbackIsAWarning) {
  absl::StatusOr<std::unique_ptr<CliProcess>> tracker =
      CliProcess::Start({"tracker", "--port", "0", "--host", "127.0.0.1"}, {"TUNEFARM_TOKEN=x"});
  ASSERT_TRUE(tracker.ok()) << tracker.status();
  absl::StatusOr<std::string> line = (*tracker)->ReadLine(20s);
  ASSERT_TRUE(line.ok()) << line.status() << "\nstderr: " << (*tracker)->err();
  EXPECT_EQ(line->rfind(kListening, 0), 0u) << *line;
  (*tracker)->Signal(SIGTERM);
  ASSERT_EQ((*tracker)->Finish(20s).value_or(-1), 0);
  EXPECT_THAT((*tracker)->err(), HasSubstr("warning: the token is only 1 bytes (fine on loopback"));
}

TEST(CliTrackerTest, DevicesWithNoTrackerListeningFails) {
  CliResult r = RunTunefarm({"devices", "--tracker", "127.0.0.1:1", "--timeout-ms", "2000"},
                            {kToken});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("127.0.0.1:1"));
}

}  // namespace
}  // namespace tunefarm::cli::testing
