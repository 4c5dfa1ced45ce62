#include <catch2/catch.hpp>

#include "actors/workload_chain.hpp"

using namespace volador;
using volador::actors::WorkloadChain;

namespace {

// A training to 100 with the target's validation and checkpoint chained to it.
wire::WorkloadRequest train_with_chain() {
  wire::WorkloadRequest request{wire::WorkloadKind::train, 90, 10, "", ""};
  request.then = {{wire::WorkloadKind::validate, 100, 0, "", ""}, {wire::WorkloadKind::checkpoint, 100, 0, "/ckpt", ""}};
  return request;
}

wire::WorkloadResult done(std::uint64_t batches, std::string error = "") {
  return {.metrics = {}, .batches_trained = batches, .error_message = std::move(error)};
}

}  // namespace

TEST_CASE("A chain runs its workloads one by one and answers them all at once") {
  WorkloadChain chain;
  const auto sent = train_with_chain();
  const auto first = chain.start(sent);
  CHECK((first.kind == wire::WorkloadKind::train && first.then.empty()));
  CHECK_FALSE(chain.next());  // nothing before the first one's result
  CHECK_FALSE(chain.finish(done(100)));
  CHECK(chain.next() == sent.then[0]);
  CHECK_FALSE(chain.next());  // one at a time
  CHECK_FALSE(chain.finish(done(100)));
  CHECK(chain.next() == sent.then[1]);
  const auto answered = chain.finish(done(100));
  REQUIRE(answered);
  CHECK(answered->request == sent);
  CHECK(answered->result.then.size() == 2);
  CHECK_FALSE(chain.next());
}

TEST_CASE("A chain whose workload failed answers at once with the results up to the failure") {
  WorkloadChain chain;
  (void)chain.start(train_with_chain());
  CHECK_FALSE(chain.finish(done(100)));
  REQUIRE(chain.next());
  const auto answered = chain.finish(done(100, "validation crashed"));
  REQUIRE(answered);
  REQUIRE(answered->result.then.size() == 1);
  CHECK(answered->result.then[0].error_message == "validation crashed");
  CHECK_FALSE(chain.next());  // the checkpoint is not run
}

TEST_CASE("A request without a chain is answered with its own result") {
  WorkloadChain chain;
  const wire::WorkloadRequest alone{wire::WorkloadKind::validate, 20, 0, "", ""};
  CHECK(chain.start(alone) == alone);
  const auto answered = chain.finish(done(20));
  REQUIRE(answered);
  CHECK((answered->request == alone && answered->result.then.empty()));
  CHECK_FALSE(chain.finish(done(20)));  // nothing taken: nothing to answer
}
