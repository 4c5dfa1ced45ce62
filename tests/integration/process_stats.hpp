#pragma once
// Test support: what /proc says about a process (a master or agent the test started).

#include <sys/types.h>

#include <string>

namespace volador::testing {

// A line of /proc/PID/status in KiB, e.g. "VmRSS" or "VmHWM" (the peak resident size); -1 when absent.
long status_kib(pid_t pid, const std::string& key);
// The CPU time the process has used (user and system), in clock ticks (sysconf(_SC_CLK_TCK) a second).
long cpu_ticks(pid_t pid);
// How many descriptors the process has open.
long open_descriptors(pid_t pid);
// The process's soft limit of open files (/proc/PID/limits); -1 when absent.
long soft_descriptor_limit(pid_t pid);

}  // namespace volador::testing
