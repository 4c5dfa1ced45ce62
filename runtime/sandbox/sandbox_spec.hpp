#pragma once
// A rank worker's sandbox, described apart from the tool that builds it
// (bubblewrap_command.hpp turns it into bwrap's arguments): what the rank
// sees of the host. Host paths are absolute; a mount's `inside` is where it
// appears in the sandbox. Everything not listed is absent: the sandbox's root
// is an empty tmpfs, with a private /tmp, its own /proc (its own process
// numbers) and a minimal /dev.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace volador::sandbox {

// The system folders a sandbox shows read-only at their own paths (those the host has).
std::span<const std::string_view> system_folders();
// Secrets inside those folders that a sandbox hides (the host's SSH keys,
// password hashes, TLS private keys): each folder an empty tmpfs, each file /dev/null.
std::span<const std::string_view> masked_system_folders();
std::span<const std::string_view> masked_system_files();

// Where a rank's own things appear inside its sandbox: its worker's home (the
// trial folders it runs in) and the folder its trial's ranks on this host
// share their allreduce segments in (collective/shm_segment.hpp).
inline constexpr std::string_view kWorkerHomeInside = "/run/volador/work";
inline constexpr std::string_view kCollectiveInside = "/run/volador/collective";
// The root of both: no bind mount may be this, above it or inside it.
inline constexpr std::string_view kVoladorInside = "/run/volador";

// The manual's default resources.shm_size, the size of a rank's /dev/shm when unset.
inline constexpr std::uint64_t kDefaultShmBytes = 4ull << 30;

struct SandboxMount {
  std::filesystem::path host;
  std::filesystem::path inside;
  bool read_only = false;
  auto operator<=>(const SandboxMount&) const = default;
};

struct SandboxSpec {
  std::vector<std::filesystem::path> system_folders;  // read-only at their own paths
  std::vector<std::filesystem::path> masked_folders;  // an empty tmpfs over each
  std::vector<std::filesystem::path> masked_files;    // /dev/null over each
  std::vector<std::filesystem::path> devices;         // host device nodes shown at their paths (GPUs)
  std::vector<SandboxMount> mounts;                   // after everything above, in order
  std::uint64_t shm_bytes = kDefaultShmBytes;         // the size of the rank's own /dev/shm (a tmpfs)
  std::filesystem::path working_dir;                  // inside the sandbox
  // Variables of the agent's environment the rank must not inherit.
  std::vector<std::string> hidden_variables;
};

// Whether `a` is `b`, or one is inside the other (lexically, both absolute and normal).
bool paths_overlap(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace volador::sandbox
