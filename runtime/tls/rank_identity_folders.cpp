#include "runtime/tls/rank_identity_folders.hpp"

#include "runtime/tls/identity_files.hpp"
#include "runtime/tls/private_file.hpp"
#include "runtime/tls/rank_name.hpp"

namespace volador::tls {
namespace fs = std::filesystem;

namespace {
fs::path root(const fs::path& work_dir) { return work_dir / "rank-identities"; }
}  // namespace

fs::path rank_identity_folder(const fs::path& work_dir, std::uint64_t worker_id) {
  return root(work_dir) / ("worker-" + std::to_string(worker_id));
}

Result<fs::path> install_rank_identity(const std::string& certificate, const std::string& private_key,
                                       const fs::path& agent_tls_dir, const fs::path& work_dir, std::uint64_t worker_id) {
  auto ca_certificate = read_text_file(IdentityFiles::in(agent_tls_dir).ca_certificate);
  if (!ca_certificate) return fail(ca_certificate.error());
  const Identity identity{std::move(*ca_certificate), certificate, private_key};
  const auto name = subject_name(identity.certificate);
  if (!parse_rank_name(name))
    return fail(Error::invalid_argument("the identity for worker " + std::to_string(worker_id) + " names '" + name +
                                        "', not a rank"));
  const auto dir = rank_identity_folder(work_dir, worker_id);
  // Not synced: the folder goes with its worker, and every leftover at the
  // agent's start, so no crash leaves anything that needs it. Three fsyncs
  // held the agent's thread 20 to 80 ms per fresh worker beside a busy journal.
  auto files = install_identity(identity, dir, Durability::transient);
  if (!files) return fail(files.error());
  return dir;
}

void remove_rank_identity(const fs::path& work_dir, std::uint64_t worker_id) {
  std::error_code ec;
  fs::remove_all(rank_identity_folder(work_dir, worker_id), ec);
}

void remove_rank_identities(const fs::path& work_dir) {
  std::error_code ec;
  fs::remove_all(root(work_dir), ec);
}

}  // namespace volador::tls
