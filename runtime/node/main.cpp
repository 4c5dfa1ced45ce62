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
void write_address_file(const std::string& data_dir, const net::Endpoint& endpoint) {
  std::ofstream(std::filesystem::path(data_dir) / "master.addr") << endpoint.to_string() << '\n';
}

int run(const std::string& role, const Flags& flags) {
  caf::actor_system_config config;
  net::configure_actor_system(config);
  caf::actor_system system{config};
  std::atomic<bool> stopped{false};
  caf::actor master;
  std::vector<caf::actor> started;

  if (role == "up" || role == "master") {
    auto listen = loopback_endpoint(flags.listen);
    if (!listen) return fail_with(listen.error());
    auto running = node::start_master(system, {flags.data_dir, *listen});
    if (!running) return fail_with(running.error());
    master = running->gateway;
    write_address_file(flags.data_dir, running->bound);
    started.push_back(master);
  } else {
    auto endpoint = net::parse_endpoint(flags.master);
    if (!endpoint) return fail_with(endpoint.error());
    auto gateway = node::connect_to_master(system, *endpoint, std::chrono::seconds(30));
    if (!gateway) return fail_with(gateway.error());
    master = *gateway;
  }
  if (role == "up" || role == "agent") {
    auto work_dir = flags.work_dir.empty() ? std::filesystem::path(flags.data_dir) / "work" : std::filesystem::path(flags.work_dir);
    std::string agent_id = flags.agent_id.empty() ? (role == "up" ? "local" : default_agent_id()) : flags.agent_id;
    auto agent = node::start_agent(system, {agent_id, flags.slots, work_dir}, master);
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
