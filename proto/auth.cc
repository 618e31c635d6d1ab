#include "proto/auth.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/file_read.h"
#include "proto/host_port.h"

namespace tunefarm::wire {

absl::StatusOr<std::string> LoadToken(std::string_view token_file) {
  std::string token;
  if (!token_file.empty()) {
    const std::string path(token_file);
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) {
      return absl::NotFoundError(
          absl::StrCat("token file ", path, ": ", std::strerror(errno)));
    }
    if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
      return absl::PermissionDeniedError(absl::StrCat(
          "token file ", path, " is accessible by group or others; run: chmod 600 ", path));
    }
    absl::StatusOr<std::string> text = ReadWholeFile(path, "token file");
    if (!text.ok()) return text.status();
    token = *std::move(text);
    absl::StripAsciiWhitespace(&token);
    if (token.empty()) return absl::InvalidArgumentError(absl::StrCat("token file ", path, " is empty"));
    return token;
  }
  const char* env = std::getenv(kTokenEnvVar);
  if (env != nullptr) token = env;
  absl::StripAsciiWhitespace(&token);
  if (token.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("no token: pass --token-file FILE or set ", kTokenEnvVar));
  }
  return token;
}

absl::Status CheckServerToken(std::string_view token, std::string_view listen_host, std::string* warning) {
  warning->clear();
  if (token.size() >= kMinServerTokenBytes) return absl::OkStatus();
  const std::string advice = absl::StrCat(
      "use at least ", kMinServerTokenBytes, " bytes, e.g. head -c 24 /dev/urandom | base64 > token && chmod 600 token");
  if (IsLoopbackHost(listen_host)) {
    *warning = absl::StrCat("warning: the token is only ", token.size(), " bytes (fine on loopback; ", advice, ")");
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("the token is only ", token.size(), " bytes, too short for a server on ",
                                                 listen_host.empty() ? std::string("every interface") : std::string(listen_host), ": ", advice));
}

void AddToken(grpc::ClientContext& context, std::string_view token) {
  context.AddMetadata(kTokenMetadataKey, std::string(token));
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  // Runs over b (the expected token) whatever a is, so timing reveals neither content nor
  // where the first mismatch is; the length difference is folded in at the end.
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < b.size(); ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    diff |= x ^ static_cast<unsigned char>(b[i]);
  }
  return diff == 0;
}

}  // namespace tunefarm::wire
