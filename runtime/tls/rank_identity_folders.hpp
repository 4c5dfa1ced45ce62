#pragma once
// Where an agent keeps its rank workers' identities: one private folder per
// worker process (mode 0700, its key 0600) under the agent's work folder,
// holding the identity the master issued for the launch that started the
// process (CertificateAuthority::issue_rank). The worker is given that folder
// as VOLADOR_TLS_DIR, never the agent's own; the folder goes when the process
// ends. A warm worker keeps its folder (and its identity, and its link to the
// master) across the trials of one experiment it runs.

#include <cstdint>
#include <filesystem>

#include "runtime/core/error.hpp"
#include "runtime/tls/identity.hpp"

namespace volador::tls {

// The folder of worker process `worker_id` of the agent working in `work_dir`.
std::filesystem::path rank_identity_folder(const std::filesystem::path& work_dir, std::uint64_t worker_id);

// Installs the rank identity a launch brought (`certificate`, `private_key`)
// in worker `worker_id`'s folder, with the CA certificate of the agent's own
// identity folder `agent_tls_dir`, after checking that the identity is whole,
// signed by that CA, valid and names a rank (tls/rank_name.hpp). The files are
// not synced to disk (no crash leaves anything that needs them: see
// remove_rank_identities). The folder; invalid_argument or io saying what is wrong.
Result<std::filesystem::path> install_rank_identity(const std::string& certificate, const std::string& private_key,
                                                    const std::filesystem::path& agent_tls_dir,
                                                    const std::filesystem::path& work_dir, std::uint64_t worker_id);

// Removes worker `worker_id`'s folder (nothing when there is none).
void remove_rank_identity(const std::filesystem::path& work_dir, std::uint64_t worker_id);

// Removes every worker's folder: what an agent that starts finds of an earlier one.
void remove_rank_identities(const std::filesystem::path& work_dir);

}  // namespace volador::tls
