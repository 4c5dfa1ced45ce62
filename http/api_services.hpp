#pragma once
// What the HTTP API works with: the queries' read model and the master's
// journal (read directly: the queries do not queue behind the gateway
// actor), the gateway for commands (create, pause, kill, agents ...), and
// the users.

#include <filesystem>
#include <memory>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "master/read_model.hpp"
#include "master/users/user_directory.hpp"
#include "storage/journal/journal.hpp"

namespace volador::http {

struct ApiServices {
  std::shared_ptr<storage::Journal> journal;
  std::shared_ptr<const master::ReadModel> summaries;  // follows `journal`
  std::filesystem::path data_dir;  // the master's: checkpoints, upload scratch space
  caf::actor_system* system = nullptr;
  caf::actor gateway;  // commands, on the caller's token
  caf::actor pool;     // the slots, for /metrics
  std::shared_ptr<master::UserDirectory> users;
};

}  // namespace volador::http
