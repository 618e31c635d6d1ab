#include "deploy/artifact_checksum.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tunefarm::deploy {
namespace {

constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;
constexpr uint64_t kFnvPrime = 0x100000001b3ull;

uint64_t LoadLe64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void StoreLe64(uint64_t v, char* p) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

Status Corrupt(const std::string& name, const std::string& why) {
  return Status(StatusCode::kCorruptArtifact, name + ": corrupt or truncated artifact (" + why + ")");
}

}  // namespace

uint64_t Checksum64(const uint8_t* data, size_t size) {
  uint64_t h = kFnvOffset;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) h = (h ^ LoadLe64(data + i)) * kFnvPrime;
  if (i < size) {
    uint8_t tail[8] = {};
    std::memcpy(tail, data + i, size - i);
    h = (h ^ LoadLe64(tail)) * kFnvPrime;
  }
  return (h ^ static_cast<uint64_t>(size)) * kFnvPrime;
}

std::string AppendArtifactTrailer(std::string image) {
  const uint64_t length = image.size();
  const uint64_t sum = Checksum64(reinterpret_cast<const uint8_t*>(image.data()), image.size());
  char trailer[kArtifactTrailerBytes];
  StoreLe64(length, trailer);
  StoreLe64(sum, trailer + 8);
  std::memcpy(trailer + 16, kArtifactTrailerMagic, 8);
  image.append(trailer, kArtifactTrailerBytes);
  return image;
}

Status VerifyArtifactBytes(const uint8_t* data, size_t size, const std::string& name) {
  if (size < kArtifactTrailerBytes ||
      std::memcmp(data + size - 8, kArtifactTrailerMagic, 8) != 0) {
    return Corrupt(name, "no integrity trailer at its end; rebuild it with tunefarm compile");
  }
  const uint8_t* trailer = data + size - kArtifactTrailerBytes;
  const uint64_t covered = LoadLe64(trailer);
  if (covered != size - kArtifactTrailerBytes) {
    return Corrupt(name, "the trailer covers " + std::to_string(covered) + " bytes, the file holds " +
                             std::to_string(size - kArtifactTrailerBytes) + " before it");
  }
  if (Checksum64(data, covered) != LoadLe64(trailer + 8)) return Corrupt(name, "checksum mismatch");
  return Status();
}

Status VerifyArtifactFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    return Status(StatusCode::kLoadFailed, path + ": cannot open: " + std::strerror(error));
  }
  struct stat info {};
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    close(fd);
    return Status(StatusCode::kLoadFailed, path + ": not a regular file");
  }
  const auto size = static_cast<size_t>(info.st_size);
  if (size < kArtifactTrailerBytes) {
    close(fd);
    return Corrupt(path, std::to_string(size) + " bytes, too short to be one");
  }
  void* mapped = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int map_error = errno;
  close(fd);
  if (mapped == MAP_FAILED) return Status(StatusCode::kLoadFailed, path + ": cannot map: " + std::strerror(map_error));
  Status verified = VerifyArtifactBytes(static_cast<const uint8_t*>(mapped), size, path);
  munmap(mapped, size);
  return verified;
}

}  // namespace tunefarm::deploy
