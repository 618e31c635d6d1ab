// A helper's session over several candidates, run in this process with well-behaved kernels:
// the reference runs once per batch, every candidate gets fresh inputs, and what the batch
// keeps cannot be written by a candidate.
#include "device_agent/measure_session.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

TEST(FrozenBuffer, IsACopyThatCannotBeWritten) {
  const std::string text = "reference outputs";
  deploy::Result<FrozenBuffer> frozen = FrozenBuffer::Copy(text.data(), text.size());
  ASSERT_TRUE(frozen.ok());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(frozen->data()), frozen->size()), text);
  EXPECT_DEATH(const_cast<uint8_t*>(frozen->data())[0] = 'R', "");
}

}  // namespace
}  // namespace tunefarm::agent
