#include "runtime/node/timings_file.hpp"

#include <array>
#include <fstream>
#include <map>
#include <optional>

#include "runtime/core/duration.hpp"

namespace volador::node {
namespace {

using std::chrono::milliseconds;

// A key of the file and the field of master::Timings it sets.
struct TimingKey {
  std::string_view name;
  milliseconds& (*field)(master::Timings&);
};

// Every field of master::Timings, in its order.
constexpr std::array kKeys{
    TimingKey{"heartbeat_interval", [](master::Timings& t) -> milliseconds& { return t.links.heartbeat_interval; }},
    TimingKey{"connection_timeout", [](master::Timings& t) -> milliseconds& { return t.links.connection_timeout; }},
    TimingKey{"handshake_timeout", [](master::Timings& t) -> milliseconds& { return t.links.handshake_timeout; }},
    TimingKey{"connect_patience", [](master::Timings& t) -> milliseconds& { return t.connect_patience; }},
    TimingKey{"client_connect_patience", [](master::Timings& t) -> milliseconds& { return t.client_connect_patience; }},
    TimingKey{"master_outage_patience", [](master::Timings& t) -> milliseconds& { return t.master_outage_patience; }},
    TimingKey{"reattach_grace", [](master::Timings& t) -> milliseconds& { return t.reattach_grace; }},
    TimingKey{"launch_timeout", [](master::Timings& t) -> milliseconds& { return t.launch_timeout; }},
    TimingKey{"workload_timeout", [](master::Timings& t) -> milliseconds& { return t.workload_timeout; }},
    TimingKey{"register_timeout", [](master::Timings& t) -> milliseconds& { return t.register_timeout; }},
    TimingKey{"reconnect_patience", [](master::Timings& t) -> milliseconds& { return t.reconnect_patience; }},
    TimingKey{"hello_timeout", [](master::Timings& t) -> milliseconds& { return t.hello_timeout; }},
    TimingKey{"log_timeout", [](master::Timings& t) -> milliseconds& { return t.log_timeout; }},
    TimingKey{"warm_worker_idle", [](master::Timings& t) -> milliseconds& { return t.warm_worker_idle; }},
    TimingKey{"rank_identity_validity", [](master::Timings& t) -> milliseconds& { return t.rank_identity_validity; }},
};

constexpr std::size_t kMaxFileBytes = 64 * 1024;

const TimingKey* find_key(std::string_view name) {
  for (const auto& key : kKeys)
    if (key.name == name) return &key;
  return nullptr;
}

std::string_view trim(std::string_view text) {
  const auto begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t\r") - begin + 1);
}

// The faults of one file, each `SOURCE:LINE: message`.
class Faults {
 public:
  explicit Faults(std::string source) : source_(std::move(source)) {}
  void add(std::size_t line, const std::string& message) {
    text_ += (text_.empty() ? "" : "\n") + source_ + ":" + std::to_string(line) + ": " + message;
  }
  [[nodiscard]] bool any() const { return !text_.empty(); }
  [[nodiscard]] const std::string& text() const { return text_; }

 private:
  std::string source_;
  std::string text_;
};

// Sets the value one `KEY = DURATION` line names, or adds its fault.
void read_line(std::string_view line, std::size_t number, master::Timings& timings,
               std::map<std::string, std::size_t, std::less<>>& set_on, Faults& faults) {
  const auto equals = line.find('=');
  if (equals == std::string_view::npos) return faults.add(number, "expected KEY = DURATION, got '" + std::string(line) + "'");
  const auto name = trim(line.substr(0, equals));
  const auto* key = find_key(name);
  if (key == nullptr)
    return faults.add(number, "unknown key '" + std::string(name) + "' (known: " + known_timing_keys() + ")");
  if (auto first = set_on.find(name); first != set_on.end())
    return faults.add(number, std::string(name) + ": set twice (first on line " + std::to_string(first->second) + ")");
  set_on.emplace(name, number);
  auto duration = parse_duration(trim(line.substr(equals + 1)));
  if (!duration) return faults.add(number, std::string(name) + ": " + duration.error().message);
  key->field(timings) = *duration;
}

// A connection must outlive a late heartbeat or two, or live peers are dropped.
void check_heartbeats(const master::Timings& timings, const std::map<std::string, std::size_t, std::less<>>& set_on,
                      Faults& faults) {
  const auto& links = timings.links;
  if (links.connection_timeout >= 2 * links.heartbeat_interval) return;
  const auto at = set_on.contains("connection_timeout") ? set_on.at("connection_timeout") : set_on.at("heartbeat_interval");
  faults.add(at, "connection_timeout (" + std::to_string(links.connection_timeout.count()) +
                     "ms) must be at least twice heartbeat_interval (" +
                     std::to_string(links.heartbeat_interval.count()) + "ms), or live peers are dropped");
}

}  // namespace

std::string known_timing_keys() {
  std::string names;
  for (const auto& key : kKeys) names += (names.empty() ? "" : ", ") + std::string(key.name);
  return names;
}

Result<master::Timings> parse_timings(std::string_view text, const std::string& source) {
  master::Timings timings;
  std::map<std::string, std::size_t, std::less<>> set_on;  // key -> line
  Faults faults(source);
  std::size_t number = 0;
  for (std::size_t start = 0; start <= text.size();) {
    const auto end = std::min(text.find('\n', start), text.size());
    const auto line = text.substr(start, end - start);
    ++number;
    if (const auto setting = trim(line.substr(0, line.find('#'))); !setting.empty())
      read_line(setting, number, timings, set_on, faults);
    start = end + 1;
  }
  if (!faults.any()) check_heartbeats(timings, set_on, faults);
  if (faults.any()) return fail(Error::invalid_argument(faults.text()));
  return timings;
}

Result<master::Timings> read_timings_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(Error::not_found("cannot read the timings file " + file.string()));
  std::string text(kMaxFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxFileBytes)
    return fail(Error::invalid_argument(file.string() + ": a timings file is at most 64 KiB"));
  return parse_timings(text, file.string());
}

std::string format_timings(const master::Timings& timings) {
  auto copy = timings;  // the fields are reached through non-const accessors
  std::string text;
  for (const auto& key : kKeys) text += std::string(key.name) + " = " + std::to_string(key.field(copy).count()) + "ms\n";
  return text;
}

Status write_timings_file(const master::Timings& timings, const std::filesystem::path& file) {
  std::ofstream out(file);
  out << format_timings(timings);
  if (!out) return fail(Error::io("cannot write the timings file " + file.string()));
  return {};
}

}  // namespace volador::node
