// TLS on the tracker: certificates made with the openssl command for each test.
#include <unistd.h>

#include <gtest/gtest.h>

#include "proto/credentials.h"
#include "proto/tracker_client.h"
#include "tests/farm/child_process.h"
#include "tracker/tracker_server.h"

namespace tunefarm::tracker {
namespace {

using namespace std::chrono_literals;
constexpr char kToken[] = "tls-token";
constexpr char kOpenssl[] = "/usr/bin/openssl";

class FarmTls : public ::testing::Test {
 protected:
  void SetUp() override {
    // scripts/setup.sh installs the openssl command; without it these tests would not run at all.
    ASSERT_EQ(access(kOpenssl, X_OK), 0) << "needs " << kOpenssl << " to make certificates (scripts/setup.sh installs it)";
    cert_ = dir_.path() + "/cert.pem";
    key_ = dir_.path() + "/key.pem";
    // One self-signed certificate serves as CA, server identity and client identity.
    auto openssl = testing::ChildProcess::Spawn(
        {kOpenssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", key_, "-out", cert_, "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"});
    ASSERT_TRUE(openssl.ok()) << openssl.status();
    ASSERT_EQ((*openssl)->Wait(20s).value_or(-1), 0) << "openssl req failed";
  }

  std::unique_ptr<TrackerServer> StartServer(bool require_client_cert) {
    TrackerServerOptions options;
    options.host = "127.0.0.1";
    options.token = kToken;
    options.tls = {cert_, key_, require_client_cert ? cert_ : ""};
    absl::StatusOr<std::unique_ptr<TrackerServer>> server = TrackerServer::Start(options);
    EXPECT_TRUE(server.ok()) << server.status();
    return server.ok() ? std::move(*server) : nullptr;
  }

  absl::Status List(const TrackerServer& server, const wire::TlsFiles& tls,
                    const std::string& token = kToken) {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = wire::MakeChannel(server.address(), tls);
    if (!channel.ok()) return channel.status();
    wire::TrackerClient client(*channel, token, 3s);
    return client.ListDevices().status();
  }

  testing::TempDir dir_;
  std::string cert_;
  std::string key_;
};

TEST_F(FarmTls, ServerTlsWorksAndStillRequiresTheToken) {
  std::unique_ptr<TrackerServer> server = StartServer(false);
  ASSERT_NE(server, nullptr);
  EXPECT_TRUE(List(*server, {"", "", cert_}).ok());
  EXPECT_TRUE(absl::IsUnauthenticated(List(*server, {"", "", cert_}, "wrong")));
  EXPECT_TRUE(absl::IsUnavailable(List(*server, {})));  // plaintext client: no handshake
}

TEST_F(FarmTls, MutualTlsRefusesAClientWithoutACertificate) {
  std::unique_ptr<TrackerServer> server = StartServer(true);
  ASSERT_NE(server, nullptr);
  EXPECT_TRUE(List(*server, {cert_, key_, cert_}).ok());
  EXPECT_FALSE(List(*server, {"", "", cert_}).ok());
}

TEST_F(FarmTls, BadCredentialFilesAreErrorsNamingTheFile) {
  TrackerServerOptions options;
  options.host = "127.0.0.1";
  options.token = kToken;
  options.tls = {dir_.path() + "/absent.pem", key_, ""};
  absl::StatusOr<std::unique_ptr<TrackerServer>> server = TrackerServer::Start(options);
  EXPECT_NE(server.status().message().find("absent.pem"), std::string_view::npos);
  options.tls = {"", key_, ""};
  EXPECT_TRUE(absl::IsInvalidArgument(TrackerServer::Start(options).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(wire::MakeChannel("127.0.0.1:1", {cert_, "", cert_}).status()));
}

// gRPC alone fails such a server as if its port were taken; the error must name the pair.
TEST_F(FarmTls, AKeyOfAnotherCertificateIsNamed) {
  const std::string other_key = dir_.path() + "/other-key.pem";
  auto openssl = testing::ChildProcess::Spawn(
      {kOpenssl, "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-out", other_key});
  ASSERT_TRUE(openssl.ok()) << openssl.status();
  ASSERT_EQ((*openssl)->Wait(20s).value_or(-1), 0) << "openssl genpkey failed";
  TrackerServerOptions options;
  options.host = "127.0.0.1";
  options.token = kToken;
  options.tls = {cert_, other_key, ""};
  absl::StatusOr<std::unique_ptr<TrackerServer>> server = TrackerServer::Start(options);
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find("TLS key file " + other_key + " does not match the certificate in " + cert_),
            std::string_view::npos)
      << server.status();
  options.tls = {key_, key_, ""};  // a key where the certificate should be
  server = TrackerServer::Start(options);
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find("holds no certificate"), std::string_view::npos) << server.status();
}

}  // namespace
}  // namespace tunefarm::tracker
