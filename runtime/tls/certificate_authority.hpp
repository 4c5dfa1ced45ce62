#pragma once
// The cluster's own certificate authority, kept in the master's data folder:
// created on the master's first start, it signs the certificate of every
// node (master, agents, rank workers through their agent, the admin client).
// Its key never leaves that folder.

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/error.hpp"
#include "runtime/tls/identity.hpp"
#include "runtime/tls/rank_name.hpp"

namespace volador::tls {

class CertificateAuthority {
 public:
  // The CA kept in `dir` (ca.crt, ca.key at mode 0600), created there with a
  // fresh P-256 key and a random cluster name when `dir` holds none. Error
  // io when the folder cannot be written, invalid_argument when it holds a
  // damaged or mismatched CA.
  static Result<CertificateAuthority> open_or_create(const std::filesystem::path& dir);

  // A fresh key and certificate for node `name` (its subject common name),
  // signed by this CA, valid for both ends of a TLS connection for ten years;
  // with `host_names` (DNS names or IP addresses) as subject alternative
  // names, which browsers and HTTPS clients check the address against.
  // invalid_argument for a bad name or host name.
  [[nodiscard]] Result<Identity> issue(const std::string& name, const std::vector<std::string>& host_names = {}) const;

  // A fresh key and certificate for rank worker `rank` (subject
  // rank.common_name()), signed by this CA, valid from an hour ago (for
  // hosts whose clocks lag) until `validity` from now, for TLS clients only:
  // what the master hands one rank launch. A P-256 key: about 0.1 ms of one core. Thread-safe.
  [[nodiscard]] Result<Identity> issue_rank(const RankName& rank, std::chrono::seconds validity) const;

  // The CA's certificate (PEM): what every node trusts.
  [[nodiscard]] const std::string& certificate() const { return certificate_; }
  // "volador-" and 12 hex digits, the CA's subject: tells clusters apart.
  [[nodiscard]] std::string cluster_name() const { return subject_name(certificate_); }

 private:
  struct Signer;  // the parsed certificate and key, parsed once

  CertificateAuthority(std::string certificate, std::string private_key);
  [[nodiscard]] Result<Identity> issue_leaf(const std::string& common_name, const std::string& alt_names,
                                            std::chrono::seconds validity, const char* extended_key_usage) const;

  std::string certificate_;
  std::string private_key_;
  std::shared_ptr<const Signer> signer_;
};

}  // namespace volador::tls
