// SHA-256 as lowercase hex (OpenSSL's implementation).
#pragma once

#include <string>
#include <string_view>

namespace tunefarm {

std::string Sha256Hex(std::string_view data);

}  // namespace tunefarm
