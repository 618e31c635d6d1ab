// The measurements of one batch on a CUDA GPU, inside the tunefarm-measure helper (docs/gpu.md
// "GPU agent"). For each candidate: read its PTX library and refuse one for a newer GPU before
// the driver sees it, load the module and bind the entry's launches (checked against the
// device's limits), run the reference once per batch on the same inputs, give the candidate
// fresh device copies of the inputs and poisoned outputs, run it, copy its outputs back and
// compare them on the host, then time its launches with CUDA events.
//
// A kernel that faults (an illegal address, a trap, a launch failure) loses the process's CUDA
// context: the candidate is reported as a runtime error naming the driver's error, and the
// helper retires (RetireReason), so the next candidate gets a fresh process and context. The
// agent itself never touches a context, so no kernel can take it down.
#ifndef TUNEFARM_DEVICE_AGENT_GPU_MEASURE_SESSION_H_
#define TUNEFARM_DEVICE_AGENT_GPU_MEASURE_SESSION_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "deploy/cuda_device.h"
#include "deploy/ptx_library.h"
#include "device_agent/batch_inputs.h"
#include "device_agent/candidate_measurer.h"
#include "device_agent/frozen_buffer.h"
#include "device_agent/measure_protocol.h"

namespace tunefarm::agent {

class GpuMeasureSession final : public CandidateMeasurer {
 public:
  // `spec.device` names the GPU ("cuda:N") and `spec.cuda_driver` the driver library; both are
  // opened at the first candidate, so that a missing driver is that candidate's load error.
  GpuMeasureSession(MeasureSpec spec, std::function<void(const char*)> report_stage)
      : CandidateMeasurer(std::move(spec), std::move(report_stage)) {}
  ~GpuMeasureSession() override { Unload(); }

  void Unload() override { candidate_ = Bound(); }
  std::string RetireReason() const override { return retire_reason_; }

 private:
  // A loaded entry with one device buffer per argument and its workspace.
  struct Bound {
    std::shared_ptr<deploy::cuda::Module> module;  // held by libraries_ too
    deploy::EntryInfo info;
    std::unique_ptr<deploy::cuda::EntryLaunches> launches;
    std::vector<deploy::cuda::DeviceBuffer> buffers;
    deploy::cuda::DeviceBuffer workspace;
    std::vector<deploy::cuda::CUdeviceptr> args;
  };

  bool CheckBeforeLoading() override { return OpenDevice(); }  // the files are read by Load
  bool LoadCandidate() override { return Load(job_.kernel_path, job_.entry, &candidate_); }
  bool RunReference() override;
  bool AllocateCandidate() override { return Allocate(&candidate_); }
  bool RunCandidate() override { return RunOnce(candidate_, "the candidate"); }
  bool CompareOutputs(Comparison* comparison) override;
  void Time() override;

  // Each returns false after filling `outcome_`.
  bool OpenDevice();
  struct LoadedLibrary;
  // Sets `loaded` to the library at `path`, read and JIT-loaded unless this helper has it.
  bool LoadLibrary(const std::string& path, const LoadedLibrary** loaded);
  bool Load(const std::string& path, const std::string& entry, Bound* bound);
  bool Allocate(Bound* bound);
  bool RunOnce(Bound& bound, const char* what);
  // Fills `outcome_` from a failed driver call: kOutOfMemory, or a runtime error (and the helper
  // retires when the context is lost), or `kind` for the rest.
  bool FailWith(const deploy::Status& status, OutcomeKind kind);

  std::unique_ptr<deploy::cuda::Context> context_;     // opened at the first candidate
  std::unique_ptr<deploy::cuda::DeviceBuffer> flush_;  // overwritten to flush the L2 cache
  std::string retire_reason_;
  // Libraries read and JIT-loaded by this helper, oldest first.
  struct LoadedLibrary {
    std::string path;
    deploy::PtxLibrary library;
    std::shared_ptr<deploy::cuda::Module> module;
  };
  static constexpr size_t kKeptLibraries = 3;
  std::vector<LoadedLibrary> libraries_;
  Bound candidate_;
};

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_GPU_MEASURE_SESSION_H_
