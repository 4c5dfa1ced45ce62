#include "runtime/collective/factory.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <set>

#include "runtime/collective/shm_communicator.hpp"
#include "runtime/collective/tcp_communicator.hpp"

namespace volador::collective {

Backend choose_backend(std::span<const RankAddress> ranks) {
  const bool one_host = std::ranges::all_of(ranks, [&](const RankAddress& r) { return r.host_id == ranks[0].host_id; });
  return one_host ? Backend::shm : Backend::tcp;
}

std::string describe_group(std::span<const RankAddress> ranks) {
  std::set<std::string> hosts;
  for (const auto& rank : ranks) hosts.insert(rank.host_id);
  return std::string(choose_backend(ranks) == Backend::shm ? "shared memory" : "TCP ring") + ", " +
         std::to_string(ranks.size()) + " ranks on " + std::to_string(hosts.size()) + (hosts.size() == 1 ? " host" : " hosts");
}

std::string local_host_id() {
  std::array<char, 256> name{};
  ::gethostname(name.data(), name.size() - 1);
  std::string boot_id;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot_id;
  std::error_code ec;
  const auto network = std::filesystem::read_symlink("/proc/self/ns/net", ec).string();  // "net:[4026531840]"
  return std::string(name.data()) + "/" + boot_id + "/" + network;
}

Result<std::unique_ptr<Communicator>> make_communicator(const GroupSpec& spec, TcpListener& listener) {
  const int n = static_cast<int>(spec.ranks.size());
  if (spec.rank < 0 || spec.rank >= n) {
    return fail(Error::invalid_argument("rank " + std::to_string(spec.rank) + " outside a group of " + std::to_string(n)));
  }
  if (choose_backend(spec.ranks) == Backend::shm) {
    auto shm = ShmCommunicator::join(spec.group_id, spec.rank, n, spec.options);
    if (!shm) return fail(shm.error());
    return std::unique_ptr<Communicator>(std::move(*shm));
  }
  std::vector<Endpoint> endpoints;
  for (const RankAddress& r : spec.ranks) endpoints.push_back(r.endpoint);
  auto tcp = TcpCommunicator::connect(listener, endpoints, spec.rank, spec.secret, spec.options);
  if (!tcp) return fail(tcp.error());
  return std::unique_ptr<Communicator>(std::move(*tcp));
}

}  // namespace volador::collective
