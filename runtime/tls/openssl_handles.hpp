#pragma once
// Owning handles for the OpenSSL objects the tls library builds, and the
// text of OpenSSL's error queue for messages. Internal to runtime/tls.

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

namespace volador::tls::detail {

struct OpenSslFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
  void operator()(X509* cert) const { X509_free(cert); }
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, OpenSslFree>;
using CertPtr = std::unique_ptr<X509, OpenSslFree>;
using BioPtr = std::unique_ptr<BIO, OpenSslFree>;

// OpenSSL's queued errors as one line (and clears the queue); "" when none.
std::string take_openssl_errors();

// PEM text of a certificate or a private key (PKCS#8, unencrypted).
std::string to_pem(X509* cert);
std::string to_pem(EVP_PKEY* key);

// The first certificate / private key in `pem` (other PEM blocks are skipped);
// null when there is none.
CertPtr read_certificate(const std::string& pem);
KeyPtr read_private_key(const std::string& pem);

}  // namespace volador::tls::detail
