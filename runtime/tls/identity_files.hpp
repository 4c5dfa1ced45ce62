#pragma once
// Where a node keeps its identity on disk, and the one-file bundle a node is
// handed to join a cluster.
//
// An identity folder (mode 0700) holds ca.crt, node.crt and node.key (0600):
// the three paths CAF's OpenSSL module is given. A bundle is one PEM file
// (0600) with the node's certificate, its private key and the CA's
// certificate, in that order, after a comment naming the node and cluster:
// `volador-node certs issue NAME` writes one, `agent --bundle FILE` and the
// client read one.

#include <filesystem>
#include <string>

#include "runtime/core/error.hpp"
#include "runtime/tls/identity.hpp"
#include "runtime/tls/private_file.hpp"

namespace volador::tls {

struct IdentityFiles {
  std::filesystem::path ca_certificate;
  std::filesystem::path certificate;
  std::filesystem::path private_key;

  // The paths inside identity folder `dir`.
  static IdentityFiles in(const std::filesystem::path& dir);
};

// Writes `identity` into folder `dir` (created 0700; files replaced), after
// checking it, synced to disk unless `durability` says it is transient. The files' paths.
Result<IdentityFiles> install_identity(const Identity& identity, const std::filesystem::path& dir,
                                       Durability durability = Durability::synced);

// Reads and checks the identity in folder `dir`. Errors name the folder and the bad part.
Result<Identity> load_identity(const std::filesystem::path& dir);

// Writes `identity` as a bundle file (0600), replacing any file there.
Status write_bundle(const std::filesystem::path& path, const Identity& identity);

// Reads and checks a bundle. Errors name the file and what is wrong with it.
Result<Identity> read_bundle(const std::filesystem::path& path);

}  // namespace volador::tls
