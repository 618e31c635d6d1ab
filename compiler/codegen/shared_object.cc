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
#include "compiler/common/strings.h"
#include "lld/Common/Driver.h"
#include "llvm/Support/raw_ostream.h"

LLD_HAS_DRIVER(elf)

namespace tunefarm::codegen {
namespace {

// A mkdtemp directory removed (with the files this code puts in it) on destruction.
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = StrCat(tmp && *tmp ? tmp : "/tmp", "/tunefarm-link-XXXXXX");
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) != nullptr) path_ = buf.data();
  }
  ~TempDir() {
    if (path_.empty()) return;
    for (const char* name : {"kernel.o", "kernel.so"}) unlink(File(name).c_str());
    rmdir(path_.c_str());
  }
  bool ok() const { return !path_.empty(); }
  std::string File(const char* name) const { return StrCat(path_, "/", name); }

 private:
  std::string path_;
};

bool WriteFile(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

bool ReadFile(const std::string& path, std::string* bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *bytes = ss.str();
  return true;
}

}  // namespace

absl::StatusOr<std::string> LinkSharedObject(std::string_view object) {
  TempDir dir;
  if (!dir.ok()) return absl::InternalError(StrCat("cannot create a link directory: ", std::strerror(errno)));
  const std::string in = dir.File("kernel.o");
  const std::string out = dir.File("kernel.so");
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
  std::string bytes;
  if (!ReadFile(out, &bytes)) return absl::InternalError(StrCat("cannot read ", out));
  return bytes;
}

}  // namespace tunefarm::codegen
