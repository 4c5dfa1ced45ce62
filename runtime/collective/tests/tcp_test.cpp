#include <catch2/catch.hpp>

#include <signal.h>

#include <thread>

#include "runtime/collective/handshake.hpp"
#include "runtime/collective/tests/conformance.hpp"
#include "runtime/collective/tests/group_harness.hpp"
#include "runtime/collective/tests/tcp_fixture.hpp"

using namespace volador;
using namespace volador::collective;
using namespace volador::collective::testing;
using namespace std::chrono_literals;

namespace {

void check_conformance(int first, int last) {
  const auto seed = test_seed();
  INFO("seed " << seed << " (VOLADOR_TEST_SEED reproduces it)");
  for (int n = first; n <= last; ++n) {
    TcpGroup group(n);
    std::atomic<int> arrivals{0};
    const auto reports =
        group.run_ranks([&](TcpCommunicator& comm, int) { return check_collectives(comm, seed, arrivals); });
    INFO(n << " ranks:\n" << summary(reports));
    REQUIRE(all_ok(reports));
  }
}

}  // namespace

TEST_CASE("tcp: collectives match the reference for 1 to 4 ranks") { check_conformance(1, 4); }

TEST_CASE("tcp: collectives match the reference for 5 and 6 ranks") { check_conformance(5, 6); }

TEST_CASE("tcp: collectives match the reference for 7 and 8 ranks") { check_conformance(7, 8); }

TEST_CASE("tcp: a connection with the wrong secret is refused and the group still forms") {
  TcpGroup group(2);
  Deadline deadline(2s);
  auto stray = connect_to(group.endpoints[1], deadline);
  REQUIRE(stray.has_value());
  REQUIRE(send_hello(stray->get(), "guessed", 2, 0, deadline).has_value());
  const auto reports = group.run_ranks([](TcpCommunicator& comm, int) { return comm.barrier(); });
  INFO(summary(reports));
  CHECK(all_ok(reports));
  const Status answer = await_welcome(stray->get(), 1, deadline);
  REQUIRE_FALSE(answer.has_value());
  CHECK_THAT(answer.error().message, Catch::Contains("refused"));
}

TEST_CASE("tcp: a rank with the wrong secret is refused and the others time out naming it") {
  TcpGroup group(2);
  CommOptions options;
  options.timeout = 400ms;
  const auto reports = run_in_threads(2, [&](int rank) -> Status {
    auto comm = group.connect(rank, rank == 0 ? "trial-secret" : "other-secret", options);
    if (!comm) return fail(comm.error());
    return {};
  });
  INFO(summary(reports));
  REQUIRE_FALSE(reports[0].ok);  // rank 0 connects to rank 1, which refuses it
  CHECK_THAT(reports[0].message, Catch::Contains("rank 1 refused the connection"));
  REQUIRE_FALSE(reports[1].ok);
  CHECK_THAT(reports[1].message, Catch::Contains("waited for ranks 0") && Catch::Contains("wrong secret"));
}

TEST_CASE("tcp: ranks in different collectives fail with both calls named") {
  TcpGroup group(2);
  const auto reports = group.run_ranks([](TcpCommunicator& comm, int rank) -> Status {
    std::vector<float> data(100, 1.0f);
    if (rank == 0) return comm.allreduce(data, ReduceOp::sum);
    return comm.broadcast(std::as_writable_bytes(std::span(data)), 0);
  });
  INFO(summary(reports));
  REQUIRE_FALSE(reports[0].ok);
  REQUIRE_FALSE(reports[1].ok);
  CHECK_THAT(reports[0].message + reports[1].message, Catch::Contains("broadcast from rank 0 #0 of 400 bytes"));
}

TEST_CASE("tcp: ranks reducing different element types fail with both named") {
  TcpGroup group(2);
  const auto reports = group.run_ranks([](TcpCommunicator& comm, int rank) {
    std::vector<std::uint16_t> data(100, 0);
    return comm.allreduce(std::as_writable_bytes(std::span(data)), rank == 0 ? DType::f16 : DType::bf16,
                          ReduceOp::sum);
  });
  INFO(summary(reports));
  REQUIRE_FALSE(reports[0].ok);
  REQUIRE_FALSE(reports[1].ok);
  CHECK_THAT(reports[0].message + reports[1].message,
             Catch::Contains("allreduce(sum, bf16) #0 of 200 bytes") && Catch::Contains("allreduce(sum, f16) #0"));
}

TEST_CASE("tcp: a buffer of partial or misaligned elements is refused and the group stays usable") {
  TcpGroup group(2);
  const auto reports = group.run_ranks([](TcpCommunicator& comm, int) -> Status {
    std::vector<float> data(8, 1.0f);
    const auto bytes = std::as_writable_bytes(std::span(data));
    const Status partial = comm.allreduce(bytes.first(7), DType::f16, ReduceOp::sum);
    const Status misaligned = comm.allreduce(bytes.subspan(2, 8), DType::f32, ReduceOp::sum);
    if (partial || partial.error().code != ErrorCode::invalid_argument) return fail(Error::internal("7 bytes of f16 accepted"));
    if (misaligned || misaligned.error().code != ErrorCode::invalid_argument) return fail(Error::internal("misaligned f32 accepted"));
    if (auto ok = comm.allreduce(data, ReduceOp::sum); !ok) return ok;
    if (data[0] != 2.0f) return fail(Error::internal("wrong sum after the refusals"));
    return {};
  });
  INFO(summary(reports));
  CHECK(all_ok(reports));
}

TEST_CASE("tcp: a rank killed mid-allreduce makes the others fail within seconds") {
  CommOptions options;
  options.timeout = 20s;  // far longer than the test: the failure must come from the closed sockets
  TcpGroup group(4);
  const auto join = [&](int rank) { return group.connect(rank, "trial-secret", options); };
  const auto reports = run_with_victim(4, 2, join, [] {
    std::thread([] {
      std::this_thread::sleep_for(100ms);
      ::raise(SIGKILL);
    }).detach();
  });
  INFO(summary(reports));
  CHECK_THAT(reports[2].message, Catch::Contains("signal 9"));
  for (int r : {0, 1, 3}) {
    CHECK_FALSE(reports[r].ok);
    CHECK(reports[r].elapsed < 3s);
    CHECK_THAT(reports[r].message, Catch::Contains("rank"));
  }
}

TEST_CASE("tcp: a rank that stops responding makes the others fail after the timeout") {
  CommOptions options;
  options.timeout = 200ms;
  TcpGroup group(3);
  const auto join = [&](int rank) { return group.connect(rank, "trial-secret", options); };
  const auto reports = run_with_victim(3, 1, join, [] { std::this_thread::sleep_for(900ms); });
  INFO(summary(reports));
  for (int r : {0, 2}) {
    CHECK_FALSE(reports[r].ok);
    CHECK(reports[r].elapsed < 800ms);
  }
  CHECK_THAT(reports[0].message + reports[2].message, Catch::Contains("no progress for 200 ms"));
}
