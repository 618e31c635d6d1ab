// What every candidate of a batch shares, whichever device runs it: the inputs generated for
// the entry's signature (remade only when a candidate's signature differs), and the words in
// which a measurement names an argument or a value.
#ifndef TUNEFARM_DEVICE_AGENT_BATCH_INPUTS_H_
#define TUNEFARM_DEVICE_AGENT_BATCH_INPUTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "deploy/kernel_metadata.h"
#include "device_agent/frozen_buffer.h"

namespace tunefarm::agent {

std::string Quoted(const std::string& text);             // "\"text\""
std::string ArgText(const deploy::ArgInfo& arg);          // "x float32[4,8] in"
std::string NumberText(double value);                     // %g
bool SameArg(const deploy::ArgInfo& a, const deploy::ArgInfo& b);  // dtype, shape and role

class BatchInputs {
 public:
  // The generated inputs for `args` (one buffer per argument, empty for outputs), kept from
  // the last call when `args` generate the same values. -1 when they are ready; otherwise the
  // index of the argument that could not be allocated (kept inputs are dropped).
  int Make(const std::vector<deploy::ArgInfo>& args, uint64_t seed);

  const FrozenBuffer& operator[](size_t i) const { return inputs_[i]; }

 private:
  bool ready_ = false;
  std::vector<deploy::ArgInfo> args_;
  std::vector<FrozenBuffer> inputs_;
};

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_BATCH_INPUTS_H_
