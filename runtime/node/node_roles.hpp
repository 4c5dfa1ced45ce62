#pragma once
// The roles a volador-node process can play, each started on an existing
// actor system and left running; the caller waits for a signal or for the
// role's actors to end.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "master/read_model.hpp"
#include "master/timings.hpp"
#include "master/users/first_admin.hpp"
#include "master/users/user_directory.hpp"
#include "runtime/config/cluster_config.hpp"
#include "runtime/core/error.hpp"
#include "runtime/net/endpoint.hpp"
#include "runtime/sandbox/container_runtime.hpp"
#include "runtime/sandbox/rank_cgroups.hpp"
#include "runtime/sandbox/work_folders.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::node {

struct MasterOptions {
  std::filesystem::path data_dir;  // journal under data_dir/journal
  net::Endpoint listen;            // any address of this host (0.0.0.0: all); port 0 picks one
  master::Timings timings;         // the trials' and the pool's waits
  master::AdminPasswordSource admin_password;  // the first admin's, on the first start
  bool accept_journal_loss = false;  // open a journal whose damaged log lost acknowledged writes (Journal::open)
  config::ClusterConfig cluster = config::default_cluster_config();  // its pools (--cluster-config)
};

struct RunningMaster {
  caf::actor gateway;
  caf::actor pool;      // the resource pool: stopped with the gateway
  net::Endpoint bound;  // the address actually listened on
  std::shared_ptr<master::UserDirectory> users;  // the gateway's, to share (the HTTP server)
  std::shared_ptr<storage::Journal> journal;     // the master's, for the HTTP server's queries
  std::shared_ptr<const master::ReadModel> summaries;  // the queries' read model over `journal`
};

// Opens the journal and loads the queries' read model from it (which then
// follows its commits), spawns the resource pool and the gateway and publishes
// the gateway at `listen` (mutual TLS: the actor system presents the master's
// identity). On the first start, creates the first admin
// (master/users/first_admin.hpp). Errors: the journal cannot be opened (in use,
// unreadable, damaged so that acknowledged writes are lost and the loss not
// accepted), the first admin cannot be made, or the port cannot be bound. A
// damage report is logged as an error, line by line.
Result<RunningMaster> start_master(caf::actor_system& system, const MasterOptions& options);

struct AgentNodeOptions {
  std::string agent_id;
  std::vector<wire::SlotSpec> slots;  // see offered_slots()
  std::filesystem::path work_dir;
  // The master's address, to reconnect to (keeping the workers running) when
  // it goes away; nullopt for an agent in the master's own process.
  std::optional<net::Endpoint> master_endpoint;
  std::filesystem::path worker_tls_dir;  // an identity folder whose CA checks its workers' rank identities
  std::string advertise;                 // the data-plane address of its workers; empty: routed towards the master
  master::Timings timings;               // its waits for the master, and its workers'
  std::string pool;                      // the resource pool it joins; empty: the cluster's default for its slots
  std::map<std::string, std::string> labels;  // --label key=value
  sandbox::LimitOptions limits;               // its ranks' memory and process limits
  sandbox::WorkFolderOptions work_folders;    // how long a failed rank's folder stays; the least free work disk
  bool sandbox = true;                        // its ranks in sandboxes (--sandbox off: without, said loudly)
  // The container runtime it runs environment.image with (--container-runtime), probed at its start.
  sandbox::ContainerRuntimeChoice container_runtime = sandbox::ContainerRuntimeChoice::automatic;
};

// Spawns an agent that registers with `master` and launches volador-worker
// (found beside this executable) for each rank it is given.
Result<caf::actor> start_agent(caf::actor_system& system, const AgentNodeOptions& options, caf::actor master);

// The slots an agent on this host offers: `slot_type` auto (one per GPU the
// CUDA runtime or VOLADOR_FAKE_GPUS shows, else `cpu_slots` CPU slots), gpu
// or cpu. invalid_argument for a bad type or gpu without GPUs.
Result<std::vector<wire::SlotSpec>> offered_slots(const std::string& slot_type, std::uint32_t cpu_slots);

}  // namespace volador::node
