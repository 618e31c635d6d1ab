#include "compiler/common/file_read.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "absl/status/status.h"
#include "compiler/common/strings.h"

namespace tunefarm {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

absl::StatusOr<std::string> ReadRegularFile(const std::string& path, uint64_t max_bytes, const std::string& what) {
  const std::string name = StrCat(what, " ", path);
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) {
    const int error = errno;
    if (error == ENOENT) return absl::NotFoundError(StrCat(name, ": no such file"));
    return absl::PermissionDeniedError(StrCat(name, ": ", std::strerror(error)));
  }
  if (S_ISDIR(info.st_mode)) return absl::InvalidArgumentError(StrCat(name, ": is a directory, not a file"));
  if (!S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(StrCat(name, ": not a regular file (a device, pipe or socket)"));
  }
  const auto size = static_cast<uint64_t>(info.st_size);
  if (size > max_bytes) {
    return absl::InvalidArgumentError(StrCat(name, ": ", size, " bytes, more than the ", max_bytes, " this accepts"));
  }
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) return absl::PermissionDeniedError(StrCat(name, ": cannot open: ", std::strerror(errno)));
  std::string bytes(size, '\0');
  const size_t read = size == 0 ? 0 : std::fread(bytes.data(), 1, size, file.get());
  if (read != size) {
    // The file shrank while being read, or the read failed.
    return absl::DataLossError(StrCat(name, ": read ", read, " of ", size, " bytes",
                                      std::ferror(file.get()) ? StrCat(": ", std::strerror(errno)) : std::string()));
  }
  return bytes;
}

}  // namespace tunefarm
