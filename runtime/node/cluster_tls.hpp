#pragma once
// Where each node's certificates come from.
//
// The master keeps the cluster's under DATA/tls (mode 0700): the CA in ca/,
// its own identity in master/, the in-process agent's (volador-node up) in
// local-agent/, admin.bundle, the client's bundle, and web/, the HTTPS server's. All are created on
// the first start and checked on every later one. Other hosts join with a
// bundle issued on the master's host (`volador-node certs issue NAME`).

#include <filesystem>
#include <string>
#include <vector>

#include "runtime/core/error.hpp"
#include "runtime/tls/identity_files.hpp"

namespace volador::node {

struct MasterTls {
  tls::IdentityFiles master;                 // what the master presents
  std::filesystem::path local_agent_dir;     // the identity folder of an in-process agent's workers
  std::filesystem::path admin_bundle;        // for the volador client
};

// Creates (first start) or checks the master's certificates under data_dir/tls.
// Errors name the file or folder at fault.
Result<MasterTls> prepare_master_tls(const std::filesystem::path& data_dir);

// The HTTPS server's identity, issued by the cluster CA at every start into
// data_dir/tls/web with `host_names` (DNS names, IP addresses) as the names
// browsers check, so it always matches the addresses it is served on.
// invalid_argument for a name that is neither; io when it cannot be written.
Result<tls::IdentityFiles> issue_web_identity(const std::filesystem::path& data_dir,
                                              const std::vector<std::string>& host_names);

// Issues a bundle for node `name` with the CA under data_dir/tls and writes
// it to `out` (mode 0600). already_exists when `out` exists; not_found when
// data_dir holds no CA (the master never started there).
Status issue_bundle(const std::filesystem::path& data_dir, const std::string& name, const std::filesystem::path& out);

// An agent's identity from its bundle, installed in work_dir/tls, where its
// workers find it too. The node's name is the certificate's subject.
Result<tls::IdentityFiles> install_agent_bundle(const std::filesystem::path& bundle, const std::filesystem::path& work_dir);

}  // namespace volador::node
