#include "runtime/node/node_roles.hpp"

#include <cstdlib>
#include <sstream>
#include <string>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/agent_actor.hpp"
#include "actors/atoms.hpp"
#include "actors/master_actor.hpp"
#include "actors/resource_pool_actor.hpp"
#include "actors/image_ranks.hpp"
#include "actors/worker_sandbox.hpp"
#include "runtime/devices/discovery.hpp"
#include "runtime/net/remote.hpp"
#include "runtime/tls/certificate_authority.hpp"

namespace volador::node {
namespace fs = std::filesystem;

Result<RunningMaster> start_master(caf::actor_system& system, const MasterOptions& options) {
  std::error_code ec;
  fs::create_directories(options.data_dir, ec);
  if (ec) return fail(Error::io("cannot create data folder " + options.data_dir.string() + ": " + ec.message()));
  auto journal = storage::Journal::open(options.data_dir / "journal", options.accept_journal_loss);
  if (!journal) return fail(journal.error());
  if (const auto& damage = (*journal)->damage_report()) {
    std::istringstream lines(*damage);
    for (std::string line; std::getline(lines, line);) spdlog::error("{}", line);
  }
  actors::MasterContext context;
  context.journal = std::move(*journal);
  auto spill = master::SummarySpill::open(options.data_dir / "query-summaries");
  if (!spill) return fail(spill.error());
  auto summaries = master::follow_journal(*context.journal, std::move(*spill));
  if (!summaries) return fail(summaries.error());
  context.users = std::make_shared<master::UserDirectory>(context.journal);
  if (auto admin = master::ensure_first_admin(*context.users, options.data_dir, options.admin_password); !admin)
    return fail(admin.error());
  context.timings = options.timings;
  auto ca = tls::CertificateAuthority::open_or_create(options.data_dir / "tls" / "ca");
  if (!ca) return fail(ca.error());
  auto issue = [ca = std::make_shared<const tls::CertificateAuthority>(std::move(*ca)),
                validity = options.timings.rank_identity_validity](const tls::RankName& rank) {
    return ca->issue_rank(rank, std::chrono::duration_cast<std::chrono::seconds>(validity));
  };
  context.rank_identities =
      std::make_shared<master::RankIdentities>(issue, options.timings.rank_identity_validity, system_now_ms);
  context.pool = system.spawn(actors::resource_pool_actor, options.timings.reattach_grace, options.cluster);
  context.data_dir = fs::absolute(options.data_dir);
  auto gateway = system.spawn(actors::master_actor, context, *summaries);
  // Published dynamically typed: remote peers check their messages on arrival.
  auto port = net::publish(system, caf::actor_cast<caf::actor>(gateway), options.listen);
  if (!port) {
    caf::anon_send_exit(gateway, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(context.pool, caf::exit_reason::user_shutdown);
    return fail(port.error());
  }
  // Rank workers of an in-process agent need the port actually bound (the
  // option may be 0) and an address to dial (remote agents give theirs).
  const bool wildcard = options.listen.host == "0.0.0.0" || options.listen.host == "::";
  // From an actor of this process: the gateway takes its address from no one else.
  caf::scoped_actor(system)->send(gateway, actors::listening_atom::value,
                                  wildcard ? std::string("127.0.0.1") : options.listen.host, *port);
  spdlog::info("master listening on {}:{} (mutual TLS), data in {}", options.listen.host, *port, options.data_dir.string());
  return RunningMaster{caf::actor_cast<caf::actor>(gateway), caf::actor_cast<caf::actor>(context.pool),
                       {options.listen.host, *port}, context.users, context.journal, *summaries};
}

Result<caf::actor> start_agent(caf::actor_system& system, const AgentNodeOptions& options, caf::actor master) {
  std::error_code ec;
  fs::create_directories(options.work_dir, ec);
  if (ec) return fail(Error::io("cannot create work folder " + options.work_dir.string() + ": " + ec.message()));
  auto self_path = fs::read_symlink("/proc/self/exe", ec);
  auto worker = self_path.parent_path() / "volador-worker";
  if (ec || !fs::exists(worker)) return fail(Error::not_found("volador-worker not found beside " + self_path.string()));
  actors::AgentOptions agent;
  agent.agent_id = options.agent_id;
  agent.slots = options.slots;
  agent.work_dir = fs::absolute(options.work_dir);
  agent.worker_program = worker;
  agent.master_endpoint = options.master_endpoint;
  agent.worker_tls_dir = fs::absolute(options.worker_tls_dir);
  agent.advertise = options.advertise;
  agent.timings = options.timings;
  agent.pool = options.pool;
  agent.labels = options.labels;
  agent.limits = options.limits;
  agent.work_folders = options.work_folders;
  if (const char* python = std::getenv("VOLADOR_PYTHON"); python != nullptr && *python != '\0')
    agent.python_program = python;  // else /usr/bin/python3
  agent.sandbox = options.sandbox;
  if (auto ready = actors::prepare_sandboxes(agent); !ready) return fail(ready.error());
  auto containers = actors::prepare_image_ranks(agent, options.container_runtime);
  if (!containers) return fail(containers.error());
  agent.containers = std::move(*containers);
  actors::remove_left_containers(agent);
  return caf::actor_cast<caf::actor>(system.spawn(actors::agent_actor, agent, std::move(master)));
}

Result<std::vector<wire::SlotSpec>> offered_slots(const std::string& slot_type, std::uint32_t cpu_slots) {
  auto choice = devices::parse_slot_choice(slot_type);
  if (!choice) return fail(choice.error());
  const auto found = devices::discover_gpus();
  auto planned = devices::plan_slots(*choice, found.gpus, cpu_slots);
  if (!planned) return fail(Error::invalid_argument(planned.error().message + " (" + found.source + ")"));
  std::vector<wire::SlotSpec> slots;
  for (const auto& slot : *planned) {
    const auto device = slot.device.value_or(devices::Device{});
    slots.push_back({.type = slot.type, .device_uuid = device.uuid, .model = device.model, .memory_bytes = device.memory_bytes});
  }
  spdlog::info("offering {} {} slot(s); GPUs: {} found by {}", slots.size(),
               slots.empty() ? "" : lowercase_name(slots[0].type),
               found.gpus.size(), found.source);
  return slots;
}

}  // namespace volador::node
