// EC_KEY is deprecated in OpenSSL 3, and used on purpose: see new_p256_key.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "runtime/tls/certificate_authority.hpp"

#include <arpa/inet.h>

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/x509v3.h>

#include "runtime/core/random_bytes.hpp"
#include "runtime/tls/openssl_handles.hpp"
#include "runtime/tls/private_file.hpp"

namespace volador::tls {
namespace fs = std::filesystem;
using detail::CertPtr;
using detail::KeyPtr;

namespace {

constexpr std::chrono::seconds kNodeValidity{10L * 365 * 24 * 3600};
constexpr long kClockSkewSeconds = 3600;  // hosts whose clocks lag the master's still accept a new certificate

Error openssl_failure(const std::string& what) {
  return Error::internal(what + ": " + detail::take_openssl_errors());
}

// "DNS:localhost,IP:127.0.0.1" for OpenSSL's subjectAltName; empty for none.
Result<std::string> subject_alt_names(const std::vector<std::string>& host_names) {
  std::string out;
  for (const auto& host : host_names) {
    unsigned char address[16];
    const bool ip = inet_pton(AF_INET, host.c_str(), address) == 1 || inet_pton(AF_INET6, host.c_str(), address) == 1;
    const bool dns = !host.empty() && host.size() <= 253 &&
                     host.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") == std::string::npos;
    if (!ip && !dns)
      return fail(Error::invalid_argument("'" + host + "' is neither a host name nor an IP address"));
    out += (out.empty() ? "" : ",") + std::string(ip ? "IP:" : "DNS:") + host;
  }
  return out;
}

// A fresh P-256 key. Built as a legacy EC_KEY: OpenSSL 3.0 encodes a key
// made by its providers (EVP_EC_gen) through its encoder lookup, about 0.5 ms
// each for X509_set_pubkey and for the PEM of the key, while a legacy key
// takes the built-in ASN.1 path; a rank identity costs a quarter as much
// (0.2 ms instead of 0.9 ms measured on a loaded 2-core host), and the
// master issues one per rank launch. The curve's group is built once and
// copied into each key (building it from the curve's parameters was a
// third of the key's cost). Null on failure.
KeyPtr new_p256_key() {
  static const EC_GROUP* const p256 = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);  // kept for the process
  EC_KEY* ec = EC_KEY_new();
  KeyPtr key(EVP_PKEY_new());
  if (p256 == nullptr || ec == nullptr || !key || EC_KEY_set_group(ec, p256) != 1 || EC_KEY_generate_key(ec) != 1 ||
      EVP_PKEY_assign_EC_KEY(key.get(), ec) != 1) {
    EC_KEY_free(ec);
    return nullptr;
  }
  return key;
}

bool add_extension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX context;
  X509V3_set_ctx(&context, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value);
  if (extension == nullptr) return false;
  const bool added = X509_add_ext(cert, extension, -1) == 1;
  X509_EXTENSION_free(extension);
  return added;
}

// An unsigned certificate for `key` named `common_name`, with a random serial, valid until `validity` from now.
CertPtr new_certificate(EVP_PKEY* key, const std::string& common_name, std::chrono::seconds validity) {
  CertPtr cert(X509_new());
  BIGNUM* serial = BN_new();
  const bool ok = cert && serial && X509_set_version(cert.get(), X509_VERSION_3) == 1 &&
                  BN_rand(serial, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1 &&
                  BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(cert.get())) != nullptr &&
                  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -kClockSkewSeconds) != nullptr &&
                  X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(validity.count())) != nullptr &&
                  X509_NAME_add_entry_by_txt(X509_get_subject_name(cert.get()), "CN", MBSTRING_UTF8,
                                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1, 0) == 1 &&
                  X509_set_pubkey(cert.get(), key) == 1;
  BN_free(serial);
  return ok ? std::move(cert) : nullptr;
}

}  // namespace

struct CertificateAuthority::Signer {
  CertPtr certificate;
  KeyPtr key;
};

CertificateAuthority::CertificateAuthority(std::string certificate, std::string private_key)
    : certificate_(std::move(certificate)),
      private_key_(std::move(private_key)),
      signer_(std::make_shared<const Signer>(
          Signer{detail::read_certificate(certificate_), detail::read_private_key(private_key_)})) {}

Result<CertificateAuthority> CertificateAuthority::open_or_create(const fs::path& dir) {
  if (fs::exists(dir / "ca.crt") || fs::exists(dir / "ca.key")) {
    auto certificate = read_text_file(dir / "ca.crt");
    if (!certificate) return fail(certificate.error());
    auto key = read_text_file(dir / "ca.key");
    if (!key) return fail(key.error());
    auto parsed_cert = detail::read_certificate(*certificate);
    auto parsed_key = detail::read_private_key(*key);
    if (!parsed_cert || !parsed_key || X509_check_private_key(parsed_cert.get(), parsed_key.get()) != 1)
      return fail(Error::invalid_argument("the cluster CA in " + dir.string() +
                                          " is damaged: ca.crt and ca.key must be a PEM certificate and its key"));
    return CertificateAuthority(std::move(*certificate), std::move(*key));
  }
  if (auto made = make_private_folder(dir); !made) return fail(made.error());
  KeyPtr key = new_p256_key();
  if (!key) return fail(openssl_failure("cannot generate the CA key"));
  auto cert = new_certificate(key.get(), "volador-" + random_hex(6), kNodeValidity);
  if (!cert || !add_extension(cert.get(), cert.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0") ||
      !add_extension(cert.get(), cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign") ||
      !add_extension(cert.get(), cert.get(), NID_subject_key_identifier, "hash") ||
      X509_set_issuer_name(cert.get(), X509_get_subject_name(cert.get())) != 1 ||
      X509_sign(cert.get(), key.get(), EVP_sha256()) == 0)
    return fail(openssl_failure("cannot create the CA certificate"));
  CertificateAuthority ca(detail::to_pem(cert.get()), detail::to_pem(key.get()));
  // The key first: a ca.crt without its key would read as a damaged CA.
  if (auto written = write_private_file(dir / "ca.key", ca.private_key_); !written) return fail(written.error());
  if (auto written = write_private_file(dir / "ca.crt", ca.certificate_); !written) return fail(written.error());
  return ca;
}

Result<Identity> CertificateAuthority::issue(const std::string& name, const std::vector<std::string>& host_names) const {
  if (auto valid = check_node_name(name); !valid) return fail(valid.error());
  auto alt_names = subject_alt_names(host_names);
  if (!alt_names) return fail(alt_names.error());
  return issue_leaf(name, *alt_names, kNodeValidity, "serverAuth,clientAuth");
}

Result<Identity> CertificateAuthority::issue_rank(const RankName& rank, std::chrono::seconds validity) const {
  return issue_leaf(rank.common_name(), "", validity, "clientAuth");  // a rank only dials out
}

Result<Identity> CertificateAuthority::issue_leaf(const std::string& common_name, const std::string& alt_names,
                                                  std::chrono::seconds validity, const char* extended_key_usage) const {
  X509* ca_cert = signer_->certificate.get();
  KeyPtr key = new_p256_key();
  if (!ca_cert || !signer_->key || !key) return fail(openssl_failure("cannot issue a certificate for " + common_name));
  auto cert = new_certificate(key.get(), common_name, validity);
  if (!cert || X509_set_issuer_name(cert.get(), X509_get_subject_name(ca_cert)) != 1 ||
      !add_extension(cert.get(), ca_cert, NID_basic_constraints, "critical,CA:FALSE") ||
      !add_extension(cert.get(), ca_cert, NID_key_usage, "critical,digitalSignature,keyAgreement") ||
      !add_extension(cert.get(), ca_cert, NID_ext_key_usage, extended_key_usage) ||
      !add_extension(cert.get(), ca_cert, NID_authority_key_identifier, "keyid:always") ||
      (!alt_names.empty() && !add_extension(cert.get(), ca_cert, NID_subject_alt_name, alt_names.c_str())) ||
      X509_sign(cert.get(), signer_->key.get(), EVP_sha256()) == 0)
    return fail(openssl_failure("cannot issue a certificate for " + common_name));
  return Identity{certificate_, detail::to_pem(cert.get()), detail::to_pem(key.get())};
}

}  // namespace volador::tls
