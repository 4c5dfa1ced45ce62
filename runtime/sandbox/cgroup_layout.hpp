#pragma once
// Where a process's cgroups are for the two controllers a trial's limits
// need, memory and pids: cgroup v1 (one hierarchy per controller) when both
// controllers have a v1 mount, else the cgroup2 (unified) hierarchy. Read
// from /proc/self/mountinfo and /proc/self/cgroup; the parsing is pure.

#include <filesystem>
#include <string>
#include <string_view>

#include "runtime/core/error.hpp"

namespace volador::sandbox {

enum class CgroupVersion { v1, v2 };

// The folders of one cgroup: for v1 its folder in the memory hierarchy and in
// the pids hierarchy; for v2 one folder, named twice.
struct CgroupDirs {
  CgroupVersion version = CgroupVersion::v2;
  std::filesystem::path memory;
  std::filesystem::path pids;

  // The child cgroup `name` of this one.
  [[nodiscard]] CgroupDirs child(const std::string& name) const;
  bool operator==(const CgroupDirs&) const = default;
};

// The cgroup that `mountinfo` and `proc_cgroup` (the texts of
// /proc/PID/mountinfo and /proc/PID/cgroup) place their process in; with
// `parent` non-empty (an operator's choice such as "/volador"), that path
// under the hierarchies' roots instead. Error not_found saying what is
// missing when neither version mounts both controllers.
Result<CgroupDirs> locate_cgroup(std::string_view mountinfo, std::string_view proc_cgroup, const std::string& parent);

// locate_cgroup for the calling process; a v2 hierarchy must also offer both
// controllers (its root's cgroup.controllers), else Error not_found.
Result<CgroupDirs> own_cgroup(const std::string& parent);

}  // namespace volador::sandbox
