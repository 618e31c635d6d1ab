#include "common/file_read.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "absl/status/status.h"
#include "common/strings.h"

namespace tunefarm {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

using File = std::unique_ptr<std::FILE, FileCloser>;

absl::StatusOr<File> Open(const std::string& path, const std::string& name) {
  File file(std::fopen(path.c_str(), "rb"));
  if (file) return file;
  const int error = errno;
  if (error == ENOENT) return absl::NotFoundError(StrCat(name, ": no such file"));
  return absl::PermissionDeniedError(StrCat(name, ": cannot open: ", std::strerror(error)));
}

}  // namespace

absl::StatusOr<std::string> ReadWholeFile(const std::string& path, const std::string& what) {
  const std::string name = StrCat(what, " ", path);
  absl::StatusOr<File> file = Open(path, name);
  if (!file.ok()) return file.status();
  std::string bytes;
  char chunk[1 << 16];
  size_t read = 0;
  while ((read = std::fread(chunk, 1, sizeof chunk, file->get())) > 0) bytes.append(chunk, read);
  if (std::ferror(file->get())) return absl::DataLossError(StrCat(name, ": read failed: ", std::strerror(errno)));
  return bytes;
}

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
  absl::StatusOr<File> file = Open(path, name);
  if (!file.ok()) return file.status();
  std::string bytes(size, '\0');
  const size_t read = size == 0 ? 0 : std::fread(bytes.data(), 1, size, file->get());
  if (read != size) {
    // The file shrank while being read, or the read failed.
    return absl::DataLossError(StrCat(name, ": read ", read, " of ", size, " bytes",
                                      std::ferror(file->get()) ? StrCat(": ", std::strerror(errno)) : std::string()));
  }
  return bytes;
}

}  // namespace tunefarm
