// libFuzzer target for the ONNX importer: any byte string must give a graph or a clean Status,
// never a crash, a sanitizer report, a leak or a hang. Run it with fuzz/run_fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include "compiler/frontend/onnx_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto g = tunefarm::frontend::ImportOnnxBytes(bytes, {}, "fuzz.onnx");
  if (!g.ok()) return 0;
  // An imported graph must also survive what every later stage does first: verify and print.
  // Import already verified it, so a failure here is an importer bug worth a crash.
  if (!g->Verify().ok()) __builtin_trap();
  std::string dump = g->Dump();
  if (dump.empty()) __builtin_trap();
  return 0;
}
