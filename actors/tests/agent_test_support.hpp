#pragma once
// An agent in a test's own actor system: no sandbox, no cgroups, a shell
// script as its worker program, a master that takes its registration, and
// launches of rank 0 on slot 0 signed by a test CA.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <caf/all.hpp>

#include "actors/agent_actor.hpp"
#include "runtime/tls/certificate_authority.hpp"
#include "runtime/tls/identity_files.hpp"
#include "storage/archives/archive.hpp"

namespace volador::actors::testing {

// A fresh folder under the system's temporary folder, removed with it.
struct TempFolder {
  std::filesystem::path path;
  explicit TempFolder(const std::string& prefix)
      : path(std::filesystem::temp_directory_path() / (prefix + std::to_string(std::random_device{}()))) {
    std::filesystem::create_directories(path);
  }
  ~TempFolder() { std::filesystem::remove_all(path); }
};

// One slot, `script` as the worker program (written to `dir`), the agent's identity from `ca`.
inline AgentOptions script_agent(const std::filesystem::path& dir, const tls::CertificateAuthority& ca,
                                 const char* script) {
  const auto worker = dir / "worker.sh";
  std::ofstream(worker) << script;
  std::filesystem::permissions(worker, std::filesystem::perms::owner_all);
  REQUIRE(tls::install_identity(ca.issue("agent-a").value(), dir / "agent-tls"));
  std::filesystem::create_directories(dir / "work");
  AgentOptions options{.agent_id = "agent-a", .slots = {wire::SlotSpec{}}, .work_dir = dir / "work",
                       .worker_program = worker, .worker_tls_dir = dir / "agent-tls"};
  options.limits.enabled = false;
  options.sandbox = false;
  return options;
}

// Rank 0 of `trial`'s run `run` in experiment 1 on slot 0, a one-file project, its identity from `ca`.
inline wire::LaunchSpec script_launch(const std::filesystem::path& dir, const tls::CertificateAuthority& ca,
                                      std::uint64_t trial, std::uint32_t run) {
  std::filesystem::create_directories(dir / "project");
  std::ofstream(dir / "project" / "README") << "a test project\n";
  const auto identity =
      ca.issue_rank({.experiment_id = 1, .trial_id = trial, .run_id = run, .rank = 0}, std::chrono::hours(1)).value();
  wire::LaunchSpec spec;
  spec.trial_id = trial;
  spec.experiment_id = 1;
  spec.run_id = run;
  spec.entrypoint = "sh worker.sh";
  spec.hparams_json = "{}";  // a master's launch always carries both
  spec.data_json = "{}";
  spec.archive = archives::pack_directory(dir / "project").value();
  spec.master_host = "127.0.0.1";
  spec.rank_certificate = identity.certificate;
  spec.rank_private_key = identity.private_key;
  spec.shm_size_bytes = 0;  // the host's /dev/shm: no sandbox
  return spec;
}

// The master as the agent sees it: it takes the registration and ignores the rest.
inline caf::behavior accepting_master() {
  return {[](register_atom, const wire::Bytes&, const caf::actor&) { return true; },
          [](work_disk_atom, const wire::Bytes&) {}};
}

}  // namespace volador::actors::testing
