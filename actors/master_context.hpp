#pragma once
// What every master-side actor shares: the journal, the users (who a
// client's token logs in), the resource pool, the gateway (for routing rank
// workers to their trial), the address rank workers use to reach the master
// and the identities the cluster CA issues them.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include <caf/actor.hpp>

#include "actors/interfaces.hpp"
#include "master/rank_identities.hpp"
#include "master/timings.hpp"
#include "master/users/user_directory.hpp"
#include "storage/journal/journal.hpp"

namespace volador::actors {

struct MasterContext {
  std::shared_ptr<storage::Journal> journal;
  std::shared_ptr<master::UserDirectory> users;  // over `journal`
  PoolActor pool;
  GatewayActor gateway;
  std::string host;        // as rank workers reach the master
  std::uint16_t port = 0;
  std::filesystem::path data_dir;  // default checkpoint storage lives under it
  master::Timings timings;
  std::shared_ptr<master::RankIdentities> rank_identities;  // what rank launches carry, signed by the cluster CA
};

}  // namespace volador::actors
