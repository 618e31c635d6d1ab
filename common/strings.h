// Small string helpers over std::string_view. (Debian's Abseil 20220623 has its own
// absl::string_view, which does not accept std::string_view, so absl::StrCat and friends are
// awkward here.)
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tunefarm {

namespace strings_internal {
inline void Append(std::string* out, std::string_view s) { out->append(s); }
inline void Append(std::string* out, const char* s) { out->append(s); }
inline void Append(std::string* out, const std::string& s) { out->append(s); }
inline void Append(std::string* out, char c) { out->push_back(c); }
template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
void Append(std::string* out, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    out->append(v ? "true" : "false");
  } else if constexpr (std::is_floating_point_v<T>) {
    out->append(std::to_string(v));
  } else {
    out->append(std::to_string(v));
  }
}
}  // namespace strings_internal

template <typename... Args>
std::string StrCat(const Args&... args) {
  std::string out;
  (strings_internal::Append(&out, args), ...);
  return out;
}

template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  (strings_internal::Append(out, args), ...);
}

template <typename Range>
std::string StrJoin(const Range& items, std::string_view sep) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out.append(sep);
    first = false;
    strings_internal::Append(&out, item);
  }
  return out;
}

// Splits on `sep`; keeps empty pieces unless skip_empty.
std::vector<std::string_view> StrSplit(std::string_view s, char sep, bool skip_empty = false);

inline bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

inline bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace tunefarm
