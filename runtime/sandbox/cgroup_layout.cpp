#include "runtime/sandbox/cgroup_layout.hpp"

#include "runtime/core/file_read.hpp"

#include <algorithm>
#include <optional>
#include <ranges>
#include <sstream>
#include <vector>

namespace volador::sandbox {
namespace {

namespace fs = std::filesystem;

// One line of mountinfo: "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER_OPTIONS".
struct Mount {
  std::string root;
  std::string point;
  std::string type;
  std::vector<std::string> super_options;
};

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  for (auto part : std::views::split(text, separator)) parts.emplace_back(part.begin(), part.end());
  return parts;
}

std::optional<Mount> parse_mount(const std::string& line) {
  std::istringstream words(line);
  std::vector<std::string> fields;
  for (std::string word; words >> word;) fields.push_back(word);
  const auto dash = std::ranges::find(fields, "-");
  if (fields.size() < 5 || dash == fields.end() || fields.end() - dash < 4) return std::nullopt;
  return Mount{fields[3], fields[4], *(dash + 1), split(*(dash + 3), ',')};
}

std::vector<Mount> parse_mounts(std::string_view mountinfo) {
  std::vector<Mount> mounts;
  for (const auto& line : split(mountinfo, '\n'))
    if (auto mount = parse_mount(line)) mounts.push_back(std::move(*mount));
  return mounts;
}

// The first v1 mount of `controller`, or the first cgroup2 mount when `controller` is empty.
const Mount* find_mount(const std::vector<Mount>& mounts, const std::string& controller) {
  auto found = std::ranges::find_if(mounts, [&](const Mount& mount) {
    if (controller.empty()) return mount.type == "cgroup2";
    return mount.type == "cgroup" && std::ranges::find(mount.super_options, controller) != mount.super_options.end();
  });
  return found == mounts.end() ? nullptr : &*found;
}

// The process's path in the hierarchy of `controller` ("" for v2's "0::PATH" line).
std::optional<std::string> own_path(std::string_view proc_cgroup, const std::string& controller) {
  for (const auto& line : split(proc_cgroup, '\n')) {
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const auto controllers = split(std::string_view(line).substr(first + 1, second - first - 1), ',');
    const bool named = controller.empty() ? line.substr(first + 1, second - first - 1).empty()
                                          : std::ranges::find(controllers, controller) != controllers.end();
    if (named) return line.substr(second + 1);
  }
  return std::nullopt;
}

// `path` (absolute in the hierarchy) below the mount point `point`.
fs::path under(const std::string& point, const std::string& path) {
  const auto relative = fs::path(path).relative_path();
  return relative.empty() ? fs::path(point) : fs::path(point) / relative;
}

// The folder of the process's `path` in the hierarchy mounted at `mount`.
fs::path folder(const Mount& mount, std::string path) {
  if (mount.root != "/" && path.starts_with(mount.root)) path.erase(0, mount.root.size());
  return under(mount.point, path);
}

std::optional<fs::path> controller_folder(const std::vector<Mount>& mounts, std::string_view proc_cgroup,
                                          const std::string& controller, const std::string& parent) {
  const auto* mount = find_mount(mounts, controller);
  if (mount == nullptr) return std::nullopt;
  if (!parent.empty()) return under(mount->point, parent);
  auto path = own_path(proc_cgroup, controller);
  if (!path) return std::nullopt;
  return folder(*mount, *path);
}

// The file's text; empty when it cannot be read (a hierarchy without it).
std::string read_text(const fs::path& path) { return read_file(path).value_or(""); }

}  // namespace

CgroupDirs CgroupDirs::child(const std::string& name) const { return {version, memory / name, pids / name}; }

Result<CgroupDirs> locate_cgroup(std::string_view mountinfo, std::string_view proc_cgroup, const std::string& parent) {
  const auto mounts = parse_mounts(mountinfo);
  auto memory = controller_folder(mounts, proc_cgroup, "memory", parent);
  auto pids = controller_folder(mounts, proc_cgroup, "pids", parent);
  if (memory && pids) return CgroupDirs{CgroupVersion::v1, *memory, *pids};
  if (auto unified = controller_folder(mounts, proc_cgroup, "", parent))
    return CgroupDirs{CgroupVersion::v2, *unified, *unified};
  return fail(Error::not_found(
      "no cgroup hierarchy with the memory and pids controllers: neither both as cgroup v1 mounts nor a cgroup2 mount"));
}

Result<CgroupDirs> own_cgroup(const std::string& parent) {
  auto dirs = locate_cgroup(read_text("/proc/self/mountinfo"), read_text("/proc/self/cgroup"), parent);
  if (!dirs || dirs->version == CgroupVersion::v1) return dirs;
  auto root = dirs->memory;  // the hierarchy's root: the top folder that still holds cgroup files
  while (root.has_parent_path() && root != root.parent_path() && fs::exists(root.parent_path() / "cgroup.controllers"))
    root = root.parent_path();
  auto text = read_text(root / "cgroup.controllers");
  std::erase(text, '\n');
  const auto controllers = split(text, ' ');
  for (const std::string name : {"memory", "pids"})
    if (std::ranges::find(controllers, name) == controllers.end())
      return fail(Error::not_found("the cgroup2 hierarchy at " + root.string() + " does not offer the " + name +
                                   " controller (its cgroup.controllers: '" + text + "')"));
  return dirs;
}

}  // namespace volador::sandbox
