#include "runtime/sandbox/sandbox_spec.hpp"

#include <algorithm>
#include <array>

namespace volador::sandbox {
namespace {

// /run/systemd/resolve: where /etc/resolv.conf often points.
constexpr std::array<std::string_view, 10> kSystemFolders{"/usr",  "/etc",   "/bin",   "/sbin", "/lib",
                                                          "/lib32", "/lib64", "/libx32", "/sys", "/run/systemd/resolve"};
constexpr std::array<std::string_view, 2> kMaskedFolders{"/etc/ssh", "/etc/ssl/private"};
constexpr std::array<std::string_view, 4> kMaskedFiles{"/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-"};

}  // namespace

std::span<const std::string_view> system_folders() { return kSystemFolders; }
std::span<const std::string_view> masked_system_folders() { return kMaskedFolders; }
std::span<const std::string_view> masked_system_files() { return kMaskedFiles; }

bool paths_overlap(const std::filesystem::path& a, const std::filesystem::path& b) {
  auto [a_end, b_end] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  return a_end == a.end() || b_end == b.end();
}

}  // namespace volador::sandbox
