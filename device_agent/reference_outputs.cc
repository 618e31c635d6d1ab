#include "device_agent/reference_outputs.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace tunefarm::agent {
namespace {

constexpr char kMagic[8] = {'T', 'F', 'R', 'E', 'F', 'O', '0', '1'};

uint64_t OutputBytes(const deploy::ArgInfo& arg) {
  return arg.role == deploy::ArgRole::kOut ? static_cast<uint64_t>(arg.NumBytes()) : 0;
}

void PutU64(std::ofstream& out, uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
  out.write(reinterpret_cast<const char*>(b), 8);
}

bool GetU64(std::ifstream& in, uint64_t* v) {
  unsigned char b[8];
  if (!in.read(reinterpret_cast<char*>(b), 8)) return false;
  *v = 0;
  for (int i = 0; i < 8; ++i) *v |= static_cast<uint64_t>(b[i]) << (8 * i);
  return true;
}

}  // namespace

void SaveReferenceOutputs(const std::string& path, uint64_t seed, const std::vector<deploy::ArgInfo>& args,
                          const std::vector<FrozenBuffer>& outputs) {
  if (path.empty() || outputs.size() != args.size()) return;
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(kMagic, sizeof kMagic);
    PutU64(out, seed);
    PutU64(out, args.size());
    for (const deploy::ArgInfo& arg : args) PutU64(out, OutputBytes(arg));
    for (size_t i = 0; i < args.size(); ++i) {
      if (OutputBytes(args[i]) != outputs[i].size()) {
        out.setstate(std::ios::failbit);
        break;
      }
      out.write(reinterpret_cast<const char*>(outputs[i].data()), static_cast<std::streamsize>(outputs[i].size()));
    }
    out.flush();
    if (!out) {
      std::remove(temporary.c_str());
      return;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) std::remove(temporary.c_str());
}

std::optional<std::vector<FrozenBuffer>> LoadReferenceOutputs(const std::string& path, uint64_t seed,
                                                              const std::vector<deploy::ArgInfo>& args) {
  if (path.empty()) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  char magic[sizeof kMagic];
  uint64_t saved_seed = 0, count = 0;
  if (!in.read(magic, sizeof magic) || std::string(magic, sizeof magic) != std::string(kMagic, sizeof kMagic) ||
      !GetU64(in, &saved_seed) || saved_seed != seed || !GetU64(in, &count) || count != args.size()) {
    return std::nullopt;
  }
  for (const deploy::ArgInfo& arg : args) {
    uint64_t bytes = 0;
    if (!GetU64(in, &bytes) || bytes != OutputBytes(arg)) return std::nullopt;
  }
  std::vector<FrozenBuffer> outputs(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const uint64_t bytes = OutputBytes(args[i]);
    if (bytes == 0) continue;
    bool read = false;
    deploy::Result<FrozenBuffer> buffer = FrozenBuffer::Make(static_cast<size_t>(bytes), [&](void* data) {
      read = static_cast<bool>(in.read(static_cast<char*>(data), static_cast<std::streamsize>(bytes)));
    });
    if (!buffer.ok() || !read) return std::nullopt;
    outputs[i] = std::move(buffer).value();
  }
  // Exactly the bytes the header promised: nothing after them.
  if (in.peek() != std::ifstream::traits_type::eof()) return std::nullopt;
  return outputs;
}

}  // namespace tunefarm::agent
