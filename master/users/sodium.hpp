#pragma once
// libsodium, initialised once for the process before any of its calls.

#include "runtime/core/error.hpp"

namespace volador::master {

// Calls sodium_init once (thread-safe; later calls return the first outcome).
// internal when libsodium cannot initialise (no entropy source).
Status ensure_sodium();

}  // namespace volador::master
