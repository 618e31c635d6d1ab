// The steps of a measurement (candidate_measurer.h) for kernel shared objects on this host's
// CPU: refuse an ELF for another machine before loading it, dlopen it, give the candidate fresh
// copies of the inputs (a prepared argument, e.g. weights in a tuned layout, made from its
// generated source by the library's own entry) and poisoned outputs, run it with its own
// thread pool, and time it with the host's clock. Its library is unloaded by Unload(), which
// the helper calls after reporting the outcome (so that a library destructor cannot crash
// before the outcome is out).
#ifndef TUNEFARM_DEVICE_AGENT_MEASURE_SESSION_H_
#define TUNEFARM_DEVICE_AGENT_MEASURE_SESSION_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "deploy/aligned_buffer.h"
#include "deploy/kernel_library.h"
#include "deploy/thread_pool.h"
#include "device_agent/batch_inputs.h"
#include "device_agent/candidate_measurer.h"
#include "device_agent/frozen_buffer.h"
#include "device_agent/measure_protocol.h"

namespace tunefarm::agent {

class MeasureSession final : public CandidateMeasurer {
 public:
  MeasureSession(MeasureSpec spec, std::function<void(const char*)> report_stage)
      : CandidateMeasurer(std::move(spec), std::move(report_stage)) {}
  ~MeasureSession() override;  // Unload()

  // Drops the candidate's library, thread pool and buffers.
  void Unload() override;

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

  bool CheckBeforeLoading() override;
  bool LoadCandidate() override;
  bool RunReference() override;
  bool AllocateCandidate() override;
  bool RunCandidate() override { return RunOnce(candidate_, "the candidate"); }
  bool CompareOutputs(Comparison* comparison) override;
  void Time() override;
  std::string ArgNote(size_t i) const override;

  // Each returns false after filling `outcome_`.
  bool Load(const std::string& path, const std::string& entry, deploy::ThreadPool* pool, Bound* bound);
  std::vector<deploy::ArgInfo> SourceArgs(const Bound& bound) const;
  bool MakeInputs(const std::string& entry, const std::vector<deploy::ArgInfo>& args);
  bool Allocate(Bound* bound);
  bool Prepare(const Bound& bound, const std::string& entry, const FrozenBuffer& source, void* out);
  bool RunOnce(Bound& bound, const char* what);
  bool TooLarge(const std::string& what, const std::string& entry, uint64_t bytes);

  // The candidate's, dropped by Unload(). The pool is declared first, so that it outlives the
  // library whose kernels use it.
  std::unique_ptr<deploy::ThreadPool> pool_;
  Bound candidate_;
};

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_MEASURE_SESSION_H_
