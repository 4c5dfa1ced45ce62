#pragma once
// Builds a group's communicator from what the rendezvous gathered: shared
// memory when every rank is on this host, TCP otherwise. GPU memory goes
// through NCCL, formed over this communicator on first use (DeviceGroup,
// device_group.hpp).
//
// The rendezvous, as the rank and trial actors run it:
//   1. each rank: listener = TcpListener::open(my_ip); report
//      RankAddress{local_host_id(), listener->endpoint()} to the trial actor;
//   2. trial actor: once all ranks reported, send every rank the same
//      GroupSpec fields (group_id unique per run, a fresh secret, all
//      addresses in rank order);
//   3. each rank: make_communicator(spec, *listener).

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "runtime/collective/communicator.hpp"
#include "runtime/collective/tcp_listener.hpp"

namespace volador::collective {

struct RankAddress {
  std::string host_id;  // local_host_id() of the rank's machine
  Endpoint endpoint;    // the rank's TcpListener endpoint
};

struct GroupSpec {
  std::string group_id;            // unique per trial run: [A-Za-z0-9._-], at most 200
  std::string secret;              // per-trial secret, 1-256 bytes, for TCP connections
  std::vector<RankAddress> ranks;  // every rank's address, index = rank
  int rank = 0;                    // this process's rank
  CommOptions options;             // the same on every rank
};

enum class Backend { shm, tcp };

// shm when every rank has the same host id, else tcp.
[[nodiscard]] Backend choose_backend(std::span<const RankAddress> ranks);
// The backend and the group's shape, for logs: "shared memory, 2 ranks on
// 1 host" or "TCP ring, 4 ranks on 2 hosts".
[[nodiscard]] std::string describe_group(std::span<const RankAddress> ranks);
// This machine's identity: host name, kernel boot id and network namespace
// (containers on one kernel, each with its own network, count as hosts of
// their own: they may not share /dev/shm).
[[nodiscard]] std::string local_host_id();
// Sets up the chosen backend; `listener` is this rank's (shm leaves it unused).
[[nodiscard]] Result<std::unique_ptr<Communicator>> make_communicator(const GroupSpec& spec, TcpListener& listener);

}  // namespace volador::collective
