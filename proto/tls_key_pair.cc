#include "proto/tls_key_pair.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

#include "absl/strings/str_cat.h"

namespace tunefarm::wire {
namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};

std::unique_ptr<BIO, BioFree> ReadOnlyBio(const std::string& pem) {
  return std::unique_ptr<BIO, BioFree>(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// A callback that refuses to prompt: an encrypted key is reported, never asked for.
int NoPassword(char*, int, int, void*) { return -1; }

absl::Status CheckPair(const std::string& cert_pem, const std::string& key_pem, const std::string& cert_path,
                       const std::string& key_path) {
  auto cert_bio = ReadOnlyBio(cert_pem);
  auto key_bio = ReadOnlyBio(key_pem);
  if (!cert_bio || !key_bio) return absl::ResourceExhaustedError("TLS: out of memory reading the PEM files");
  std::unique_ptr<X509, X509Free> cert(PEM_read_bio_X509(cert_bio.get(), nullptr, NoPassword, nullptr));
  if (!cert) return absl::InvalidArgumentError(absl::StrCat("TLS certificate file ", cert_path, " holds no certificate"));
  std::unique_ptr<EVP_PKEY, KeyFree> key(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, NoPassword, nullptr));
  if (!key) {
    return absl::InvalidArgumentError(
        absl::StrCat("TLS key file ", key_path, " holds no private key (or an encrypted one, which is not supported)"));
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("TLS key file ", key_path, " does not match the certificate in ", cert_path));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckTlsKeyPair(const std::string& cert_pem, const std::string& key_pem, const std::string& cert_path,
                             const std::string& key_path) {
  absl::Status checked = CheckPair(cert_pem, key_pem, cert_path, key_path);
  ERR_clear_error();  // a failed read leaves entries that gRPC's own TLS calls would see
  return checked;
}

}  // namespace tunefarm::wire
