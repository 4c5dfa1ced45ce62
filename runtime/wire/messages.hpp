#pragma once
// Control-plane records: each is defined once, in schemas/control.capnp, and
// generated as a plain C++ struct in volador::wire (schemas/control.records.hpp,
// with its enums and the JSON the CLI prints); runtime/wire/codec.hpp turns
// them into the bytes CAF carries. What follows are helpers over them.

#include <string>

#include "schemas/control.records.hpp"

namespace volador::wire {

// What a trial's slots must share: "cpu", or "gpu:" and the GPU model.
std::string slot_kind(const SlotSpec& slot);

}  // namespace volador::wire
