#pragma once
// volador::Error <-> caf::error, so that an error value crosses the network
// with its code and message (category atom "volador").

#include <caf/error.hpp>

#include "runtime/core/error.hpp"

namespace volador::actors {

caf::error to_caf_error(const Error& error);

// A caf::error back to a volador::Error; errors of CAF itself (timeouts, a
// peer that went away) become `unavailable` with CAF's rendering; a code this
// build does not know (a newer peer) becomes `internal`, message kept.
Error from_caf_error(const caf::error& error);

}  // namespace volador::actors
