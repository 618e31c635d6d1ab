#include "proto/token_gate.h"

#include <grpc/grpc.h>
#include <grpc/grpc_security.h>

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "proto/auth.h"
#include "proto/refusal_log.h"

namespace tunefarm::wire {
namespace {

constexpr std::string_view kHealthService = "/grpc.health.v1.Health/";

std::string_view View(const grpc_slice& slice) {
  return {reinterpret_cast<const char*>(GRPC_SLICE_START_PTR(slice)), GRPC_SLICE_LENGTH(slice)};
}

// gRPC core calls this for each call on the port, with the call's metadata (":path" included).
// Non-blocking: the verdict is given before it returns.
void CheckCall(void* state, grpc_auth_context* /*context*/, const grpc_metadata* md, size_t num_md,
               grpc_process_auth_metadata_done_cb done, void* user_data) {
  const std::string& token = *static_cast<const std::string*>(state);
  std::vector<std::pair<std::string_view, std::string_view>> metadata;
  metadata.reserve(num_md);
  std::string_view path;
  for (size_t i = 0; i < num_md; ++i) {
    metadata.emplace_back(View(md[i].key), View(md[i].value));
    if (metadata.back().first == ":path") path = metadata.back().second;
  }
  if (std::optional<std::string> why = TokenRefusal(path, metadata, token)) {
    LogRefusal(path, *why);
    done(user_data, nullptr, 0, nullptr, 0, GRPC_STATUS_UNAUTHENTICATED, why->c_str());
    return;
  }
  done(user_data, nullptr, 0, nullptr, 0, GRPC_STATUS_OK, nullptr);
}

void DestroyToken(void* state) { delete static_cast<std::string*>(state); }

}  // namespace

std::optional<std::string> TokenRefusal(std::string_view path,
                                        const std::vector<std::pair<std::string_view, std::string_view>>& metadata,
                                        std::string_view expected) {
  if (path.substr(0, kHealthService.size()) == kHealthService) return std::nullopt;
  const std::string_view* given = nullptr;
  for (const auto& [key, value] : metadata) {
    if (key != kTokenMetadataKey) continue;
    // Exactly one entry: a second one would let a caller probe with several guesses at once.
    if (given != nullptr) return absl::StrCat("more than one ", kTokenMetadataKey, " entry");
    given = &value;
  }
  if (given == nullptr) return absl::StrCat("missing ", kTokenMetadataKey, " metadata");
  if (expected.empty() || !ConstantTimeEquals(*given, expected)) return absl::StrCat("wrong ", kTokenMetadataKey);
  return std::nullopt;
}

TokenGatedCredentials::TokenGatedCredentials(grpc_server_credentials* core, std::string token) : core_(core) {
  grpc_server_credentials_set_auth_metadata_processor(
      core_, grpc_auth_metadata_processor{CheckCall, DestroyToken, new std::string(std::move(token))});
}

TokenGatedCredentials::~TokenGatedCredentials() { grpc_server_credentials_release(core_); }

void TokenGatedCredentials::SetAuthMetadataProcessor(const std::shared_ptr<grpc::AuthMetadataProcessor>&) {
  std::fprintf(stderr, "tunefarm: another auth metadata processor was refused: the token check stays\n");
}

int TokenGatedCredentials::AddPortToServer(const std::string& addr, grpc_server* server) {
  return grpc_server_add_http2_port(server, addr.c_str(), core_);
}

}  // namespace tunefarm::wire
