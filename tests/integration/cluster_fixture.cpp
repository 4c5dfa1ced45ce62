#include "tests/integration/cluster_fixture.hpp"

#include "runtime/node/cluster_tls.hpp"
#include "tests/netns/netns_lab.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <future>
#include <mutex>
#include <iostream>
#include <iterator>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <signal.h>

namespace volador::testing {
namespace fs = std::filesystem;

fs::path binary(const std::string& name) { return fs::path(VOLADOR_BIN_DIR) / name; }

fs::path issue_test_bundle(const fs::path& data_dir, const std::string& node) {
  REQUIRE(node::prepare_master_tls(data_dir).has_value());
  const auto bundle = data_dir / (node + ".bundle");
  if (!fs::exists(bundle)) REQUIRE(node::issue_bundle(data_dir, node, bundle).has_value());
  return bundle;
}

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

CommandResult run_command(std::vector<std::string> argv, int timeout_s, const std::map<std::string, std::string>& env) {
  auto result = std::make_shared<CommandResult>();
  auto mutex = std::make_shared<std::mutex>();
  auto done = std::make_shared<std::promise<process::ProcessExit>>();
  auto exited = done->get_future();
  auto child = process::ChildProcess::spawn(
      {std::move(argv), env, {}},
      [result, mutex](std::string_view stream, std::string line) {
        std::lock_guard lock(*mutex);
        (stream == "stdout" ? result->out : result->err) += line + "\n";
      },
      [done](process::ProcessExit exit) { done->set_value(exit); });
  REQUIRE(child.has_value());
  if (exited.wait_for(std::chrono::seconds(timeout_s)) != std::future_status::ready) {
    (*child)->kill();
    FAIL("command did not finish within " << timeout_s << " s");
  }
  result->exit_code = exited.get().exit_code;
  child->reset();  // joins the reader before the result is read
  return *result;
}

nlohmann::json CommandResult::json() const {
  auto parsed = nlohmann::json::parse(out, nullptr, false);
  if (parsed.is_discarded())
    FAIL("expected JSON from a command that exited with " << exit_code << "; its stdout:\n" << out << "its stderr:\n" << err);
  return parsed;
}

TempDir::TempDir() {
  std::random_device device;
  path_ = fs::temp_directory_path() / ("volador-it-" + std::to_string(device()));
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  if (std::getenv("VOLADOR_KEEP_TEST_DIRS") != nullptr) {
    std::cerr << "kept " << path_ << '\n';
    return;
  }
  std::error_code ec;
  fs::remove_all(path_, ec);
}

Cluster::Cluster(const fs::path& data_dir) : data_dir_(data_dir) {}

Cluster::Cluster(const fs::path& data_dir, std::uint32_t agent_slots) : Cluster(data_dir) {
  start_master();
  start_agent(agent_slots);
}

Cluster::Cluster(const fs::path& data_dir, const NetnsLab& lab) : data_dir_(data_dir), lab_(&lab) {}

Cluster::~Cluster() {
  named_agents_.clear();
  lab_agents_.clear();
  agent_.reset();
  master_.reset();
}

pid_t Cluster::master_pid() const { return master_->pid(); }
pid_t Cluster::agent_pid() const { return agent_->pid(); }

std::string Cluster::nodes_log() const {
  std::ifstream in(data_dir_ / "nodes.log");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void Cluster::add_node_arguments(const std::vector<std::string>& args) {
  node_arguments_.insert(node_arguments_.end(), args.begin(), args.end());
}

std::unique_ptr<process::ChildProcess> Cluster::spawn_node(std::vector<std::string> args, int host,
                                                           const std::map<std::string, std::string>& env,
                                                           std::shared_ptr<std::atomic<bool>> exited) {
  args.insert(args.begin(), binary("volador-node").string());
  args.insert(args.end(), node_arguments_.begin(), node_arguments_.end());
  if (lab_ != nullptr) args = lab_->in_host(host, std::move(args));
  fs::create_directories(data_dir_);  // the master's log goes there before the master makes it
  auto log = std::make_shared<std::ofstream>(data_dir_ / "nodes.log", std::ios::app);
  auto child = process::ChildProcess::spawn(
      {args, env, {}}, [log](std::string_view, std::string line) { *log << line << std::endl; },
      [exited](process::ProcessExit) {
        if (exited) *exited = true;
      });
  REQUIRE(child.has_value());
  return std::move(*child);
}

void Cluster::start_master(const std::vector<std::string>& extra) {
  const auto address_file = data_dir_ / "master.addr";
  fs::remove(address_file);
  const std::string port = address_.empty() ? "0" : address_.substr(address_.rfind(':') + 1);
  const std::string host = lab_ != nullptr ? "0.0.0.0:" : "127.0.0.1:";
  master_exited_ = std::make_shared<std::atomic<bool>>(false);
  std::vector<std::string> args{"master", "--data", data_dir_.string(), "--listen", host + port};
  // A restarted master keeps its port; its HTTP server takes any free one, as
  // at the first start (the default, the next port, may be another test's).
  if (std::find(extra.begin(), extra.end(), "--http-listen") == extra.end())
    args.insert(args.end(), {"--http-listen", host + "0"});
  args.insert(args.end(), extra.begin(), extra.end());
  master_ = spawn_node(std::move(args), 0, {}, master_exited_);
  for (int i = 0; i < 200 && !fs::exists(address_file) && !master_exited_->load(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  INFO("the nodes' log:\n" << nodes_log());
  REQUIRE(fs::exists(address_file));
  std::ifstream(address_file) >> address_;
  REQUIRE_FALSE(address_.empty());
  // On a lab the file names the wildcard it listens on; other hosts dial host 0.
  if (lab_ != nullptr) address_ = lab_->address(0) + address_.substr(address_.rfind(':'));
}

bool Cluster::stop_master(int patience_s) {
  master_->kill(SIGTERM);
  const bool stopped = eventually([&] { return master_exited_->load(); }, patience_s);
  master_.reset();
  return stopped;
}

void Cluster::kill_master() {
  master_->kill(SIGKILL);
  master_.reset();
}

namespace {

std::size_t count_lines_with(const fs::path& file, const std::string& text) {
  std::ifstream in(file);
  std::size_t count = 0;
  for (std::string line; std::getline(in, line);) count += line.find(text) != std::string::npos;
  return count;
}

}  // namespace

namespace {

// An agent's arguments with `--sandbox off` unless they say otherwise: the
// tests of other features run their trials unsandboxed (their markers and
// process checks are on the host); the sandbox's own tests pass `--sandbox on`.
std::vector<std::string> unsandboxed_unless_asked(std::vector<std::string> args) {
  if (std::ranges::find(args, "--sandbox") == args.end()) args.insert(args.end(), {"--sandbox", "off"});
  return args;
}

}  // namespace

void Cluster::start_agent(std::uint32_t slots, const std::vector<std::string>& extra,
                          const std::map<std::string, std::string>& env) {
  std::vector<std::string> args{"agent", "-m", address_, "--slots", std::to_string(slots), "--id", "test-agent", "--bundle",
                                issue_test_bundle(data_dir_, "test-agent").string(), "--work-dir",
                                (data_dir_ / "agent-work").string()};
  args.insert(args.end(), extra.begin(), extra.end());
  agent_ = start_agent_process(unsandboxed_unless_asked(std::move(args)), "test-agent", 0, env);
}

void Cluster::start_named_agent(const std::string& name, std::uint32_t slots, const std::vector<std::string>& extra) {
  std::vector<std::string> args{"agent", "-m", address_, "--slots", std::to_string(slots), "--id", name, "--bundle",
                                issue_test_bundle(data_dir_, name).string(), "--work-dir",
                                (data_dir_ / ("work-" + name)).string()};
  args.insert(args.end(), extra.begin(), extra.end());
  named_agents_[name] = start_agent_process(unsandboxed_unless_asked(std::move(args)), name, 0);
}

void Cluster::start_agent_on(int host, const std::string& name, std::uint32_t slots, const std::string& advertise) {
  REQUIRE(lab_ != nullptr);
  std::vector<std::string> args{"agent", "-m", address_, "--slots", std::to_string(slots), "--bundle",
                                issue_test_bundle(data_dir_, name).string(), "--work-dir",
                                (data_dir_ / ("work-" + name)).string()};
  if (!advertise.empty()) args.insert(args.end(), {"--advertise", advertise});
  lab_agents_[name] = start_agent_process(std::move(args), name, host);
}

std::unique_ptr<process::ChildProcess> Cluster::start_agent_process(std::vector<std::string> args,
                                                                    const std::string& name, int host,
                                                                    const std::map<std::string, std::string>& env) {
  const auto log = data_dir_ / "nodes.log";
  const std::string registered = "agent " + name + " registered with";
  const auto before = count_lines_with(log, registered);
  // Agents run no images unless a test asks: probing a container runtime (up to 10 s) and removing what an earlier
  // run left (podman ps and rm, which wait for podman's storage lock on a busy host) cost time.
  const bool runs_images = std::ranges::find(args, "--container-runtime") != args.end();
  if (!runs_images) args.insert(args.end(), {"--container-runtime", "none"});
  auto agent = spawn_node(std::move(args), host, env);
  REQUIRE(eventually([&] { return count_lines_with(log, registered) > before; }, runs_images ? 180 : 20));
  return agent;
}

void Cluster::kill_agent() { agent_.reset(); }

CommandResult create_and_follow(const Cluster& cluster, const fs::path& project, int timeout_s) {
  return create_and_follow(cluster, project / "distributed.yaml", project, timeout_s);
}

CommandResult create_and_follow(const Cluster& cluster, const fs::path& config, const fs::path& project,
                                int timeout_s) {
  return cluster.cli({"experiment", "create", config.string(), project.string(), "--follow", "--json"}, timeout_s);
}

std::string single_command_config(const std::string& name, const std::string& entrypoint, const std::string& rest) {
  return "name: " + name + "\n"
         "entrypoint: " + entrypoint + "\n"
         "hyperparameters:\n"
         "  global_batch_size: 32\n"
         "searcher:\n"
         "  name: single\n"
         "  metric: accuracy\n"
         "  smaller_is_better: false\n"
         "  max_length: {batches: 10}\n"
         "max_restarts: 0\n" + rest;
}

void write_gated_project(const fs::path& project, const fs::path& gate, int trials, const std::string& rest) {
  write_file(project / "gated.sh", "echo \"slot-type $VOLADOR_SLOT_TYPE\"\n"
                                   "while [ ! -e '" + gate.string() + "' ]; do sleep 0.1; done\n"
                                   "echo accuracy=1\n");
  write_file(project / "distributed.yaml",
             "name: gated\n"
             "entrypoint: sh gated.sh\n"
             "hyperparameters:\n"
             "  global_batch_size: 32\n"
             "  order: {type: int, minval: 1, maxval: " + std::to_string(trials) +
                 ", count: " + std::to_string(trials) + "}\n"
             "searcher: {name: grid, metric: accuracy, smaller_is_better: false, max_concurrent_trials: 1, "
             "max_length: {batches: 10}}\n"
             "max_restarts: 0\n" + rest);
}

std::string native_trial_config(const std::string& name, const std::string& rest) {
  return "name: " + name + "\n"
         "entrypoint: native:mlp_classifier\n"
         "data: {train_records: 2000, validation_records: 500}\n"
         "hyperparameters: {global_batch_size: 32, learning_rate: 0.05, hidden_units: 32}\n"
         "records_per_epoch: 2000\n"
         "scheduling_unit: 20\n"
         "experiment_seed: 5\n" +
         rest;
}

std::string submit(const Cluster& cluster, const fs::path& project) {
  auto created = cluster.cli({"experiment", "create", (project / "distributed.yaml").string(), project.string(), "--json"});
  INFO(created.err);
  REQUIRE(created.exit_code == 0);
  return created.json()["id"].dump();
}

std::string submit(const Cluster& cluster, const fs::path& project, const std::string& config) {
  write_file(project / "distributed.yaml", config);
  return submit(cluster, project);
}

nlohmann::json describe_experiment(const Cluster& cluster, const std::string& id) {
  const auto described = cluster.cli({"experiment", "describe", id, "--json"});
  INFO("volador experiment describe " << id << ": " << described.err);
  REQUIRE(described.exit_code == 0);
  return described.json();
}

nlohmann::json checkpoints(const Cluster& cluster, const std::string& id) {
  return cluster.cli({"checkpoint", "list", id, "--json"}).json();
}

std::string kill_once_hook(const std::string& only_if, double delay_s) {
  const std::string delay = delay_s > 0 ? "sleep " + std::to_string(delay_s) + "; " : "";
  return "if " + only_if + " && [ -n \"$KILL_ONCE\" ] && [ ! -f \"$KILL_ONCE\" ]; then touch \"$KILL_ONCE\"; "
         "(i=0; until find \"$KILL_STORAGE\" -mindepth 1 -maxdepth 1 -type d ! -name '.tmp-*' | grep -q .; do "
         "i=$((i+1)); [ $i -gt 3000 ] && exit 0; sleep 0.02; done; " + delay + "kill -KILL $$) "
         "</dev/null >/dev/null 2>&1 & fi\n";
}

std::string kill_once_config(const fs::path& marker, const fs::path& storage, const std::string& other_variables) {
  fs::create_directories(storage);
  // The marker in a folder of its own, mounted at its path (into the ranks' sandboxes, when they have one).
  const auto folder = marker.parent_path() / (marker.filename().string() + ".d");
  fs::create_directories(folder);
  const std::string others = other_variables.empty() ? "" : other_variables + ", ";
  return "environment: {environment_variables: [" + others + "KILL_ONCE=" + (folder / marker.filename()).string() +
         ", KILL_STORAGE=" + storage.string() + "]}\ncheckpoint_storage: {type: shared_fs, host_path: " +
         storage.string() + "}\nbind_mounts: [{host_path: " + folder.string() + ", container_path: " + folder.string() +
         "}]\n";
}

MetricHistory metric_history(const Cluster& cluster, const std::string& trial_id) {
  MetricHistory out;
  const auto described = cluster.cli({"trial", "describe", trial_id, "--json"}).json();  // outlives the loop
  for (const auto& m : described["metrics"]) {
    auto key = std::pair{m["kind"].get<std::string>(), m["batches"].get<std::uint64_t>()};
    CHECK_FALSE(out.contains(key));  // no report twice
    out[key] = m["metrics"];
  }
  return out;
}

std::vector<nlohmann::json> validations(const Cluster& cluster, const std::string& trial_id) {
  std::vector<nlohmann::json> out;
  const auto described = cluster.cli({"trial", "describe", trial_id, "--json"}).json();  // outlives the loop
  for (const auto& m : described["metrics"])
    if (m["kind"] == "VALIDATION") out.push_back(m);
  return out;
}

void check_same_validations(const std::vector<nlohmann::json>& run, const std::vector<nlohmann::json>& reference) {
  REQUIRE(run.size() == reference.size());
  for (std::size_t v = 0; v < reference.size(); ++v) {
    CHECK(run[v]["batches"] == reference[v]["batches"]);
    CHECK(run[v]["metrics"]["accuracy"].get<double>() ==
          Approx(reference[v]["metrics"]["accuracy"].get<double>()).margin(1e-6));
    CHECK(run[v]["metrics"]["validation_loss"].get<double>() ==
          Approx(reference[v]["metrics"]["validation_loss"].get<double>()).epsilon(1e-4));
  }
}

namespace {

// Processes whose working folder `cwd` satisfies `counts`.
std::size_t processes_where(const std::function<bool(const fs::path& cwd)>& counts) {
  std::size_t count = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::error_code ec;
    const auto cwd = fs::read_symlink(entry.path() / "cwd", ec);
    if (!ec && counts(cwd)) ++count;
  }
  return count;
}

}  // namespace

std::size_t processes_under(const fs::path& dir) {
  return processes_where([&](const fs::path& cwd) { return cwd.string().starts_with(dir.string()); });
}

std::size_t processes_in_trial_folders(const fs::path& work_dir, const std::string& prefix) {
  return processes_where([&](const fs::path& cwd) {
    return cwd.string().starts_with(work_dir.string()) && cwd.filename().string().starts_with(prefix);
  });
}

std::vector<std::string> short_link_timings(const fs::path& dir) {
  const auto file = dir / "timings.conf";
  write_file(file, "heartbeat_interval = 100ms\nconnection_timeout = 2s\n");
  return {"--timings", file.string()};
}

pid_t pid_with_arguments(const std::vector<std::string>& arguments) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::ifstream in(entry.path() / "cmdline");
    std::set<std::string> words;
    for (std::string word; std::getline(in, word, '\0');) words.insert(word);
    if (!words.empty() && std::ranges::all_of(arguments, [&](const auto& a) { return words.contains(a); }))
      return std::stoi(entry.path().filename().string());
  }
  return 0;
}

namespace {

// Socket inodes of process `pid`.
std::set<std::string> socket_inodes(pid_t pid) {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& fd : fs::directory_iterator(fs::path("/proc") / std::to_string(pid) / "fd", ec)) {
    const auto target = fs::read_symlink(fd.path(), ec).string();
    if (!ec && target.starts_with("socket:[")) out.insert(target.substr(8, target.size() - 9));
  }
  return out;
}

// The TCP states (as /proc/net/tcp numbers them) of `pid`'s connections with
// `port` at either end, listening sockets left out.
std::vector<int> tcp_states(pid_t pid, std::uint16_t port) {
  constexpr int kListen = 0x0A;
  const auto inodes = socket_inodes(pid);
  std::vector<int> states;
  for (const char* table : {"tcp", "tcp6"}) {
    std::ifstream in(fs::path("/proc") / std::to_string(pid) / "net" / table);
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode;
      auto hex_port = [](const std::string& address) {
        return std::stoul(address.substr(address.rfind(':') + 1), nullptr, 16);
      };
      const int st = static_cast<int>(std::stoul(state, nullptr, 16));
      if (inodes.contains(inode) && st != kListen && (hex_port(local) == port || hex_port(remote) == port))
        states.push_back(st);
    }
  }
  return states;
}

// True once every peer of stopped process `pid` has closed its connections
// with `port` at one end (at least `at_least` of them): they dropped it.
bool peers_dropped(pid_t pid, std::uint16_t port, std::size_t at_least) {
  constexpr int kCloseWait = 0x08;
  const auto states = tcp_states(pid, port);
  return states.size() >= at_least && std::ranges::all_of(states, [](int st) { return st == kCloseWait; });
}

}  // namespace

std::uint16_t port_of(const std::string& address) {
  return static_cast<std::uint16_t>(std::stoul(address.substr(address.rfind(':') + 1)));
}

std::vector<pid_t> rank_workers(const std::filesystem::path& dir, int rank) {
  std::vector<pid_t> out;
  const auto worker = fs::canonical(binary("volador-worker"));
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::error_code ec;
    if (fs::read_symlink(entry.path() / "exe", ec) != worker || ec) continue;
    std::ifstream environ_file(entry.path() / "environ");
    bool ours = false, ranked = false;
    for (std::string variable; std::getline(environ_file, variable, '\0');) {
      ours = ours || variable.starts_with("VOLADOR_TLS_DIR=" + dir.string());
      ranked = ranked || variable == "VOLADOR_RANK=" + std::to_string(rank);
    }
    if (ours && ranked) out.push_back(std::stoi(entry.path().filename()));
  }
  return out;
}

bool stall_until_dropped(pid_t pid, std::uint16_t port, std::size_t peers) {
  if (::kill(pid, SIGSTOP) != 0) return false;
  const bool dropped = eventually([&] { return peers_dropped(pid, port, peers); }, 30);
  return ::kill(pid, SIGCONT) == 0 && dropped;
}

bool eventually(const std::function<bool()>& condition, int timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return condition();
}

std::string Cluster::admin_password() const {
  std::ifstream in(data_dir_ / "admin.password");
  std::string password;
  std::getline(in, password);
  REQUIRE_FALSE(password.empty());
  return password;
}

std::map<std::string, std::string> Cluster::admin_environment() const {
  const auto home = data_dir_ / "admin-home";
  if (admin_token_.empty()) {
    auto login = cli_with({{"HOME", home.string()}, {"VOLADOR_TOKEN", ""}}, {"user", "login", "admin", "--password-stdin"},
                          (data_dir_ / "admin.password").string());
    INFO(login.err);
    REQUIRE(login.exit_code == 0);
    std::ifstream tokens(home / ".volador" / "tokens.json");
    admin_token_ = nlohmann::json::parse(tokens)[address_]["token"].get<std::string>();
  }
  return {{"HOME", home.string()}, {"VOLADOR_TOKEN", admin_token_}};
}

CommandResult Cluster::cli(std::vector<std::string> args, int timeout_s) const {
  return cli_with(admin_environment(), std::move(args), "", timeout_s);
}

CommandResult Cluster::cli_with(const std::map<std::string, std::string>& env, std::vector<std::string> args,
                                const std::string& stdin_file, int timeout_s) const {
  args.insert(args.begin(), {binary("volador").string(), "-m", address_, "--bundle", admin_bundle().string()});
  // The password of `user login/create --password-stdin` comes from a file, through a shell.
  if (!stdin_file.empty()) args.insert(args.begin(), {"/bin/sh", "-c", "exec \"$@\" < \"$0\"", stdin_file});
  if (lab_ != nullptr) args = lab_->in_host(0, std::move(args));
  return run_command(std::move(args), timeout_s, env);
}

fs::path short_client_timings(const fs::path& dir) {
  const auto file = dir / "client-timings.conf";
  write_file(file, "client_connect_patience = 500ms\n");
  return file;
}

}  // namespace volador::testing
