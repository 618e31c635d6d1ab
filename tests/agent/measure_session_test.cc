// A helper's session over several candidates, run in this process with well-behaved kernels:
// the reference runs once per batch, every candidate gets fresh inputs, and what the batch
// keeps cannot be written by a candidate.
#include "device_agent/measure_session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "common/file_read.h"
#include "tests/common/test_temp_dir.h"

namespace tunefarm::agent {
namespace {

MeasureSpec CheckedSpec() {
  MeasureSpec spec;
  spec.reference_path = AGENT_KERNEL_GOOD;
  spec.reference_entry = "vadd_ref";
  spec.threads = 2;
  spec.seed = 7;
  spec.atol = 1e-5;
  spec.rtol = 1e-4;
  return spec;
}

TEST(MeasureSession, TheReferenceRunsForTheFirstCandidateOnly) {
  std::vector<std::string> stages;
  MeasureSession session(CheckedSpec(), [&](const char* stage) { stages.push_back(stage); });
  MeasureOutcome outcome = session.Measure({AGENT_KERNEL_GOOD, "vadd"});
  EXPECT_EQ(outcome.kind, OutcomeKind::kOk) << outcome.message;
  EXPECT_TRUE(outcome.correct);
  EXPECT_EQ(stages, (std::vector<std::string>{kStageCheck, kStageLoad, kStageAllocate,
                                              kStageReference, kStageAllocate, kStageRun,
                                              kStageTime}));
  EXPECT_TRUE(session.reference_cached());
  session.Unload();

  stages.clear();
  outcome = session.Measure({AGENT_KERNEL_GOOD, "vadd"});
  EXPECT_EQ(outcome.kind, OutcomeKind::kOk) << outcome.message;
  EXPECT_TRUE(outcome.correct);
  EXPECT_EQ(stages, (std::vector<std::string>{kStageCheck, kStageLoad, kStageAllocate, kStageRun,
                                              kStageTime}));
}

TEST(MeasureSession, InputsOverwrittenByOneCandidateAreFreshForTheNext) {
  MeasureSession session(CheckedSpec(), [](const char*) {});
  for (const char* entry : {"vadd_scribble", "vadd_scribble"}) {
    const MeasureOutcome outcome = session.Measure({AGENT_KERNEL_LEAKY, entry});
    EXPECT_EQ(outcome.kind, OutcomeKind::kOk) << outcome.message;
    EXPECT_TRUE(outcome.correct);
  }
  const MeasureOutcome outcome = session.Measure({AGENT_KERNEL_GOOD, "vadd_ref"});
  EXPECT_EQ(outcome.kind, OutcomeKind::kOk) << outcome.message;
  EXPECT_TRUE(outcome.correct);
}

TEST(MeasureSession, AReferenceThatCannotLoadIsReportedForEachCandidate) {
  MeasureSpec spec = CheckedSpec();
  spec.reference_entry = "no_such_ref";
  MeasureSession session(spec, [](const char*) {});
  for (int i = 0; i < 2; ++i) {
    const MeasureOutcome outcome = session.Measure({AGENT_KERNEL_GOOD, "vadd"});
    EXPECT_EQ(outcome.kind, OutcomeKind::kLoadError);
    EXPECT_NE(outcome.message.find("no entry \"no_such_ref\""), std::string::npos)
        << outcome.message;
    EXPECT_FALSE(session.reference_cached());
  }
}

// A helper saves the reference's outputs; the next helper (a new session) reads them instead of
// running the reference, for the same seed only. A damaged file is ignored and rewritten.
TEST(MeasureSession, SavedReferenceOutputsServeTheNextHelper) {
  tunefarm::testing::TempDir dir;
  MeasureSpec spec = CheckedSpec();
  spec.reference_outputs_path = dir.File("ref.outputs");
  auto measure = [&](const MeasureSpec& s, std::vector<std::string>* stages) {
    MeasureSession session(s, [&](const char* stage) { stages->push_back(stage); });
    return session.Measure({AGENT_KERNEL_GOOD, "vadd"});
  };
  auto ran_reference = [](const std::vector<std::string>& stages) {
    return std::find(stages.begin(), stages.end(), kStageReference) != stages.end();
  };
  std::vector<std::string> first, second, reseeded;
  MeasureOutcome outcome = measure(spec, &first);
  EXPECT_TRUE(outcome.correct) << outcome.message;
  EXPECT_TRUE(ran_reference(first));
  outcome = measure(spec, &second);
  EXPECT_TRUE(outcome.correct) << outcome.message;
  EXPECT_FALSE(ran_reference(second)) << "read from " << spec.reference_outputs_path;

  // The saved bytes are what the candidate is compared with: changed, the candidate is wrong.
  std::string bytes = ReadWholeFile(spec.reference_outputs_path, "saved reference outputs").value_or("");
  ASSERT_GT(bytes.size(), 64u);
  std::string changed = bytes;
  changed[changed.size() - 2] ^= 0x40;
  std::ofstream(spec.reference_outputs_path, std::ios::binary | std::ios::trunc) << changed;
  std::vector<std::string> stages;
  outcome = measure(spec, &stages);
  EXPECT_EQ(outcome.kind, OutcomeKind::kWrongResult) << outcome.message;

  // Another seed, or a truncated file: the reference runs, and the file is written again.
  MeasureSpec other = spec;
  other.seed = 8;
  outcome = measure(other, &reseeded);
  EXPECT_TRUE(outcome.correct) << outcome.message;
  EXPECT_TRUE(ran_reference(reseeded));
  std::ofstream(spec.reference_outputs_path, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 4);
  stages.clear();
  outcome = measure(spec, &stages);
  EXPECT_TRUE(outcome.correct) << outcome.message;
  EXPECT_TRUE(ran_reference(stages));
  stages.clear();
  outcome = measure(spec, &stages);
  EXPECT_TRUE(outcome.correct) << outcome.message;
  EXPECT_FALSE(ran_reference(stages)) << "the rewritten file serves again";
}

// A candidate whose correctness run already took over twice the stop limit is not timed: that
// run is its one cost. Under a generous limit it is timed as asked.
TEST(MeasureSession, ACandidateFarOverTheStopIsNotTimed) {
  MeasureSpec spec = CheckedSpec();
  spec.repeat = 3;
  spec.stop_above_sec = 1e-12;
  std::vector<std::string> stages;
  MeasureSession session(spec, [&](const char* stage) { stages.push_back(stage); });
  MeasureOutcome outcome = session.Measure({AGENT_KERNEL_GOOD, "vadd"});
  EXPECT_EQ(outcome.kind, OutcomeKind::kOk) << outcome.message;
  EXPECT_TRUE(outcome.correct);
  ASSERT_EQ(outcome.costs_sec.size(), 1u);
  EXPECT_GT(outcome.costs_sec[0], 0);
  EXPECT_EQ(outcome.number, 1);
  EXPECT_EQ(std::count(stages.begin(), stages.end(), std::string(kStageTime)), 0);

  spec.stop_above_sec = 100;
  MeasureSession patient(spec, [](const char*) {});
  outcome = patient.Measure({AGENT_KERNEL_GOOD, "vadd"});
  EXPECT_EQ(outcome.kind, OutcomeKind::kOk) << outcome.message;
  EXPECT_EQ(outcome.costs_sec.size(), 3u);
}

// A candidate that takes an argument in another layout (weights in its tiles' order) gets it
// made from the generated input by the library's preparing entry, untimed; without that entry
// it would add the wrong elements, and a preparing entry that fails is named.
TEST(MeasureSession, APreparedArgumentIsMadeFromTheGeneratedInputByItsEntry) {
  MeasureSpec spec = CheckedSpec();
  spec.reference_path = AGENT_KERNEL_PREPARED;
  MeasureSession session(spec, [](const char*) {});
  MeasureOutcome outcome = session.Measure({AGENT_KERNEL_PREPARED, "vadd_reversed"});
  EXPECT_EQ(outcome.kind, OutcomeKind::kOk) << outcome.message;
  EXPECT_TRUE(outcome.correct);
  EXPECT_FALSE(outcome.costs_sec.empty());

  outcome = session.Measure({AGENT_KERNEL_PREPARED, "vadd_unprepared"});
  EXPECT_EQ(outcome.kind, OutcomeKind::kWrongResult) << outcome.message;

  outcome = session.Measure({AGENT_KERNEL_PREPARED, "vadd_badly_prepared"});
  EXPECT_EQ(outcome.kind, OutcomeKind::kRuntimeError) << outcome.message;
  EXPECT_NE(outcome.message.find("layout entry \"reverse_b_fails\""), std::string::npos) << outcome.message;
  EXPECT_EQ(outcome.kernel_code, 7);

  // A preparing entry whose source is not the reference's argument is refused before any run.
  outcome = session.Measure({AGENT_KERNEL_PREPARED, "vadd_wrong_source"});
  EXPECT_EQ(outcome.kind, OutcomeKind::kLoadError) << outcome.message;
  EXPECT_NE(outcome.message.find("differ in argument 1 (the source of its prepared argument): b float32[2048] in "
                                 "vs b float32[4096] in"),
            std::string::npos)
      << outcome.message;

  // Unchecked (no reference), the source is generated from the preparing entry's input.
  MeasureSpec unchecked = spec;
  unchecked.reference_path.clear();
  MeasureSession alone(unchecked, [](const char*) {});
  outcome = alone.Measure({AGENT_KERNEL_PREPARED, "vadd_reversed"});
  EXPECT_EQ(outcome.kind, OutcomeKind::kOk) << outcome.message;
}

TEST(FrozenBuffer, IsACopyThatCannotBeWritten) {
  const std::string text = "reference outputs";
  deploy::Result<FrozenBuffer> frozen = FrozenBuffer::Copy(text.data(), text.size());
  ASSERT_TRUE(frozen.ok());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(frozen->data()), frozen->size()), text);
  EXPECT_DEATH(const_cast<uint8_t*>(frozen->data())[0] = 'R', "");
}

}  // namespace
}  // namespace tunefarm::agent
