#include "runtime/devices/device.hpp"

namespace volador::devices {


Result<SlotChoice> parse_slot_choice(const std::string& text) {
  if (text == "auto") return SlotChoice::automatic;
  if (text == "gpu") return SlotChoice::gpu;
  if (text == "cpu") return SlotChoice::cpu;
  return fail(Error::invalid_argument("slot type '" + text + "': expected auto, gpu or cpu"));
}

Result<std::vector<Slot>> plan_slots(SlotChoice choice, const std::vector<Device>& gpus, std::uint32_t cpu_slots) {
  if (choice == SlotChoice::gpu && gpus.empty())
    return fail(Error::invalid_argument("--slot-type gpu: no GPU found on this host"));
  std::vector<Slot> slots;
  if (choice == SlotChoice::cpu || gpus.empty()) {
    slots.assign(cpu_slots, Slot{SlotType::cpu, std::nullopt});
    return slots;
  }
  for (const auto& gpu : gpus) slots.push_back({SlotType::gpu, gpu});
  return slots;
}

}  // namespace volador::devices
