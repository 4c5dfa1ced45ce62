#include "runtime/node/cluster_tls.hpp"

#include "runtime/tls/certificate_authority.hpp"
#include "runtime/tls/private_file.hpp"

namespace volador::node {
namespace fs = std::filesystem;

namespace {

// The identity folder `dir` for node `name`: issued by `ca` when absent,
// else loaded and checked to come from `ca`.
Result<tls::IdentityFiles> identity_folder(const tls::CertificateAuthority& ca, const std::string& name, const fs::path& dir) {
  if (!fs::exists(dir)) {
    auto issued = ca.issue(name);
    if (!issued) return fail(issued.error());
    return tls::install_identity(*issued, dir);
  }
  auto loaded = tls::load_identity(dir);
  if (!loaded) return fail(loaded.error());
  if (loaded->ca_certificate != ca.certificate())
    return fail(Error::invalid_argument(dir.string() + " was issued by another CA than " + (dir.parent_path() / "ca").string() +
                                        ": remove the folder to issue a new identity"));
  return tls::IdentityFiles::in(dir);
}

}  // namespace

Result<MasterTls> prepare_master_tls(const fs::path& data_dir) {
  const auto root = data_dir / "tls";
  if (auto made = tls::make_private_folder(root); !made) return fail(made.error());
  auto ca = tls::CertificateAuthority::open_or_create(root / "ca");
  if (!ca) return fail(ca.error());
  auto master = identity_folder(*ca, "master", root / "master");
  if (!master) return fail(master.error());
  auto local_agent = identity_folder(*ca, "local-agent", root / "local-agent");
  if (!local_agent) return fail(local_agent.error());
  const auto admin_bundle = root / "admin.bundle";
  if (!fs::exists(admin_bundle)) {
    auto admin = ca->issue("admin");
    if (!admin) return fail(admin.error());
    if (auto written = tls::write_bundle(admin_bundle, *admin); !written) return fail(written.error());
  }
  return MasterTls{*master, root / "local-agent", admin_bundle};
}

Result<tls::IdentityFiles> issue_web_identity(const fs::path& data_dir, const std::vector<std::string>& host_names) {
  auto ca = tls::CertificateAuthority::open_or_create(data_dir / "tls" / "ca");
  if (!ca) return fail(ca.error());
  auto issued = ca->issue("master", host_names);
  if (!issued) return fail(Error{issued.error().code, "the web certificate: " + issued.error().message});
  return tls::install_identity(*issued, data_dir / "tls" / "web");
}

Status issue_bundle(const fs::path& data_dir, const std::string& name, const fs::path& out) {
  const auto ca_dir = data_dir / "tls" / "ca";
  if (!fs::exists(ca_dir / "ca.key"))
    return fail(Error::not_found("no cluster CA in " + ca_dir.string() +
                                 ": run this on the master's host with the master's --data (the master creates it on first start)"));
  if (fs::exists(out)) return fail(Error::already_exists(out.string() + " exists: remove it or name another file"));
  auto ca = tls::CertificateAuthority::open_or_create(ca_dir);
  if (!ca) return fail(ca.error());
  auto issued = ca->issue(name);
  if (!issued) return fail(issued.error());
  return tls::write_bundle(out, *issued);
}

Result<tls::IdentityFiles> install_agent_bundle(const fs::path& bundle, const fs::path& work_dir) {
  auto identity = tls::read_bundle(bundle);
  if (!identity) return fail(identity.error());
  return tls::install_identity(*identity, work_dir / "tls");
}

}  // namespace volador::node
