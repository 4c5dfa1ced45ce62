#include "runtime/tls/identity.hpp"

#include <openssl/x509.h>

#include <algorithm>
#include <ctime>

#include "runtime/tls/openssl_handles.hpp"

namespace volador::tls {
namespace {

Error wrong(const std::string& what) {
  const auto why = detail::take_openssl_errors();
  return Error::invalid_argument(what + (why.empty() ? "" : " (" + why + ")"));
}

}  // namespace

Status check_identity(const Identity& identity) {
  auto ca = detail::read_certificate(identity.ca_certificate);
  if (!ca) return fail(wrong("the CA certificate is missing or not PEM"));
  auto cert = detail::read_certificate(identity.certificate);
  if (!cert) return fail(wrong("the node certificate is missing or not PEM"));
  auto key = detail::read_private_key(identity.private_key);
  if (!key) return fail(wrong("the private key is missing, encrypted or not PEM"));
  if (X509_check_private_key(cert.get(), key.get()) != 1)
    return fail(wrong("the private key does not belong to the certificate"));
  if (X509_verify(cert.get(), X509_get0_pubkey(ca.get())) != 1)
    return fail(wrong("the certificate of '" + subject_name(identity.certificate) + "' was not signed by this CA"));
  if (X509_cmp_current_time(X509_get0_notAfter(cert.get())) <= 0)
    return fail(wrong("the certificate of '" + subject_name(identity.certificate) + "' has expired"));
  return {};
}

std::string subject_name(const std::string& certificate_pem) {
  auto cert = detail::read_certificate(certificate_pem);
  if (!cert) return {};
  char name[256] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert.get()), NID_commonName, name, sizeof name);
  return name;
}

std::optional<std::chrono::system_clock::time_point> expiry_time(const std::string& certificate_pem) {
  auto cert = detail::read_certificate(certificate_pem);
  std::tm expiry{};
  if (!cert || ASN1_TIME_to_tm(X509_get0_notAfter(cert.get()), &expiry) != 1) return std::nullopt;
  return std::chrono::system_clock::from_time_t(::timegm(&expiry));
}

Status check_node_name(const std::string& name) {
  const bool valid = !name.empty() && name.size() <= 64 && std::ranges::all_of(name, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
  if (!valid) return fail(Error::invalid_argument("node name '" + name + "': expected 1-64 characters of [A-Za-z0-9._-]"));
  return {};
}

}  // namespace volador::tls
