#pragma once
// The seam through which code that timestamps reads the time: tests pass a
// clock they move themselves.

#include <cstdint>
#include <functional>

namespace volador {

// Milliseconds since the unix epoch.
using Clock = std::function<std::int64_t()>;

// The system's wall clock, in milliseconds since the unix epoch.
std::int64_t system_now_ms();

}  // namespace volador
