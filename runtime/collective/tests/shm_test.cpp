#include <catch2/catch.hpp>

#include <signal.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "runtime/collective/shm_communicator.hpp"
#include "runtime/collective/tests/conformance.hpp"
#include "runtime/collective/tests/group_harness.hpp"

using namespace volador;
using namespace volador::collective;
using namespace volador::collective::testing;
using namespace std::chrono_literals;

namespace {

bool segment_exists(const std::string& group_id) {
  return std::filesystem::exists("/dev/shm" + shm_name(group_id));
}

// A counter shared by forked ranks.
struct SharedCounter {
  std::atomic<int>* value = static_cast<std::atomic<int>*>(
      ::mmap(nullptr, sizeof(std::atomic<int>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  SharedCounter() { new (value) std::atomic<int>(0); }
  ~SharedCounter() { ::munmap(value, sizeof(std::atomic<int>)); }
};

void check_conformance(int first, int last) {
  const auto seed = test_seed();
  INFO("seed " << seed << " (VOLADOR_TEST_SEED reproduces it)");
  for (int n = first; n <= last; ++n) {
    const std::string group = unique_group_id();
    SharedCounter arrivals;
    const auto reports = run_in_processes(n, [&](int rank) -> Status {
      auto comm = ShmCommunicator::join(group, rank, n);
      if (!comm) return fail(comm.error());
      return check_collectives(**comm, seed, *arrivals.value);
    }, 20s);
    INFO(n << " ranks:\n" << summary(reports));
    REQUIRE(all_ok(reports));
    CHECK_FALSE(segment_exists(group));
  }
}

}  // namespace

TEST_CASE("shm: collectives match the reference for 1 to 4 ranks") { check_conformance(1, 4); }

TEST_CASE("shm: collectives match the reference for 5 and 6 ranks") { check_conformance(5, 6); }

TEST_CASE("shm: collectives match the reference for 7 and 8 ranks") { check_conformance(7, 8); }

TEST_CASE("shm: a rank killed mid-allreduce makes the others fail within seconds") {
  CommOptions options;
  options.timeout = 20s;  // far longer than the test: the failure must come from the liveness check
  const std::string group = unique_group_id();
  const auto join = [&](int rank) { return ShmCommunicator::join(group, rank, 4, options); };
  const auto reports = run_with_victim(4, 1, join, [] {
    std::thread([] {
      std::this_thread::sleep_for(100ms);
      ::raise(SIGKILL);
    }).detach();
  });
  INFO(summary(reports));
  CHECK_THAT(reports[1].message, Catch::Contains("signal 9"));
  for (int r : {0, 2, 3}) {
    CHECK_FALSE(reports[r].ok);
    CHECK(reports[r].elapsed < 3s);
    CHECK_THAT(reports[r].message, Catch::Contains("rank"));
  }
  CHECK_THAT(reports[0].message + reports[2].message + reports[3].message, Catch::Contains("rank 1 (pid"));
  CHECK_FALSE(segment_exists(group));
}

TEST_CASE("shm: a rank that stops responding makes the others fail after the timeout") {
  CommOptions options;
  options.timeout = 200ms;
  const std::string group = unique_group_id();
  const auto join = [&](int rank) { return ShmCommunicator::join(group, rank, 3, options); };
  const auto reports = run_with_victim(3, 2, join, [] { std::this_thread::sleep_for(900ms); });
  INFO(summary(reports));
  for (int r : {0, 1}) {
    CHECK_FALSE(reports[r].ok);
    CHECK(reports[r].elapsed < 800ms);
  }
  CHECK_THAT(reports[0].message + reports[1].message, Catch::Contains("made no progress for 200 ms"));
}

TEST_CASE("shm: a rank that closes its communicator early makes a waiting peer fail") {
  const std::string group = unique_group_id();
  const auto reports = run_in_processes(2, [&](int rank) -> Status {
    auto comm = ShmCommunicator::join(group, rank, 2);
    if (!comm) return fail(comm.error());
    if (rank == 1) {
      comm->reset();
      std::this_thread::sleep_for(500ms);  // alive, but gone from the group
      return {};
    }
    return (*comm)->barrier();
  }, 5s);
  INFO(summary(reports));
  CHECK_FALSE(reports[0].ok);
  CHECK_THAT(reports[0].message, Catch::Contains("rank 1 closed its communicator"));
  CHECK(reports[0].elapsed < 400ms);
}

TEST_CASE("shm: ranks missing at the start fail the others and leave no segment behind") {
  const std::string group = unique_group_id();
  CommOptions options;
  options.timeout = 300ms;
  const auto reports = run_in_processes(2, [&](int rank) -> Status {
    auto comm = ShmCommunicator::join(group, rank, 3, options);
    if (!comm) return fail(comm.error());
    return {};
  }, 5s);
  INFO(summary(reports));
  for (const auto& r : reports) {
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.message, Catch::Contains("missing: ranks 2"));
  }
  CHECK_FALSE(segment_exists(group));
}

TEST_CASE("shm: ranks in different collectives fail with both calls named") {
  const std::string group = unique_group_id();
  const auto reports = run_in_processes(2, [&](int rank) -> Status {
    auto comm = ShmCommunicator::join(group, rank, 2);
    if (!comm) return fail(comm.error());
    std::vector<float> data(100, 1.0f);
    if (rank == 0) return (*comm)->allreduce(data, ReduceOp::sum);
    return (*comm)->broadcast(std::as_writable_bytes(std::span(data)), 0);
  }, 5s);
  INFO(summary(reports));
  REQUIRE_FALSE(reports[0].ok);
  REQUIRE_FALSE(reports[1].ok);
  CHECK_THAT(reports[0].message + reports[1].message, Catch::Contains("broadcast from rank 0 #0 of 400 bytes"));
}

TEST_CASE("shm: remove_shm_segment clears a leftover segment and tolerates a missing one") {
  const std::string group = unique_group_id();
  const int fd = ::shm_open(shm_name(group).c_str(), O_CREAT | O_RDWR, 0600);
  REQUIRE(fd >= 0);
  ::close(fd);
  REQUIRE(segment_exists(group));
  CHECK(remove_shm_segment(group).has_value());
  CHECK_FALSE(segment_exists(group));
  CHECK(remove_shm_segment(group).has_value());
  CHECK_FALSE(remove_shm_segment("no/slashes").has_value());
}

TEST_CASE("shm: a group id that cannot name a segment is refused") {
  auto comm = ShmCommunicator::join("../etc", 0, 1);
  REQUIRE_FALSE(comm.has_value());
  CHECK(comm.error().code == ErrorCode::invalid_argument);
}
