#pragma once
// Whether the kernel's memory-cgroup OOM killer struck inside a container,
// read from the kernel log (/dev/kmsg), as Kubernetes' kubelet (cAdvisor's
// oomparser) tells a container's OOM kill. The runtimes' own flag
// (`inspect`'s State.OOMKilled, set by conmon) stays false on hosts with
// cgroup v1 and runc, and the container's cgroup, with its counters, is
// gone by the time its client exits; the kernel's line names the cgroup,
// which holds the container's id on every runtime and cgroup manager
// (libpod-ID, docker/ID, libpod-ID.scope).

#include <string>
#include <string_view>

#include "runtime/core/error.hpp"

namespace volador::sandbox {

// Whether `kernel_log` (messages, one a line) holds an "oom-kill:" line
// whose out-of-memory cgroup (oom_memcg=) names `container_id`. False for an
// empty id.
bool oom_kill_logged_for(std::string_view kernel_log, std::string_view container_id);

// The messages the kernel log holds now, one a line (/dev/kmsg, read without
// waiting). Error unavailable naming the file when it cannot be read (it
// needs CAP_SYSLOG).
Result<std::string> read_kernel_log();

}  // namespace volador::sandbox
