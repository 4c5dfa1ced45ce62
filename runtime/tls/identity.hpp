#pragma once
// A node's TLS identity: its certificate and private key, and the cluster
// CA's certificate that it trusts (and that signed it). Every node port of a
// Volador cluster speaks mutual TLS with such identities; a peer whose
// certificate the cluster CA did not sign cannot connect.

#include <chrono>
#include <optional>
#include <string>

#include "runtime/core/error.hpp"

namespace volador::tls {

struct Identity {
  std::string ca_certificate;  // PEM: the cluster CA, the only trust anchor
  std::string certificate;     // PEM: this node's certificate, signed by the CA
  std::string private_key;     // PEM: this node's key (PKCS#8, unencrypted)
};

// Checks that each part parses, the key matches the certificate, the CA
// signed it and it is valid now. invalid_argument saying which part is wrong.
Status check_identity(const Identity& identity);

// The certificate's subject common name: the node's name ("master", "admin",
// an agent's name). Empty when the certificate does not parse.
std::string subject_name(const std::string& certificate_pem);

// When the certificate stops being valid (its notAfter); nullopt when it does not parse.
std::optional<std::chrono::system_clock::time_point> expiry_time(const std::string& certificate_pem);

// Node names: 1-64 characters of [A-Za-z0-9._-]. invalid_argument otherwise.
Status check_node_name(const std::string& name);

}  // namespace volador::tls
