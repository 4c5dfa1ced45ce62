#pragma once
// The tree of processes below one process, read from /proc, and ending it
// whole: a command's children may start their own process groups or
// sessions, so killing one group is not enough. A process that made itself
// a subreaper keeps every orphan of its tree as its own child, so all of
// them are found (and reaped) from it.

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "runtime/core/error.hpp"

namespace volador::process {

// Makes the calling process the reaper of its orphaned descendants
// (PR_SET_CHILD_SUBREAPER). Error io with errno's text when refused.
Status become_subreaper();

// The live processes descended from `root` (its children, theirs, ...),
// zombies left out; empty when it has none or /proc cannot be read.
std::vector<pid_t> live_descendants(pid_t root);

// Ends every descendant of the calling process: SIGTERM, then SIGKILL to
// those still alive after `grace`, until none is left. Zombies that are its
// children are reaped, except `reaped_elsewhere` (a child whose exit status
// another thread waits for, e.g. a ChildProcess's).
void terminate_descendants(std::chrono::milliseconds grace, pid_t reaped_elsewhere = 0);

// From now on, SIGTERM makes the calling process write `notice` (a line) to
// stderr, end every descendant as terminate_descendants(grace) does, and
// exit with status 128 + SIGTERM. Error io when it cannot be set up.
Status end_descendants_on_sigterm(std::chrono::milliseconds grace, std::string notice);

}  // namespace volador::process
