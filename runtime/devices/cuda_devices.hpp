#pragma once
// The devices the CUDA runtime shows (builds with CUDA; elsewhere none).
// Internal to runtime/devices: use discover_gpus().

#include "runtime/devices/discovery.hpp"

namespace volador::devices {

[[nodiscard]] Discovery cuda_devices();

}  // namespace volador::devices
