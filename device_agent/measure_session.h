// The measurements of one batch inside the tunefarm-measure helper. For each candidate: refuse
// a kernel for another machine before loading it, load it, give it fresh copies of the inputs
// and poisoned outputs (a prepared argument, e.g. weights in a tuned layout, made from its
// generated source by the library's own entry), run it, compare with the reference, and time it.
//
// What a batch shares is only what does not depend on a candidate and cannot be changed by
// one: the generated inputs and the reference's outputs, kept read-only (FrozenBuffer). The
// reference is loaded, run and unloaded during the first candidate that needs it (so that a
// reference that crashes is reported for that candidate, as before batching), and again after
// a fresh helper starts, unless an earlier helper saved its outputs (reference_outputs.h). Each candidate gets its own thread pool, buffers and workspace, and
// its library is unloaded by Unload(), which the helper calls after reporting the outcome (so
// that a library destructor cannot crash before the outcome is out).
#ifndef TUNEFARM_DEVICE_AGENT_MEASURE_SESSION_H_
#define TUNEFARM_DEVICE_AGENT_MEASURE_SESSION_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "deploy/aligned_buffer.h"
#include "deploy/kernel_library.h"
#include "deploy/thread_pool.h"
#include "device_agent/frozen_buffer.h"
#include "device_agent/measure_protocol.h"

namespace tunefarm::agent {

// A candidate whose untimed correctness run already took this many times the stop limit
// (MeasureSpec::stop_above_sec) is not timed: that run is its one cost.
inline constexpr double kUntimedStopFactor = 2;

class MeasureSession {
 public:
  // `report_stage` is called on entering each stage (kStage* in measure_protocol.h).
  MeasureSession(MeasureSpec spec, std::function<void(const char*)> report_stage);
  ~MeasureSession();  // Unload()

  // Measures one candidate. Its library stays loaded until Unload() or the next Measure().
  MeasureOutcome Measure(const CandidateJob& job);

  // Drops the candidate's library, thread pool and buffers.
  void Unload();

  // True once the reference's outputs are kept for the rest of the batch.
  bool reference_cached() const { return reference_ready_; }

 private:
  // A loaded entry with one buffer per argument and its workspace.
  struct Bound {
    std::unique_ptr<deploy::KernelLibrary> library;
    const deploy::EntryInfo* info = nullptr;
    tunefarm_kernel_fn fn = nullptr;
    std::vector<deploy::AlignedBuffer> buffers;  // fresh input copies and poisoned outputs
    deploy::AlignedBuffer workspace;
    std::vector<void*> args;
    deploy::ThreadPool* pool = nullptr;  // null: inline
  };

  // Each returns false after filling `outcome_`.
  bool CheckFiles();
  bool Load(const std::string& path, const std::string& entry, deploy::ThreadPool* pool,
            Bound* bound);
  bool CheckSameSignature(const std::vector<deploy::ArgInfo>& reference_args);
  std::vector<deploy::ArgInfo> SourceArgs(const Bound& bound) const;
  bool MakeInputs(const std::string& entry, const std::vector<deploy::ArgInfo>& args);
  bool Allocate(Bound* bound);
  bool Prepare(const Bound& bound, const std::string& entry, const FrozenBuffer& source, void* out);
  bool RunReference();
  bool RunOnce(Bound& bound, const char* what);
  void Compare();
  void Time();

  bool TooLarge(const std::string& what, const std::string& entry, uint64_t bytes);
  bool Fail(OutcomeKind kind, std::string message, int32_t kernel_code = 0);
  bool checking() const { return !spec_.reference_path.empty(); }

  const MeasureSpec spec_;
  std::function<void(const char*)> report_stage_;
  CandidateJob job_;
  MeasureOutcome outcome_;
  // The candidate's, dropped by Unload(). The pool is declared first, so that it outlives the
  // library whose kernels use it.
  std::unique_ptr<deploy::ThreadPool> pool_;
  Bound candidate_;
  // The batch's, one entry per argument (empty for arguments of the other role): the inputs
  // generated for the signature `input_args_`, and the reference's outputs once it has run.
  bool inputs_ready_ = false;
  std::vector<deploy::ArgInfo> input_args_;
  std::vector<FrozenBuffer> inputs_;
  bool reference_ready_ = false;
  std::vector<deploy::ArgInfo> reference_args_;
  std::vector<FrozenBuffer> reference_outputs_;
};

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_MEASURE_SESSION_H_
