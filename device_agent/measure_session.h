// One measurement inside the tunefarm-measure helper: refuse a kernel for another machine
// before loading it, load the candidate (and the reference), allocate and generate the inputs,
// poison the outputs, run the reference and the candidate, compare, and time the candidate.
// The session keeps the libraries loaded after Run(), so that the helper can report the
// outcome before any library destructor gets a chance to crash.
#ifndef TUNEFARM_DEVICE_AGENT_MEASURE_SESSION_H_
#define TUNEFARM_DEVICE_AGENT_MEASURE_SESSION_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "deploy/aligned_buffer.h"
#include "deploy/kernel_library.h"
#include "deploy/thread_pool.h"
#include "device_agent/measure_protocol.h"

namespace tunefarm::agent {

class MeasureSession {
 public:
  // `report_stage` is called on entering each stage (kStage* in measure_protocol.h).
  MeasureSession(MeasureSpec spec, std::function<void(const char*)> report_stage);

  MeasureOutcome Run();

 private:
  // A loaded entry with its argument buffers and workspace.
  struct Bound {
    std::unique_ptr<deploy::KernelLibrary> library;
    const deploy::EntryInfo* info = nullptr;
    tunefarm_kernel_fn fn = nullptr;
    std::vector<deploy::AlignedBuffer> outputs;  // one per "out" argument, in order
    deploy::AlignedBuffer workspace;
    std::vector<void*> args;
    deploy::ThreadPool* pool = nullptr;  // null: inline
  };

  // Each returns false after filling `outcome_`.
  bool CheckFiles();
  bool Load(const std::string& path, const std::string& entry, deploy::ThreadPool* pool,
            Bound* bound);
  bool CheckSameSignature();
  bool Allocate(Bound* bound, bool with_inputs);
  bool RunOnce(Bound& bound, const char* what);
  void Compare();
  void Time();

  bool Fail(OutcomeKind kind, std::string message, int32_t kernel_code = 0);
  bool checking() const { return !spec_.reference_path.empty(); }

  MeasureSpec spec_;
  std::function<void(const char*)> report_stage_;
  std::unique_ptr<deploy::ThreadPool> pool_;
  std::vector<deploy::AlignedBuffer> inputs_;  // shared by reference and candidate
  Bound candidate_;
  Bound reference_;
  MeasureOutcome outcome_;
};

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_MEASURE_SESSION_H_
