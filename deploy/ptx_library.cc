#include "deploy/ptx_library.h"

#include <cctype>

#include "deploy/tunefarm_abi.h"

namespace tunefarm::deploy {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The word after the directive `directive` at the start of a line, or empty.
std::string_view WordAfter(std::string_view text, std::string_view directive) {
  for (size_t at = text.find(directive); at != std::string_view::npos; at = text.find(directive, at + 1)) {
    if (at != 0 && text[at - 1] != '\n') continue;
    size_t begin = at + directive.size();
    if (begin >= text.size() || !IsSpace(text[begin])) continue;
    while (begin < text.size() && IsSpace(text[begin])) ++begin;
    size_t end = begin;
    while (end < text.size() && !IsSpace(text[end]) && text[end] != ',' && text[end] != ';') ++end;
    return text.substr(begin, end - begin);
  }
  return {};
}

// The initializer of global `name`: what follows "name" (and "[N]") up to ';', or npos.
size_t InitializerOf(std::string_view text, std::string_view name) {
  for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const size_t line = text.rfind('\n', at);
    const size_t line_start = line == std::string_view::npos ? 0 : line + 1;
    if (text.substr(line_start, at - line_start).find(".global") == std::string_view::npos) continue;
    size_t p = at + name.size();
    if (p < text.size() && text[p] == '[') {
      p = text.find(']', p);
      if (p == std::string_view::npos) return p;
      ++p;
    }
    while (p < text.size() && IsSpace(text[p])) ++p;
    if (p < text.size() && text[p] == '=') return p + 1;
  }
  return std::string_view::npos;
}

// Decodes "{123, 34, ...}" (LLVM leaves out the trailing zeros) into bytes; false if malformed.
bool DecodeBytes(std::string_view text, size_t at, std::string* out) {
  while (at < text.size() && IsSpace(text[at])) ++at;
  if (at >= text.size() || text[at] != '{') return false;
  ++at;
  int value = -1;
  for (; at < text.size(); ++at) {
    const char c = text[at];
    if (c >= '0' && c <= '9') {
      value = (value < 0 ? 0 : value * 10) + (c - '0');
      if (value > 255) return false;
    } else if (c == ',' || c == '}') {
      if (value < 0) return false;
      out->push_back(static_cast<char>(value));
      value = -1;
      if (c == '}') return true;
    } else if (!IsSpace(c)) {
      return false;
    }
  }
  return false;
}

}  // namespace

int32_t SmVersion(std::string_view arch) {
  if (arch.substr(0, 3) != "sm_" || arch.size() < 5) return -1;
  std::string_view digits = arch.substr(3);
  if (digits.back() == 'a') digits.remove_suffix(1);
  int32_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9' || value > 10000) return -1;
    value = value * 10 + (c - '0');
  }
  return digits.size() >= 2 ? value : -1;
}

Result<PtxLibrary> ReadPtxLibrary(std::string_view ptx) {
  PtxLibrary library;
  if (WordAfter(ptx, ".version").empty() || WordAfter(ptx, ".target").empty()) {
    return Status(StatusCode::kLoadFailed, "not PTX: no .version and .target directives");
  }
  library.arch = std::string(WordAfter(ptx, ".target"));
  if (SmVersion(library.arch) < 0) {
    return Status(StatusCode::kLoadFailed, "PTX for \"" + library.arch + "\", which is no GPU architecture of the form sm_NN");
  }
  const size_t version = InitializerOf(ptx, TUNEFARM_SYM_ABI_VERSION);
  if (version == std::string_view::npos) {
    return Status(StatusCode::kAbiMismatch, "PTX without " TUNEFARM_SYM_ABI_VERSION ": not a tunefarm kernel library");
  }
  library.abi_version = 0;
  for (size_t p = version; p < ptx.size() && ptx[p] != ';'; ++p) {
    if (ptx[p] >= '0' && ptx[p] <= '9') library.abi_version = library.abi_version * 10 + (ptx[p] - '0');
  }
  if (library.abi_version != TUNEFARM_ABI_VERSION) {
    return Status(StatusCode::kAbiMismatch, "PTX library of ABI version " + std::to_string(library.abi_version) +
                                                ", this runtime reads " + std::to_string(TUNEFARM_ABI_VERSION));
  }
  std::string json;
  const size_t metadata = InitializerOf(ptx, TUNEFARM_SYM_METADATA);
  if (metadata == std::string_view::npos || !DecodeBytes(ptx, metadata, &json)) {
    return Status(StatusCode::kBadMetadata, "PTX library without a byte-array " TUNEFARM_SYM_METADATA);
  }
  if (const size_t nul = json.find('\0'); nul != std::string::npos) json.resize(nul);
  Result<KernelMetadata> parsed = ParseKernelMetadata(json);
  if (!parsed.ok()) return parsed.status();
  library.metadata = std::move(parsed).value();
  return library;
}

}  // namespace tunefarm::deploy
