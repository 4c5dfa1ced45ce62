#include <catch2/catch.hpp>
#include <filesystem>

#include "runtime/collective/factory.hpp"
#include "runtime/collective/tests/group_harness.hpp"
#include "runtime/collective/tests/tcp_fixture.hpp"

using namespace volador;
using namespace volador::collective;
using namespace volador::collective::testing;

namespace {

// Forms a 3-rank group whose ranks claim the given hosts; returns each rank's backend.
std::vector<std::string> form_group(const std::vector<std::string>& hosts) {
  const int n = static_cast<int>(hosts.size());
  TcpGroup group(n);
  GroupSpec spec;
  spec.group_id = unique_group_id();
  spec.secret = "s3cret";
  for (int r = 0; r < n; ++r) spec.ranks.push_back({hosts[static_cast<std::size_t>(r)], group.endpoints[static_cast<std::size_t>(r)]});
  std::vector<std::string> backends(hosts.size());
  const auto reports = run_in_threads(n, [&](int rank) -> Status {
    GroupSpec mine = spec;
    mine.rank = rank;
    auto comm = make_communicator(mine, group.listeners[static_cast<std::size_t>(rank)]);
    if (!comm) return fail(comm.error());
    backends[static_cast<std::size_t>(rank)] = std::string((*comm)->backend());
    std::vector<float> data{1.0f, 2.0f};
    if (auto ok = (*comm)->allreduce(data, ReduceOp::sum); !ok) return ok;
    if (data[0] != static_cast<float>(n)) return fail(Error::internal("wrong sum"));
    return {};
  });
  INFO(summary(reports));
  REQUIRE(all_ok(reports));
  return backends;
}

}  // namespace

TEST_CASE("The factory picks shared memory when every rank is on one host") {
  CHECK(choose_backend(std::vector<RankAddress>{{"a", {}}, {"a", {}}}) == Backend::shm);
  CHECK(choose_backend(std::vector<RankAddress>{{"a", {}}, {"b", {}}}) == Backend::tcp);
  const std::string here = local_host_id();
  CHECK(here.find('/') != std::string::npos);
  CHECK(form_group({here, here, here}) == std::vector<std::string>{"shm", "shm", "shm"});
}

TEST_CASE("The factory picks TCP when ranks are on several hosts") {
  CHECK(form_group({"host-a", "host-a", "host-b"}) == std::vector<std::string>{"tcp", "tcp", "tcp"});
}

TEST_CASE("The factory refuses a rank outside the group") {
  TcpGroup group(1);
  GroupSpec spec;
  spec.ranks.push_back({"h", group.endpoints[0]});
  spec.rank = 1;
  auto comm = make_communicator(spec, group.listeners[0]);
  REQUIRE_FALSE(comm.has_value());
  CHECK(comm.error().code == ErrorCode::invalid_argument);
}

TEST_CASE("A group's description names its backend and shape") {
  CHECK(describe_group(std::vector<RankAddress>{{"a", {}}, {"a", {}}}) == "shared memory, 2 ranks on 1 host");
  CHECK(describe_group(std::vector<RankAddress>{{"a", {}}, {"a", {}}, {"b", {}}, {"b", {}}}) ==
        "TCP ring, 4 ranks on 2 hosts");
}

TEST_CASE("The host id tells network namespaces apart") {
  CHECK(local_host_id().ends_with(std::filesystem::read_symlink("/proc/self/ns/net").string()));
}
