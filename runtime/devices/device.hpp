#pragma once
// What an agent offers: slots, each a GPU (one device) or a CPU slot. The
// slot type and, for GPUs, the model are the slot's kind: a trial's slots
// are all of one kind.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/error.hpp"
#include "runtime/core/states.hpp"

namespace volador::devices {

// One GPU as discovery found it.
struct Device {
  std::string uuid;                // "GPU-8f3c..." (CUDA's UUID), what CUDA_VISIBLE_DEVICES names
  std::string model;               // "NVIDIA H100 80GB HBM3"
  std::uint64_t memory_bytes = 0;  // total device memory
  bool operator==(const Device&) const = default;
};

using volador::SlotType;  // schemas/states.capnp

// One slot of an agent: a CPU slot, or a GPU slot bound to its device.
struct Slot {
  SlotType type = SlotType::cpu;
  std::optional<Device> device;  // set exactly for GPU slots
  bool operator==(const Slot&) const = default;
};

// What `--slot-type` asks for: GPUs when there are any, else CPU slots (auto);
// GPUs only; CPU slots only.
enum class SlotChoice { automatic, gpu, cpu };

// Parses "auto", "gpu" or "cpu". invalid_argument naming the text otherwise.
Result<SlotChoice> parse_slot_choice(const std::string& text);

// The slots an agent offers: one per GPU in `gpus` (auto with GPUs, or gpu),
// or `cpu_slots` CPU slots (cpu, or auto without GPUs). invalid_argument
// when gpu is asked for and there are none.
Result<std::vector<Slot>> plan_slots(SlotChoice choice, const std::vector<Device>& gpus, std::uint32_t cpu_slots);

}  // namespace volador::devices
