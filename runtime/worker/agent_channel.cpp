#include "runtime/worker/agent_channel.hpp"

#include <cstdio>

#include "runtime/wire/codec.hpp"

namespace volador::worker {

std::vector<std::string> to_environment_list(const std::map<std::string, std::string>& environment) {
  std::vector<std::string> entries;
  for (const auto& [name, value] : environment) entries.push_back(name + "=" + value);
  return entries;
}

std::map<std::string, std::string> from_environment_list(const std::vector<std::string>& entries) {
  std::map<std::string, std::string> environment;
  for (const auto& entry : entries)
    if (auto eq = entry.find('='); eq != std::string::npos) environment[entry.substr(0, eq)] = entry.substr(eq + 1);
  return environment;
}

Result<std::optional<AgentChannel>> AgentChannel::from_environment() {
  auto channel = process::MessageChannel::from_environment(kAgentChannelVariable);
  if (!channel) return fail(channel.error());
  if (!*channel) return std::optional<AgentChannel>();
  return std::optional(AgentChannel(std::move(**channel)));
}

Status AgentChannel::finished(const wire::RankHello& trial) {
  std::fflush(stdout);
  std::fflush(stderr);
  const auto bytes = wire::encode(wire::WorkerFinished{trial.trial_id, trial.run_id, trial.rank});
  return channel_.send(process::Message(bytes.begin(), bytes.end()));
}

Result<std::optional<wire::WorkerAssignment>> AgentChannel::next_assignment() {
  auto message = channel_.receive();
  if (!message) return fail(message.error());
  if (!*message) return std::optional<wire::WorkerAssignment>();
  auto assignment = wire::decode<wire::WorkerAssignment>(wire::Bytes((*message)->begin(), (*message)->end()));
  if (!assignment) return fail(assignment.error());
  return std::optional(std::move(*assignment));
}

}  // namespace volador::worker
