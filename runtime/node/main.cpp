// volador-node: one binary on every host.
//   volador-node up      master + agent in one process (single-host cluster)
//   volador-node master  the master: experiments, trials, resource pool, journal
//   volador-node agent   offers this host's slots to a master
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <fstream>
#include <thread>

#include "runtime/net/actor_system_setup.hpp"
#include "runtime/node/node_roles.hpp"

namespace {

using namespace volador;

struct Flags {
  std::string data_dir = "volador-data";
  std::string listen = "127.0.0.1:17080";
  std::string master = "127.0.0.1:17080";
  std::string agent_id;
  std::string work_dir;
  std::uint32_t slots = std::max(1u, std::thread::hardware_concurrency());
};

int fail_with(const Error& error) {
  spdlog::error("{}", error.message);
  return 1;
}

// Waits for SIGINT/SIGTERM, or until `stopped` becomes true.
void wait_for_signal(const std::atomic<bool>& stopped) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  timespec tick{0, 200'000'000};
  while (!stopped && sigtimedwait(&signals, nullptr, &tick) < 0) {
  }
}

Result<net::Endpoint> loopback_endpoint(const std::string& text) {
  auto endpoint = net::parse_endpoint(text, true);
  if (!endpoint) return endpoint;
  if (!endpoint->host.starts_with("127.") && endpoint->host != "localhost")
    return fail(Error::invalid_argument(
        "--listen " + text + ": this build listens on loopback only (without TLS any peer could use the port)"));
  return endpoint;
}

std::string default_agent_id() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

// Records the bound address for scripts: DATA/master.addr holds HOST:PORT.
// Written aside and renamed, so a reader never sees a partial file.
void write_address_file(const std::string& data_dir, const net::Endpoint& endpoint) {
  const auto path = std::filesystem::path(data_dir) / "master.addr";
  const auto partial = std::filesystem::path(path).concat(".partial");
  std::ofstream(partial) << endpoint.to_string() << '\n';
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) spdlog::error("cannot write {}: {}", path.string(), error.message());
}

// Runs an agent until a stop signal. When it loses its master (restarted or
// crashed) the agent reconnects by itself, keeping its workers; it ends only
// when the master stays unreachable (exit status 1).
int run_agent(caf::actor_system& system, const Flags& flags, std::atomic<bool>& agent_ended) {
  auto endpoint = net::parse_endpoint(flags.master);
  if (!endpoint) return fail_with(endpoint.error());
  auto work_dir = flags.work_dir.empty() ? std::filesystem::path(flags.data_dir) / "work" : std::filesystem::path(flags.work_dir);
  std::string agent_id = flags.agent_id.empty() ? default_agent_id() : flags.agent_id;
  auto master = node::connect_to_master(system, *endpoint, std::chrono::seconds(30));
  if (!master) return fail_with(master.error());
  auto agent = node::start_agent(system, {agent_id, flags.slots, work_dir, *endpoint}, *master);
  if (!agent) return fail_with(agent.error());
  caf::actor_cast<caf::strong_actor_ptr>(*agent)->get()->attach_functor([&agent_ended] { agent_ended = true; });
  wait_for_signal(agent_ended);
  if (agent_ended) return fail_with(Error::unavailable("agent " + agent_id + ": gave up on the master at " + endpoint->to_string()));
  caf::anon_send_exit(*agent, caf::exit_reason::user_shutdown);
  return 0;
}

int run(const std::string& role, const Flags& flags) {
  caf::actor_system_config config;
  net::configure_actor_system(config);
  caf::actor_system system{config};
  std::atomic<bool> stopped{false};
  if (role == "agent") return run_agent(system, flags, stopped);

  auto listen = loopback_endpoint(flags.listen);
  if (!listen) return fail_with(listen.error());
  auto running = node::start_master(system, {flags.data_dir, *listen});
  if (!running) return fail_with(running.error());
  write_address_file(flags.data_dir, running->bound);
  std::vector<caf::actor> started{running->gateway};
  if (role == "up") {
    auto agent = node::start_agent(
        system, {"local", flags.slots, std::filesystem::path(flags.data_dir) / "work", std::nullopt}, running->gateway);
    if (!agent) return fail_with(agent.error());
    caf::actor_cast<caf::strong_actor_ptr>(*agent)->get()->attach_functor([&stopped] { stopped = true; });
    started.push_back(*agent);
  }
  wait_for_signal(stopped);
  for (auto& actor : started) caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
  return stopped ? 2 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Block the stop signals in every thread; main waits for them with sigtimedwait.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  Flags flags;
  CLI::App app{"volador-node: runs a Volador master, an agent, or both (single-host cluster)"};
  app.set_version_flag("--version", "volador-node 0.1.0");
  app.require_subcommand(1);
  auto* up = app.add_subcommand("up", "single-host cluster: master and agent in one process");
  auto* master = app.add_subcommand("master", "run the master");
  auto* agent = app.add_subcommand("agent", "offer this host's slots to a master");
  for (auto* cmd : {up, master}) {
    cmd->add_option("--data", flags.data_dir, "data folder (journal, trial folders)")->capture_default_str();
    cmd->add_option("--listen", flags.listen, "HOST:PORT to listen on (loopback; port 0 picks one)")->capture_default_str();
  }
  agent->add_option("-m,--master", flags.master, "the master's HOST:PORT")->envname("VOLADOR_MASTER")->capture_default_str();
  agent->add_option("--id", flags.agent_id, "agent name (default: the host name)");
  agent->add_option("--work-dir", flags.work_dir, "where trial folders go")->required();
  for (auto* cmd : {up, agent}) cmd->add_option("--slots", flags.slots, "CPU slots offered")->capture_default_str()->check(CLI::Range(1u, 4096u));
  CLI11_PARSE(app, argc, argv);

  const std::string role = app.get_subcommands().front()->get_name();
  return run(role, flags);
}
