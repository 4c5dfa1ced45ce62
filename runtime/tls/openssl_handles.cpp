#include "runtime/tls/openssl_handles.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>

namespace volador::tls::detail {
namespace {

std::string drain(BIO* bio) {
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio, &data);
  return length > 0 ? std::string(data, static_cast<std::size_t>(length)) : std::string();
}

BioPtr reader(const std::string& pem) { return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()))); }

}  // namespace

std::string take_openssl_errors() {
  std::string text;
  while (const unsigned long code = ERR_get_error()) {
    char line[256];
    ERR_error_string_n(code, line, sizeof line);
    text += (text.empty() ? "" : "; ") + std::string(line);
  }
  return text;
}

std::string to_pem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  return drain(bio.get());
}

std::string to_pem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  return drain(bio.get());
}

CertPtr read_certificate(const std::string& pem) {
  auto bio = reader(pem);
  return CertPtr(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

KeyPtr read_private_key(const std::string& pem) {
  auto bio = reader(pem);
  // An empty passphrase callback: an encrypted key fails instead of prompting.
  auto no_passphrase = [](char*, int, int, void*) { return 0; };
  return KeyPtr(PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr));
}

}  // namespace volador::tls::detail
