// What the agent tells the tunefarm-measure helper and what the helper reports back. Shared by
// both sides; the helper links neither gRPC nor protobuf, so these are plain structs.
//
// One helper serves one Measure call (a batch): its command line carries the batch's settings
// (MeasureSpec), and the candidates arrive one at a time on its stdin as job lines
// {"kernel":PATH,"entry":NAME}. For each job the helper writes, on an inherited pipe, one line
// {"stage":"..."} as it enters each stage, then one line {"outcome":...}. A helper that crashes
// or hangs leaves no outcome; its last stage tells the agent where it was ("run" = the
// candidate was running). A helper that finds its process changed by a candidate writes
// {"retire":REASON} after that candidate's outcome and exits, and the agent starts a fresh one.
#ifndef TUNEFARM_DEVICE_AGENT_MEASURE_PROTOCOL_H_
#define TUNEFARM_DEVICE_AGENT_MEASURE_PROTOCOL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deploy/status.h"

namespace tunefarm::agent {

// The settings of one batch of candidates.
struct MeasureSpec {
  std::string reference_path;   // empty: no correctness check
  std::string reference_entry;
  std::string reference_outputs_path;  // where the reference's outputs are saved; empty: nowhere
  int32_t number = 1;
  int32_t repeat = 1;
  int32_t min_repeat_ms = 0;
  double stop_above_sec = 0;    // a first repeat slower than this per run ends the timing; 0: never
  int32_t threads = 1;          // thread pool size of the candidate (the reference runs inline)
  bool flush_cache = false;     // evict inputs and parameters from the caches before each run
  uint64_t seed = 0;
  double atol = 0;
  double rtol = 0;
  int64_t memory_limit_bytes = 0;  // RLIMIT_AS; 0: none
  int64_t cpu_limit_sec = 0;       // RLIMIT_CPU soft limit per candidate; 0: none
  int64_t batch_cpu_limit_sec = 0; // RLIMIT_CPU hard limit for the whole helper; 0: none
  int result_fd = 3;
  // Empty: the kernels are shared objects for this host's CPU. "cuda:N": PTX libraries for
  // CUDA device N, run through the driver library `cuda_driver` (normally libcuda.so.1).
  std::string device;
  std::string cuda_driver = "libcuda.so.1";
};

// One candidate of the batch.
struct CandidateJob {
  std::string kernel_path;
  std::string entry;
};

std::string JobLine(const CandidateJob& job);  // with its '\n'
// Errors (kInvalidArgument) say what is wrong with the line.
deploy::Result<CandidateJob> ParseJobLine(std::string_view line);

// Command-line arguments (after argv[0]) that ParseMeasureArgs turns back into `spec`.
std::vector<std::string> MeasureArgs(const MeasureSpec& spec);
// Errors (kInvalidArgument) name the argument at fault.
deploy::Result<MeasureSpec> ParseMeasureArgs(int argc, const char* const* argv);

enum class OutcomeKind {
  kOk,
  kLoadError,     // refused before loading, or the loader failed
  kRuntimeError,  // a kernel returned non-zero (kernel_code)
  kWrongResult,
  kOutOfMemory,   // buffers or workspace do not fit within the memory limit
  kBadRequest,    // the helper's own arguments were wrong (an agent bug)
};

const char* OutcomeKindName(OutcomeKind kind);

struct MeasureOutcome {
  OutcomeKind kind = OutcomeKind::kOk;
  int32_t kernel_code = 0;
  std::string message;
  bool checked = false;  // compared against a reference
  bool correct = false;
  double max_abs_error = 0;
  double max_rel_error = 0;
  int32_t number = 0;
  std::vector<double> costs_sec;
};

// Stage names, in order.
inline constexpr char kStageCheck[] = "check";          // reading ELF headers
inline constexpr char kStageLoad[] = "load";            // dlopen and binding
inline constexpr char kStageAllocate[] = "allocate";    // buffers and inputs
inline constexpr char kStageReference[] = "reference";  // running the reference kernel
inline constexpr char kStageRun[] = "run";              // the candidate's checked run
inline constexpr char kStageTime[] = "time";            // the timed runs

std::string StageLine(std::string_view stage);   // with its '\n'
std::string OutcomeLine(const MeasureOutcome& outcome);
std::string RetireLine(std::string_view reason);

// Everything the helper wrote, parsed.
struct HelperReport {
  std::string last_stage;                 // empty when none was reported
  std::optional<MeasureOutcome> outcome;  // absent when the helper died first
  std::string retired;                    // the reason of a {"retire"} line, if any
  std::string error;                      // a line that did not parse, if any
};
HelperReport ParseHelperReport(std::string_view text);

// The position just after the first complete outcome line in `text`, or npos: where one
// candidate's report ends and the next one's begins.
size_t OutcomeEnd(std::string_view text);

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_MEASURE_PROTOCOL_H_
