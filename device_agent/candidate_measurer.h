// The measurement of one candidate inside the tunefarm-measure helper, whatever runs it: check
// the kernel before loading it, load it, run the batch's reference once, give the candidate
// fresh inputs and poisoned outputs, run it, compare its outputs with the reference's, and time
// it. The steps are the device's: MeasureSession for shared objects on this host's CPU,
// GpuMeasureSession for PTX on a CUDA GPU.
//
// What a batch shares is only what does not depend on a candidate and cannot be changed by
// one: the generated inputs and the reference's outputs, kept read-only (FrozenBuffer). The
// reference is loaded, run and unloaded during the first candidate that needs it (so that a
// reference that crashes is reported for that candidate), and again after a fresh helper
// starts, unless an earlier helper saved its outputs (reference_outputs.h).
#ifndef TUNEFARM_DEVICE_AGENT_CANDIDATE_MEASURER_H_
#define TUNEFARM_DEVICE_AGENT_CANDIDATE_MEASURER_H_

#include <functional>
#include <string>
#include <vector>

#include "deploy/kernel_metadata.h"
#include "device_agent/batch_inputs.h"
#include "device_agent/frozen_buffer.h"
#include "device_agent/measure_protocol.h"
#include "device_agent/output_compare.h"

namespace tunefarm::agent {

// A candidate whose untimed correctness run already took this many times the stop limit
// (MeasureSpec::stop_above_sec) is not timed: that run is its one cost.
inline constexpr double kUntimedStopFactor = 2;

class CandidateMeasurer {
 public:
  // `report_stage` is called on entering each stage (kStage* in measure_protocol.h).
  CandidateMeasurer(MeasureSpec spec, std::function<void(const char*)> report_stage)
      : spec_(std::move(spec)), report_stage_(std::move(report_stage)) {}
  virtual ~CandidateMeasurer() = default;

  // Measures one candidate; its kernels stay loaded until Unload() or the next Measure().
  MeasureOutcome Measure(const CandidateJob& job);
  // Drops what the last candidate loaded and allocated.
  virtual void Unload() = 0;
  // Non-empty when this process must not measure another candidate (the helper retires with
  // this reason and the agent starts a fresh one), e.g. a GPU context lost to a bad kernel.
  virtual std::string RetireReason() const { return ""; }
  // True once the reference's outputs are kept for the rest of the batch.
  bool reference_cached() const { return reference_ready_; }

 protected:
  // The device's steps for `job_`; each returns false after filling `outcome_` (Fail).
  virtual bool CheckBeforeLoading() = 0;
  virtual bool LoadCandidate() = 0;
  // Sets the reference_* members below (from a saved file or by running the reference).
  virtual bool RunReference() = 0;
  virtual bool AllocateCandidate() = 0;
  virtual bool RunCandidate() = 0;
  // Adds each of the candidate's outputs to `comparison` (CompareOutput with spec_'s tolerances).
  virtual bool CompareOutputs(Comparison* comparison) = 0;
  // Fills outcome_.number and costs_sec, or fails.
  virtual void Time() = 0;

  bool Fail(OutcomeKind kind, std::string message, int32_t kernel_code = 0);
  bool checking() const { return !spec_.reference_path.empty(); }
  // Fails unless the candidate's arguments (`mine`, sources in place of prepared ones) and the
  // reference's (`theirs`) agree in number, dtype, shape and role.
  bool CheckSameSignature(const std::vector<deploy::ArgInfo>& mine, const std::vector<deploy::ArgInfo>& theirs);
  // What a signature mismatch adds after the candidate's argument `i` (e.g. that it stands for
  // a prepared argument).
  virtual std::string ArgNote(size_t /*i*/) const { return ""; }

  const MeasureSpec spec_;
  std::function<void(const char*)> report_stage_;
  CandidateJob job_;
  MeasureOutcome outcome_;
  // The batch's, one entry per argument (empty for arguments of the other role): the generated
  // inputs, and the reference's outputs once it has run.
  BatchInputs inputs_;
  bool reference_ready_ = false;
  std::vector<deploy::ArgInfo> reference_args_;
  std::vector<FrozenBuffer> reference_outputs_;
};

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_CANDIDATE_MEASURER_H_
