#pragma once
// The `volador` command line: which verb to run, with which arguments.
// Parsing prints nothing and contacts nothing; it gives the invocation, or how
// the process ends instead: --help and --version (status 0, text for stdout),
// or a usage error (status 1, one line for stderr naming the verb and what was
// wrong, e.g. "volador: trial logs: unexpected argument '--foo'").
// -m/--master HOST:PORT (default VOLADOR_MASTER, then 127.0.0.1:17080) and
// --bundle FILE (the client's certificate: default VOLADOR_BUNDLE, then
// volador-data/tls/admin.bundle, where `volador-node up` run in the same
// folder writes it) are accepted before or after the verb. The login token
// is not a flag: VOLADOR_TOKEN, else the one `user login` stored (main).

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace volador::cli {

// The lines `trial logs` shows without --tail or --all: the last page.
inline constexpr std::uint64_t kDefaultLogTail = 1000;
// The points of each metric series `trial describe` shows without --max-points or --all.
inline constexpr std::uint32_t kDefaultTrialPoints = 1000;

struct Invocation {
  // The verb's words, e.g. "experiment create", "trial logs", "agent list", "preview-search".
  std::string verb;
  std::string master = "127.0.0.1:17080";
  std::string bundle = "volador-data/tls/admin.bundle";
  std::string timings_file;         // --timings: how long the client waits; empty: the defaults
  std::uint64_t id = 0;             // ID of describe, logs, pause, activate, kill, archive, unarchive
  std::uint64_t experiment_id = 0;  // checkpoint list, trial list (0: not given)
  std::uint64_t trial_id = 0;       // checkpoint list --trial (0: not given)
  bool json = false;
  bool follow = false;
  std::uint64_t tail = kDefaultLogTail;  // trial logs --tail N: the last N lines first (--all: every line)
  bool all = false;             // experiment list --all: archived ones too; trial logs --all: every line;
                                // trial describe --all: every metric point
  std::uint32_t max_points = kDefaultTrialPoints;  // trial describe --max-points N: per metric series
  std::string label;            // experiment list --label: only experiments with this label
  std::string workspace;        // experiment list --workspace: only experiments of this workspace
  std::string project;          // experiment list --project: only experiments of this project
  std::string user_name;        // user create, user login
  bool admin = false;           // user create --admin
  bool password_stdin = false;  // user create, user login: the password is stdin's first line
  std::string config_path;  // experiment create, preview-search
  std::string model_dir;    // experiment create
  std::string uuid;         // checkpoint download, checkpoint delete, model register
  std::string dir;          // checkpoint download, experiment download-model-def, model download
  // The lifecycle and model verbs (lifecycle_command_line.hpp).
  std::string changes_path;         // experiment fork / continue --config: YAML merged over the config
  std::string text;                 // experiment set description TEXT
  std::vector<std::string> labels;  // experiment set labels L1 L2 ...
  bool yes = false;                 // experiment delete --yes: no question asked
  std::string model_name;           // model create, register, describe, download
  std::string description;          // model create --description
  std::uint32_t version = 0;        // model download --version (0: the latest)
};

// How the process ends without running a verb.
struct ParseExit {
  int status = 0;
  std::string out;  // help or version text, for stdout
  std::string err;  // the usage error, one line with its newline, for stderr
};

std::variant<Invocation, ParseExit> parse_command_line(int argc, const char* const* argv);

}  // namespace volador::cli
