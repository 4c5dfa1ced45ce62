#include "actors/checkpoint_committer.hpp"

#include <caf/all.hpp>

#include "actors/caf_error.hpp"

namespace volador::actors {

CheckpointCommitter::behavior_type checkpoint_committer(CheckpointCommitter::pointer self,
                                                        std::shared_ptr<checkpoints::CheckpointStore> store) {
  return {
      [=](commit_atom, const std::string& uuid, const std::string& dir) {
        auto promise = self->make_response_promise<std::uint64_t>();
        auto manifest = store->commit({uuid, dir});
        if (manifest) promise.deliver(manifest->total_bytes);
        else promise.deliver(to_caf_error(manifest.error()));
        self->quit();
        return promise;
      },
  };
}

}  // namespace volador::actors
