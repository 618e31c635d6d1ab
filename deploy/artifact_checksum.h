// The integrity trailer of a model artifact: a damaged file is refused before dlopen.
//
// A truncated or bit-flipped shared object crashed dlopen (SIGSEGV, SIGILL) or, cut at 90%,
// loaded and ran with garbage weights. `tunefarm compile` appends 24 bytes after the ELF image
// (the loader never reads past its program headers' ranges):
//
//   u64 LE  covered length   (bytes before the trailer)
//   u64 LE  checksum         (Checksum64 of those bytes)
//   8 bytes "TFSUM001"
//
// The checksum guards against damage (truncation, flipped bits, a partial copy), not against
// tampering: whoever can rewrite the file can rewrite the trailer. It is FNV-1a over 64-bit
// words, so that checking 50 MB of weights takes milliseconds and needs no library on the
// device. See docs/model-artifact.md.
#ifndef TUNEFARM_DEPLOY_ARTIFACT_CHECKSUM_H_
#define TUNEFARM_DEPLOY_ARTIFACT_CHECKSUM_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "deploy/status.h"

namespace tunefarm::deploy {

inline constexpr size_t kArtifactTrailerBytes = 24;
inline constexpr char kArtifactTrailerMagic[9] = "TFSUM001";

// FNV-1a over little-endian 64-bit words (the last one zero-padded), then mixed with the length.
uint64_t Checksum64(const uint8_t* data, size_t size);

// `image` followed by its trailer.
std::string AppendArtifactTrailer(std::string image);

// OK when `data` ends in a trailer that covers exactly the rest and whose checksum matches;
// otherwise kCorruptArtifact naming `name` and what failed.
Status VerifyArtifactBytes(const uint8_t* data, size_t size, const std::string& name);

// Maps the file read-only and verifies it (no copy of the file is made).
Status VerifyArtifactFile(const std::string& path);

}  // namespace tunefarm::deploy

#endif  // TUNEFARM_DEPLOY_ARTIFACT_CHECKSUM_H_
