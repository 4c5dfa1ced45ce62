#pragma once
// A warm rank worker's channel to its agent (process/message_channel.hpp),
// set up by the agent and named in kAgentChannelVariable: the worker says it
// finished a trial (WorkerFinished, after all of that trial's output), and
// the agent hands it its next trial (WorkerAssignment) or ends it. A worker
// started without the variable runs one trial and exits. Both sides are
// here, so the two cannot drift apart.

#include <map>
#include <optional>
#include <string>

#include "runtime/core/error.hpp"
#include "runtime/process/message_channel.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::worker {

inline constexpr const char* kAgentChannelVariable = "VOLADOR_AGENT_CHANNEL";

// The environment a worker started for a trial would get, as an assignment's list (NAME=VALUE), and back.
std::vector<std::string> to_environment_list(const std::map<std::string, std::string>& environment);
std::map<std::string, std::string> from_environment_list(const std::vector<std::string>& entries);

class AgentChannel {
 public:
  // The channel its agent set up; nullopt when it set none. Error
  // invalid_argument when the variable names no open channel.
  static Result<std::optional<AgentChannel>> from_environment();

  // Tells the agent the worker is done with `trial`, after flushing stdout
  // and stderr so that the trial's last lines go before it. Error io when
  // the agent is gone.
  Status finished(const wire::RankHello& trial);

  // Blocks until the agent hands over the next trial; nullopt when it ends
  // the worker (closes the channel). Error corruption on a malformed message.
  Result<std::optional<wire::WorkerAssignment>> next_assignment();

 private:
  explicit AgentChannel(process::MessageChannel channel) : channel_(std::move(channel)) {}
  process::MessageChannel channel_;
};

}  // namespace volador::worker
