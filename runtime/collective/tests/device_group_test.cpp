#include <catch2/catch.hpp>

#include <mutex>
#include <vector>

#include "runtime/collective/device_group.hpp"
#include "runtime/collective/tests/tcp_fixture.hpp"

using namespace volador;
using namespace volador::collective;
using namespace volador::collective::testing;

namespace {

// Each of `locals.size()` ranks forms a DeviceGroup with its own answer, twice; returns every rank's outcome messages.
std::vector<std::string> form_everywhere(const std::vector<Status>& locals) {
  TcpGroup group(static_cast<int>(locals.size()));
  std::vector<std::string> messages(locals.size());
  const auto reports = group.run_ranks([&](TcpCommunicator& host, int rank) -> Status {
    DeviceGroup device(host, {});
    const auto first = device.form(locals[static_cast<std::size_t>(rank)]);
    const auto again = device.form(Status{});
    if (first.has_value() || again.has_value() || device.formed()) return fail(Error::internal("formed"));
    if (first.error().message != again.error().message) return fail(Error::internal("changed its answer"));
    std::vector<float> data(4, 1.0f);
    const auto refused = device.allreduce(std::as_writable_bytes(std::span(data)), DType::f32, ReduceOp::sum);
    if (refused.has_value() || refused.error().code != ErrorCode::invalid_argument) {
      return fail(Error::internal("an unformed group reduced"));
    }
    messages[static_cast<std::size_t>(rank)] = first.error().message;
    // The host group still works after a refusal.
    return host.allreduce(data, ReduceOp::sum);
  });
  INFO(summary(reports));
  REQUIRE(all_ok(reports));
  return messages;
}

}  // namespace

TEST_CASE("A rank that cannot use GPU memory keeps every rank of its group on host collectives") {
  const auto messages = form_everywhere({Status{}, fail(Error::unavailable("no CUDA device visible")), Status{}});
  CHECK(messages[0] == "GPU collectives are off for this trial: rank(s) 1 cannot use them (this rank could)");
  CHECK(messages[1] ==
        "GPU collectives are off for this trial: rank(s) 1 cannot use them (this rank: no CUDA device visible)");
  CHECK(messages[2] == messages[0]);
}

TEST_CASE("Ranks that do not want GPU memory name their reason") {
  const auto messages = form_everywhere({fail(Error::unavailable("its gradients are in host memory")),
                                         fail(Error::unavailable("its gradients are in host memory"))});
  CHECK(messages[0] == "GPU collectives are off for this trial: rank(s) 0, 1 cannot use them (this rank: its "
                       "gradients are in host memory)");
}

TEST_CASE("Without NCCL or a GPU, local_device_support says which is missing and the group refuses") {
  const Status here = local_device_support();
  if (here.has_value()) {
    WARN("this machine has a GPU and NCCL: the refusal path is covered by the tests above");
    return;
  }
  const auto& why = here.error().message;
  CHECK((why.starts_with("this build has no NCCL") || why.starts_with("no CUDA device visible")));
  const auto messages = form_everywhere({here, here});
  CHECK(messages[0] == "GPU collectives are off for this trial: rank(s) 0, 1 cannot use them (this rank: " + why + ")");
  std::vector<float> host_memory(8);
  CHECK_FALSE(is_device_memory(host_memory.data()));
}
