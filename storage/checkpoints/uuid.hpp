#pragma once
// Checkpoint ids: random 128-bit UUIDs (RFC 4122 version 4) in canonical text
// form, lowercase: "xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx".

#include <string>
#include <string_view>

#include "runtime/core/error.hpp"

namespace volador::checkpoints {

// A fresh v4 UUID from the OS random source. Error internal only if the
// source fails (never on a working Linux). Thread-safe.
Result<std::string> new_uuid();

// True for the canonical lowercase text form of any UUID (any version). The
// stores accept only such ids, so an id can never name a path outside them.
[[nodiscard]] bool is_uuid(std::string_view text);

}  // namespace volador::checkpoints
