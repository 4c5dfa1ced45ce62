#pragma once
// A blocking request to an actor from a thread outside the actor system
// (the client, the HTTP server's threads): one call, a timeout, the decoded
// reply or an Error.

#include <chrono>
#include <utility>

#include <caf/all.hpp>

#include "actors/caf_error.hpp"
#include "runtime/core/error.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors {

// Sends `args` to `target` and waits up to `timeout` for its reply: a
// wire::Bytes reply decoded as `Reply`, or (Reply = bool) a command's
// acknowledgement. The actor's error, or unavailable on timeout.
template <class Reply, class... Args>
Result<Reply> blocking_request(caf::actor_system& system, const caf::actor& target, std::chrono::milliseconds timeout,
                               Args&&... args) {
  caf::scoped_actor self{system};
  Result<Reply> out = fail(Error::internal("no reply"));
  auto failed = [&](const caf::error& error) { out = fail(from_caf_error(error)); };
  if constexpr (std::is_same_v<Reply, bool>)
    self->request(target, timeout, std::forward<Args>(args)...).receive([&](bool done) { out = done; }, failed);
  else
    self->request(target, timeout, std::forward<Args>(args)...)
        .receive([&](const wire::Bytes& bytes) { out = wire::decode<Reply>(bytes); }, failed);
  return out;
}

}  // namespace volador::actors
