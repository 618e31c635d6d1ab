// Internal to db/: string concatenation that takes std::string_view.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace tunefarm::db::internal {

// Debian's Abseil is built with its own absl::string_view (not std's), which
// absl::StrCat will not take from a std::string_view; this bridges the two.
template <typename T>
decltype(auto) CatArg(const T& value) {
  if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    std::string_view view = value;
    return absl::string_view(view.data(), view.size());
  } else {
    return (value);
  }
}

template <typename... Args>
std::string Cat(const Args&... args) {
  return absl::StrCat(CatArg(args)...);
}

}  // namespace tunefarm::db::internal
