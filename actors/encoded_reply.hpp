#pragma once
// A handler's answer of Cap'n Proto bytes: the encoded message, or its error
// as a caf::error (actors/caf_error.hpp).

#include <caf/result.hpp>

#include "actors/caf_error.hpp"
#include "runtime/core/error.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors {

template <class Message>
caf::result<wire::Bytes> encoded_reply(Result<Message> message) {
  if (!message) return to_caf_error(message.error());
  return wire::encode(*message);
}

}  // namespace volador::actors
