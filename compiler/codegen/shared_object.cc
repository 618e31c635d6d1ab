#include "compiler/codegen/shared_object.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

#include "absl/status/status.h"
#include "common/file_read.h"
#include "common/strings.h"
#include "common/temp_dir.h"
#include "lld/Common/Driver.h"
#include "llvm/Support/raw_ostream.h"

LLD_HAS_DRIVER(elf)

namespace tunefarm::codegen {
namespace {

bool WriteFile(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}


}  // namespace

absl::StatusOr<std::string> LinkSharedObject(std::string_view object) {
  absl::StatusOr<TempDir> dir = TempDir::Create("tunefarm-link");
  if (!dir.ok()) return absl::InternalError(dir.status().message());
  const std::string in = dir->File("kernel.o");
  const std::string out = dir->File("kernel.so");
  if (!WriteFile(in, object)) return absl::InternalError(StrCat("cannot write ", in));
  std::vector<const char*> args = {"ld.lld",      "-shared", "--build-id=none", "-z", "now",
                                   "-z",          "noexecstack", "--hash-style=both", "-o",
                                   out.c_str(),   in.c_str()};
  std::string out_text, err_text;
  llvm::raw_string_ostream out_stream(out_text), err_stream(err_text);
  lld::Result result;
  {
    static std::mutex link_mutex;  // lld keeps global state: one link at a time
    std::lock_guard<std::mutex> lock(link_mutex);
    result = lld::lldMain(args, out_stream, err_stream, {{lld::Gnu, &lld::elf::link}});
  }
  err_stream.flush();
  if (result.retCode != 0) return absl::InternalError(StrCat("lld failed: ", err_text));
  absl::StatusOr<std::string> bytes = ReadWholeFile(out, "linked kernel");
  if (!bytes.ok()) return absl::InternalError(bytes.status().message());
  return bytes;
}

}  // namespace tunefarm::codegen
