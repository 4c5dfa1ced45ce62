// volador-node: one binary on every host.
//   volador-node up      master + agent in one process (single-host cluster)
//   volador-node master  the master: experiments, trials, resource pool, journal
//   volador-node agent   offers this host's slots to a master
//   volador-node certs issue NAME   a bundle for another host to join with
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <CLI/CLI.hpp>
#include <malloc.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <fstream>
#include <thread>

#include "runtime/net/actor_system_setup.hpp"
#include "runtime/net/remote.hpp"
#include "runtime/node/cluster_tls.hpp"
#include "runtime/node/node_roles.hpp"
#include "http/http_server.hpp"
#include "runtime/node/agent_placement.hpp"
#include "runtime/node/timings_file.hpp"
#include "runtime/tls/identity.hpp"
#include "runtime/tls/private_file.hpp"
#include "runtime/core/duration.hpp"

namespace {

using namespace volador;

struct Flags {
  std::string data_dir = "volador-data";
  std::string listen = "127.0.0.1:17080";
  std::string master = "127.0.0.1:17080";
  std::string agent_id;
  std::string work_dir;
  std::string bundle;     // agent: its identity
  std::string advertise;  // agent: its workers' data-plane address
  std::string node_name;  // certs issue
  std::string output;     // certs issue
  std::uint32_t slots = std::max(1u, std::thread::hardware_concurrency());
  std::string admin_password_file;  // up, master: the first admin's password; empty: VOLADOR_ADMIN_PASSWORD, else random
  std::string slot_type = "auto";
  std::string timings_file;  // up, master, agent: --timings; empty: the defaults
  std::string http_listen;   // up, master: the HTTP API and web UI; empty: --listen's host, the next port
  std::string http_tls = "auto";
  std::string web_dir;       // up, master: the web UI's files; empty: web/dist beside the build's bin/
  std::vector<std::string> http_names;  // up, master: more names for the HTTPS certificate
  bool accept_journal_loss = false;     // up, master: open a journal whose log lost acknowledged writes
  std::string cluster_config;           // up, master: the pools (--cluster-config); empty: one default pool
  std::string pool;                     // up, agent: the pool the agent joins; empty: the default for its slots
  std::vector<std::string> labels;      // up, agent: --label key=value
  sandbox::LimitOptions limits;         // up, agent: its ranks' memory and process limits
  std::string keep_failed_work_dirs = "1h";  // up, agent: how long a failed rank's folder stays
  std::uint64_t min_free_disk = 1ull << 30;  // up, agent: below it the agent starts no trial
  std::string sandbox = "on";                // up, agent: its ranks in sandboxes, or (off) not
  std::string container_runtime = "auto";    // up, agent: what it runs environment.image with
};

// The agent's work folder options; Error invalid_argument for a bad --keep-failed-work-dirs.
Result<sandbox::WorkFolderOptions> work_folder_options(const Flags& flags) {
  auto keep = flags.keep_failed_work_dirs == "0" ? std::chrono::milliseconds(0) : parse_duration(flags.keep_failed_work_dirs);
  if (!keep) return fail(Error::invalid_argument("--keep-failed-work-dirs: " + keep.error().message));
  return sandbox::WorkFolderOptions{*keep, flags.min_free_disk};
}

// The first admin's password (used on the master's first start only).
master::AdminPasswordSource admin_password_source(const Flags& flags) {
  master::AdminPasswordSource source;
  if (!flags.admin_password_file.empty()) source.file = flags.admin_password_file;
  if (const char* value = std::getenv("VOLADOR_ADMIN_PASSWORD"); value != nullptr && *value != '\0') source.value = value;
  return source;
}

int fail_with(const Error& error) {
  spdlog::error("{}", error.message);
  return 1;
}

// How long this node waits for the others: --timings FILE, else the defaults.
Result<master::Timings> node_timings(const Flags& flags) {
  if (flags.timings_file.empty()) return master::Timings{};
  return node::read_timings_file(flags.timings_file);
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

// Writes `text` and a newline to `path` for scripts (DATA/master.addr holds
// HOST:PORT, DATA/http.addr the web UI's URL); written aside and renamed, so
// a reader never sees a partial file.
void write_text_file_atomically(const std::filesystem::path& path, const std::string& text) {
  const auto partial = std::filesystem::path(path).concat(".partial");
  std::ofstream(partial) << text << '\n';
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) spdlog::error("cannot write {}: {}", path.string(), error.message());
}

// --http-listen, else --listen's host and the next port (0 when --listen's is 0).
Result<net::Endpoint> http_endpoint(const Flags& flags, const net::Endpoint& listen) {
  if (!flags.http_listen.empty()) return net::parse_endpoint(flags.http_listen, true);
  return net::Endpoint{listen.host, static_cast<std::uint16_t>(listen.port == 0 ? 0 : listen.port + 1)};
}

bool is_loopback(const std::string& host) { return host.starts_with("127.") || host == "::1" || host == "localhost"; }

// The names the HTTPS certificate carries: loopback, this host's name, the
// address served on (unless a wildcard) and --http-name.
std::vector<std::string> web_host_names(const Flags& flags, const net::Endpoint& endpoint) {
  std::vector<std::string> names{"localhost", "127.0.0.1", "::1"};
  char hostname[256] = {};
  if (gethostname(hostname, sizeof hostname - 1) == 0 && *hostname != '\0') names.emplace_back(hostname);
  if (endpoint.host != "0.0.0.0" && endpoint.host != "::" && !is_loopback(endpoint.host)) names.push_back(endpoint.host);
  names.insert(names.end(), flags.http_names.begin(), flags.http_names.end());
  return names;
}

// --web-dir, else the bundle the build made beside bin/ (none: API only).
std::filesystem::path web_dir(const Flags& flags) {
  if (!flags.web_dir.empty()) return flags.web_dir;
  std::error_code ec;
  auto bundled = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path().parent_path() / "web" / "dist";
  return !ec && std::filesystem::exists(bundled / "index.html", ec) ? bundled : std::filesystem::path();
}

// The master's HTTP API and web UI: HTTPS with a certificate of the cluster
// CA for this host's names (DATA/tls/web), plain HTTP only on loopback (--http-tls off, or auto there). The URL goes
// to DATA/http.addr for scripts.
Result<std::unique_ptr<http::HttpServer>> start_http(const Flags& flags, caf::actor_system& system,
                                                     const node::RunningMaster& master, const net::Endpoint& listen) {
  auto endpoint = http_endpoint(flags, listen);
  if (!endpoint) return fail(endpoint.error());
  const bool https = flags.http_tls == "on" || (flags.http_tls == "auto" && !is_loopback(endpoint->host));
  if (!https && !is_loopback(endpoint->host))
    return fail(Error::invalid_argument("--http-tls off on " + endpoint->host + ": plain HTTP would send passwords and "
                                        "tokens in the clear; use it only on a loopback address"));
  http::HttpOptions options{.listen = *endpoint, .web_dir = web_dir(flags), .tls = std::nullopt, .limits = {}};
  if (https) {
    auto identity = node::issue_web_identity(flags.data_dir, web_host_names(flags, *endpoint));
    if (!identity) return fail(identity.error());
    options.tls = *identity;
  }
  auto server = http::HttpServer::start(
      options, {.journal = master.journal, .summaries = master.summaries, .data_dir = flags.data_dir,
                .system = &system, .gateway = master.gateway, .pool = master.pool, .users = master.users});
  if (!server) return fail(server.error());
  write_text_file_atomically(std::filesystem::path(flags.data_dir) / "http.addr", (*server)->url());
  spdlog::info("web UI and HTTP API at {}{}", (*server)->url(),
               options.web_dir.empty() ? " (API only: the web UI was not built; see web/README.md)" : "");
  return server;
}

// Runs an agent until a stop signal. When it loses its master (restarted or
// crashed) the agent reconnects by itself, keeping its workers; it ends only
// when the master stays unreachable (exit status 1).
int run_agent(const Flags& flags) {
  auto endpoint = net::parse_endpoint(flags.master);
  if (!endpoint) return fail_with(endpoint.error());
  auto timings = node_timings(flags);  // a bad file stops the agent before it writes anything
  if (!timings) return fail_with(timings.error());
  const std::filesystem::path work_dir = flags.work_dir;
  auto identity = node::install_agent_bundle(flags.bundle, work_dir);
  if (!identity) return fail_with(identity.error());
  // The agent's name: --id, else the name its certificate was issued for.
  const std::string agent_id =
      flags.agent_id.empty() ? tls::subject_name(tls::read_text_file(identity->certificate).value_or("")) : flags.agent_id;
  std::atomic<bool> agent_ended{false};  // outlives the actor system, whose shutdown may set it
  auto slots = node::offered_slots(flags.slot_type, flags.slots);
  if (!slots) return fail_with(slots.error());
  auto labels = node::parse_agent_labels(flags.labels);
  if (!labels) return fail_with(labels.error());
  auto work_folders = work_folder_options(flags);
  if (!work_folders) return fail_with(work_folders.error());
  auto container_runtime = sandbox::parse_container_runtime_choice(flags.container_runtime);
  if (!container_runtime) return fail_with(container_runtime.error());
  caf::actor_system_config config;
  net::configure_actor_system(config, *identity, timings->links);
  caf::actor_system system{config};
  // The master may still be starting.
  auto master = net::await_master(system, *endpoint, std::chrono::steady_clock::now() + timings->connect_patience);
  if (!master) return fail_with(master.error());
  auto agent = node::start_agent(
      system,
      {agent_id, std::move(*slots), work_dir, *endpoint, identity->private_key.parent_path(), flags.advertise, *timings,
       flags.pool, std::move(*labels), flags.limits, *work_folders, flags.sandbox == "on", *container_runtime},
      *master);
  if (!agent) return fail_with(agent.error());
  caf::actor_cast<caf::strong_actor_ptr>(*agent)->get()->attach_functor([&agent_ended] { agent_ended = true; });
  wait_for_signal(agent_ended);
  if (agent_ended) return fail_with(Error::unavailable("agent " + agent_id + ": gave up on the master at " + endpoint->to_string()));
  caf::anon_send_exit(*agent, caf::exit_reason::user_shutdown);
  return 0;
}

// Blocks of 1 MiB and more get mappings of their own, given back to the
// system when freed. glibc raises its mmap threshold to the size of each
// mapped block freed (up to 32 MiB), after which such blocks come from the
// heap and stay resident once freed: the journal's memtable blocks (2 MiB,
// freed at every flush) and big query answers left the master's resident
// memory up to ~25 MiB above what it used (malloc_trim gave that back).
// Two arenas: glibc gives threads that allocate at once arenas of their own
// (up to 8 per core), and each keeps what was freed in it; over a
// 60,000-trial long search that held the master's resident memory ~20 MiB
// above what it used (74 MiB under jemalloc, 75 to 95 with glibc's arenas,
// 47 to 59 with two). One arena did as well but cost the master 4 to 9 %
// more CPU per trial (its threads wait on its lock); two cost nothing
// measurable.
void keep_freed_memory_returnable() {
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  mallopt(M_ARENA_MAX, 2);
}

// Runs the master, with an agent in the same process for `up`, until a stop signal.
int run_master(const std::string& role, const Flags& flags) {
  keep_freed_memory_returnable();
  auto listen = net::parse_endpoint(flags.listen, true);
  if (!listen) return fail_with(listen.error());
  auto timings = node_timings(flags);  // a bad file stops the master before it writes anything
  if (!timings) return fail_with(timings.error());
  auto cluster = node::read_cluster_config(flags.cluster_config);  // so does a bad cluster config
  if (!cluster) return fail_with(cluster.error());
  auto tls = node::prepare_master_tls(flags.data_dir);
  if (!tls) return fail_with(tls.error());
  std::atomic<bool> stopped{false};  // outlives the actor system, whose shutdown may set it
  caf::actor_system_config config;
  net::configure_actor_system(config, tls->master, timings->links);
  caf::actor_system system{config};
  auto slots = role == "up" ? node::offered_slots(flags.slot_type, flags.slots) : std::vector<wire::SlotSpec>{};
  if (!slots) return fail_with(slots.error());
  auto labels = node::parse_agent_labels(flags.labels);
  if (!labels) return fail_with(labels.error());
  auto work_folders = work_folder_options(flags);
  if (!work_folders) return fail_with(work_folders.error());
  auto container_runtime = sandbox::parse_container_runtime_choice(flags.container_runtime);
  if (!container_runtime) return fail_with(container_runtime.error());
  auto running = node::start_master(system, {flags.data_dir, *listen, *timings, admin_password_source(flags),
                                             flags.accept_journal_loss, std::move(*cluster)});
  if (!running) return fail_with(running.error());
  auto web = start_http(flags, system, *running, *listen);
  if (!web) return fail_with(web.error());
  // Last: scripts and tests take DATA/master.addr to mean the master is up, its HTTP server included.
  write_text_file_atomically(std::filesystem::path(flags.data_dir) / "master.addr", running->bound.to_string());
  std::vector<caf::actor> started{running->gateway, running->pool};
  if (role == "up") {
    auto agent = node::start_agent(system,
                                   {"local", std::move(*slots), std::filesystem::path(flags.data_dir) / "work", std::nullopt,
                                    tls->local_agent_dir, "", *timings, flags.pool, std::move(*labels), flags.limits,
                                    *work_folders, flags.sandbox == "on", *container_runtime},
                                   running->gateway);
    if (!agent) return fail_with(agent.error());
    caf::actor_cast<caf::strong_actor_ptr>(*agent)->get()->attach_functor([&stopped] { stopped = true; });
    started.push_back(*agent);
  }
  wait_for_signal(stopped);
  // First no new peer: an agent reconnects as soon as it sees the master's
  // actors go, and a connection accepted while the master stops holds the
  // stop until that agent gives it up (seconds).
  if (auto closed = system.middleman().close(running->bound.port); !closed)
    spdlog::warn("stopping: cannot close port {}: {}", running->bound.port, system.render(closed.error()));
  for (auto& actor : started) caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
  return stopped ? 2 : 0;
}

int issue_certificate(const Flags& flags) {
  const auto out = flags.output.empty() ? flags.node_name + ".bundle" : flags.output;
  if (auto issued = node::issue_bundle(flags.data_dir, flags.node_name, out); !issued) return fail_with(issued.error());
  std::printf("wrote %s: the certificate and key of node '%s'. Copy it to that host (it holds a private key) and run\n"
              "  volador-node agent --master MASTER_HOST:PORT --bundle %s --work-dir DIR\n",
              out.c_str(), flags.node_name.c_str(), std::filesystem::path(out).filename().c_str());
  return 0;
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
  auto* certs = app.add_subcommand("certs", "the cluster's certificates");
  certs->require_subcommand(1);
  auto* issue = certs->add_subcommand("issue", "write a bundle (certificate, key, CA) for node NAME to join the cluster");
  for (auto* cmd : {up, master, issue})
    cmd->add_option("--data", flags.data_dir, "the master's data folder (journal, certificates, trial folders)")->capture_default_str();
  for (auto* cmd : {up, master})
    cmd->add_option("--listen", flags.listen, "HOST:PORT to listen on (0.0.0.0: every interface; port 0 picks one)")->capture_default_str();
  for (auto* cmd : {up, master})
    cmd->add_flag("--accept-journal-loss", flags.accept_journal_loss,
                  "open a journal whose write-ahead log is damaged at its last consistent point, losing the "
                  "acknowledged writes after it (the log says how many); without it such a journal is refused");
  for (auto* cmd : {up, master})
    cmd->add_option("--admin-password-file", flags.admin_password_file,
                    "first start: the password of user 'admin' (first line; else VOLADOR_ADMIN_PASSWORD, else a random "
                    "one, logged and written to DATA/admin.password)");
  issue->add_option("NAME", flags.node_name, "the node's name (an agent's default --id)")->required();
  issue->add_option("-o,--output", flags.output, "the bundle file to write (default: NAME.bundle)");
  agent->add_option("-m,--master", flags.master, "the master's HOST:PORT")->envname("VOLADOR_MASTER")->capture_default_str();
  agent->add_option("--bundle", flags.bundle, "this node's bundle (from `volador-node certs issue NAME` on the master's host)")
      ->required()
      ->check(CLI::ExistingFile);
  agent->add_option("--id", flags.agent_id, "agent name (default: the name in its certificate)");
  agent->add_option("--work-dir", flags.work_dir, "where trial folders and the installed certificate go")->required();
  agent->add_option("--advertise", flags.advertise,
                    "the address other hosts reach this host's rank workers at (default: this host's address on the route to the master)");
  for (auto* cmd : {up, agent}) {
    cmd->add_option("--slots", flags.slots, "CPU slots offered (without GPUs, or with --slot-type cpu)")
        ->capture_default_str()
        ->check(CLI::Range(1u, 4096u));
    cmd->add_option("--slot-type", flags.slot_type, "auto: one slot per GPU, CPU slots without GPUs; gpu; cpu")
        ->capture_default_str()
        ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
  }
  for (auto* cmd : {up, master})
    cmd->add_option("--cluster-config", flags.cluster_config,
                    "a YAML file declaring the resource pools and their schedulers (README, Resource pools); "
                    "default: one pool, `default`")
        ->check(CLI::ExistingFile);
  for (auto* cmd : {up, agent}) {
    cmd->add_option("--pool", flags.pool,
                    "the resource pool the agent joins (default: the cluster config's default_gpu_pool with GPUs, "
                    "else its default_cpu_pool)");
    cmd->add_option("--label", flags.labels, "a label key=value the agent carries (repeatable)");
    cmd->add_option("--sandbox", flags.sandbox,
                    "on: each rank runs in a bubblewrap sandbox (README, The trial sandbox; the agent refuses to "
                    "start where bwrap cannot build one); off: ranks see this host as the agent does (said loudly)")
        ->capture_default_str()
        ->check(CLI::IsMember({"on", "off"}));
    cmd->add_option("--container-runtime", flags.container_runtime,
                    "what runs environment.image: auto (podman, else docker, if one answers `info`), podman or "
                    "docker (the agent refuses to start when it does not answer), none (experiments with an image "
                    "go to other agents)")
        ->capture_default_str()
        ->check(CLI::IsMember({"none", "auto", "podman", "docker"}));
    cmd->add_option("--rank-memory-limit", flags.limits.allowed.memory_bytes,
                    "the most memory one rank's processes may use together, e.g. 8G (default: this host's memory "
                    "shared by its slots); also the most an experiment's resources.memory_limit may ask for")
        ->transform(CLI::AsSizeValue(false));
    cmd->add_option("--rank-max-processes", flags.limits.allowed.max_processes,
                    "the most processes one rank may run at once (default 4096); also the most an experiment's "
                    "resources.max_processes may ask for");
    cmd->add_option("--cgroup-parent", flags.limits.cgroup_parent,
                    "the cgroup (a path from the root of the memory and pids hierarchies) to make the ranks' cgroups "
                    "in (default: the agent's own)");
    cmd->add_flag("--no-trial-limits{false}", flags.limits.enabled, "run ranks without memory and process limits");
    cmd->add_option("--keep-failed-work-dirs", flags.keep_failed_work_dirs,
                    "how long the folder of a rank that failed stays for debugging (a duration such as 30min; 0: "
                    "removed at once); a rank that ends cleanly has its folder removed at once")
        ->capture_default_str();
    cmd->add_option("--min-free-disk", flags.min_free_disk,
                    "below this much free space on the work folder's disk the agent refuses new trials (default 1G)")
        ->transform(CLI::AsSizeValue(false));
  }
  for (auto* cmd : {up, master}) {
    cmd->add_option("--http-listen", flags.http_listen,
                    "HOST:PORT of the HTTP API and web UI (default: --listen's host, its port + 1; port 0 picks one, "
                    "written to DATA/http.addr)");
    cmd->add_option("--http-tls", flags.http_tls,
                    "auto: HTTPS (a certificate of the cluster CA, DATA/tls/web) except on a loopback address; on; off (loopback only)")
        ->capture_default_str()
        ->check(CLI::IsMember({"auto", "on", "off"}));
    cmd->add_option("--http-name", flags.http_names,
                    "a DNS name or IP address the HTTPS certificate should also carry (repeatable; it always has "
                    "localhost, 127.0.0.1, ::1, this host's name and --http-listen's address)");
    cmd->add_option("--web-dir", flags.web_dir, "the web UI's files (default: the bundle the build made, build/web/dist)");
  }
  for (auto* cmd : {up, master, agent})
    cmd->add_option("--timings", flags.timings_file,
                    "a file of `KEY = DURATION` lines (500ms, 10s, 5min, 24h; # comments) setting how long nodes wait for "
                    "each other, for tests; give every node of a cluster the same. Keys: " + node::known_timing_keys() +
                        ". Defaults: heartbeats every 500ms, a peer silent for 10s dropped (README, Liveness)");
  CLI11_PARSE(app, argc, argv);

  const std::string role = app.get_subcommands().front()->get_name();
  if (role == "certs") return issue_certificate(flags);
  if (role == "agent") return run_agent(flags);
  return run_master(role, flags);
}
