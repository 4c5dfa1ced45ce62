#pragma once
// Finding this host's GPUs: the CUDA runtime in builds with CUDA (count,
// model, memory, UUID of each device the driver shows), none otherwise.
//
// Test seam: VOLADOR_FAKE_GPUS=N (or N:MODEL) makes discovery report N
// devices of that model ("Fake GPU" by default, 80 GiB each, UUIDs
// "GPU-fake-<host>-<i>"), so slot types, scheduling and device binding are
// exercised end to end on machines without GPUs. Nothing is run on them.

#include <string>
#include <vector>

#include "runtime/devices/device.hpp"

namespace volador::devices {

struct Discovery {
  std::vector<Device> gpus;
  std::string source;  // how they were found, for the agent's log: "CUDA runtime", "VOLADOR_FAKE_GPUS", ...
};

// This host's GPUs. Never fails: a missing driver or runtime is no GPU, said in `source`.
[[nodiscard]] Discovery discover_gpus();

// The fake devices VOLADOR_FAKE_GPUS describes ("N" or "N:MODEL"), for host
// `host`; invalid_argument naming the text when it is not that.
Result<std::vector<Device>> fake_gpus(const std::string& spec, const std::string& host);

}  // namespace volador::devices
