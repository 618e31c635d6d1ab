// The embedded local farm of `tunefarm tune` without --tracker: a tracker and one agent of
// this machine, both on loopback in this process, with a token made for this run only. The
// agent measures in its tunefarm-measure helper (next to the tunefarm executable), exactly as
// a separate `tunefarm agent` would; destroying the farm unregisters and stops both.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace tunefarm::cli {

class EmbeddedFarm {
 public:
  // Starts both and waits until the agent is registered under `key`. `measure_helper`: the
  // tunefarm-measure executable; empty: the one next to this executable.
  // `agents` > 1 starts that many agents on this machine (for benchmarks of the farm: they
  // share its cores, so their timings disturb each other).
  static absl::StatusOr<std::unique_ptr<EmbeddedFarm>> Start(const std::string& key,
                                                            const std::string& measure_helper = "",
                                                            int agents = 1);
  ~EmbeddedFarm();

  const std::string& tracker_address() const { return tracker_address_; }
  const std::string& token() const { return token_; }
  const std::string& agent_address() const { return agent_address_; }  // the first agent's

 private:
  struct Servers;
  EmbeddedFarm() = default;

  std::unique_ptr<Servers> servers_;
  std::string tracker_address_, token_, agent_address_;
};

}  // namespace tunefarm::cli
