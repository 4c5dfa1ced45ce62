#pragma once
// Commits one checkpoint (CheckpointStore::commit: checksums, fsyncs and the
// rename) on a thread of its own, so that the trial's actor, on the
// scheduler's few threads, never waits for the disk. Spawned detached for
// one commit by the trial; it quits once it answered.

#include <cstdint>
#include <memory>
#include <string>

#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "actors/atoms.hpp"
#include "storage/checkpoints/checkpoint_store.hpp"

namespace volador::actors {

using CheckpointCommitter =
    caf::typed_actor<
        // the pending checkpoint's uuid and folder: answered with its total bytes once committed, or the error
        caf::replies_to<commit_atom, std::string, std::string>::with<std::uint64_t>>;

CheckpointCommitter::behavior_type checkpoint_committer(CheckpointCommitter::pointer self,
                                                        std::shared_ptr<checkpoints::CheckpointStore> store);

}  // namespace volador::actors
