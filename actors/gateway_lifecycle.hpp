#pragma once
// The gateway's lifecycle requests that need more than one call into
// master/ (lifecycle_requests.hpp): deleting an experiment (refused while its
// actor runs), forking one (the merged submission goes through the gateway's
// own create), setting its description and labels, and finishing the
// deletions a crash cut short when the master starts.

#include <string>

#include <caf/all.hpp>  // caf::result needs make_message declared

#include "actors/master_actor.hpp"
#include "master/users/user_directory.hpp"
#include "runtime/core/error.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors {

using GatewayPointer = GatewayActor::stateful_pointer<MasterState>;

// Deletes experiment `id` for `user`; why not (its refusal while ACTIVE,
// PAUSED or stopping, permission_denied, not_found).
Status delete_experiment(GatewayPointer self, const master::User& user, std::uint64_t id);

// ForkExperimentRequest `bytes` -> CreateExperimentReply: its refusal with
// every error of the changes, or the gateway's answer to the merged
// submission (create_atom, on the same `token`: owned by its user), which
// with `continuing` trains more the forked experiment's trials
// (master/experiment_continuation.hpp).
caf::result<wire::Bytes> fork_experiment(GatewayPointer self, const std::string& token, const wire::Bytes& bytes,
                                         bool continuing);

// ExperimentMetadataChange `bytes`, for `user`.
Status set_experiment_metadata(GatewayPointer self, const master::User& user, const wire::Bytes& bytes);

// Finishes every deletion an earlier master left unfinished (logged).
void finish_interrupted_deletions(const MasterContext& context);

}  // namespace volador::actors
