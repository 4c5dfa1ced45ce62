#include "runtime/sandbox/container_paths.hpp"

#include <filesystem>

#include "runtime/sandbox/sandbox_spec.hpp"

namespace volador::sandbox {
namespace {

namespace fs = std::filesystem;

// The sandbox's own folders besides the system's: a mount may not cover them.
std::optional<std::string> shadowed_folder(const fs::path& path) {
  for (auto folder : system_folders())
    if (paths_overlap(path, fs::path(folder)))
      return "would shadow the system folder " + std::string(folder) + " the sandbox needs";
  for (std::string_view folder : {"/proc", "/dev"})
    if (paths_overlap(path, fs::path(folder)))
      return "would shadow " + std::string(folder) + ", which the sandbox makes itself";
  if (paths_overlap(path, fs::path(kVoladorInside)))
    return "would shadow the trial's project folder (under " + std::string(kVoladorInside) + ")";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> container_path_refusal(std::string_view container_path) {
  const fs::path path(container_path);
  if (!path.is_absolute()) return "must be an absolute path (such as /data), got '" + std::string(container_path) + "'";
  if (container_path.size() > 1 && container_path.ends_with('/'))
    return "must not end with '/': write '" + std::string(container_path.substr(0, container_path.size() - 1)) + "'";
  if (const auto normal = path.lexically_normal(); normal != path)
    return "must be a normal path: write '" + normal.string() + "'";
  if (path == "/") return "cannot be '/', the sandbox's root";
  if (path == "/tmp") return "cannot be /tmp, the sandbox's private temporary folder (a folder under it can)";
  return shadowed_folder(path);
}

}  // namespace volador::sandbox
