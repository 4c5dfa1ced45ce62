#include "runtime/wire/messages.hpp"

namespace volador::wire {

std::string slot_kind(const SlotSpec& slot) { return slot.type == volador::SlotType::gpu ? "gpu:" + slot.model : "cpu"; }

}  // namespace volador::wire
