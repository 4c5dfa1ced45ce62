#include <catch2/catch.hpp>

#include <future>

#include "actors/metric_outbox.hpp"

using namespace volador;
using namespace volador::actors;

namespace {

wire::MetricReport point(double loss, const std::string& name = "loss") {
  return {.run_id = 0, .rank = 0, .kind = wire::ReportKind::metrics, .value = 0, .metrics = {{name, loss}}, .step = {}};
}

std::vector<wire::MetricReports> decoded(const std::vector<OutgoingBatch>& batches) {
  std::vector<wire::MetricReports> out;
  for (const auto& batch : batches) {
    auto reports = wire::decode<wire::MetricReports>(batch.bytes);
    REQUIRE(reports);
    CHECK(reports->seq == batch.seq);
    out.push_back(std::move(*reports));
  }
  return out;
}

std::vector<std::uint64_t> seqs(const std::vector<OutgoingBatch>& batches) {
  std::vector<std::uint64_t> out;
  for (const auto& batch : batches) out.push_back(batch.seq);
  return out;
}

// Adds points with losses first, first + 1, ... up to (not including) last.
void add_points(MetricOutbox& outbox, int first, int last) {
  for (int loss = first; loss < last; ++loss) (void)outbox.add(point(loss));
}

}  // namespace

TEST_CASE("Points go in numbered batches of the run and rank, a partial batch only when asked") {
  MetricOutbox outbox(3, 1, {.batch_points = 3, .batch_bytes = 1 << 20, .window = 8});
  CHECK(outbox.add(point(0)));  // the first point held: the actor starts its timer
  CHECK_FALSE(outbox.add(point(1)));
  CHECK(outbox.add(point(2)));  // a full batch
  add_points(outbox, 3, 7);
  const auto full = decoded(outbox.take_ready(false));
  REQUIRE(full.size() == 2);
  CHECK(full[0].seq == 1);
  CHECK(full[1].seq == 2);
  for (const auto& batch : full) {
    CHECK(batch.run_id == 3);
    CHECK(batch.rank == 1);
    REQUIRE(batch.reports.size() == 3);
    CHECK(batch.reports[0].run_id == 3);
    CHECK(batch.reports[0].rank == 1);
  }
  CHECK(full[1].reports[2].metrics.at("loss") == 5);
  CHECK(outbox.take_ready(false).empty());  // sent already; the seventh point waits for more
  CHECK(outbox.holds_points());
  const auto partial = decoded(outbox.take_ready(true));
  REQUIRE(partial.size() == 1);
  CHECK(partial[0].seq == 3);
  REQUIRE(partial[0].reports.size() == 1);
  CHECK(partial[0].reports[0].metrics.at("loss") == 6);
  CHECK_FALSE(outbox.holds_points());
}

TEST_CASE("A batch is full at its byte limit before its point limit") {
  const std::string long_name(200, 'm');
  MetricOutbox outbox(1, 0, {.batch_points = 1000, .batch_bytes = 1000, .window = 8});
  for (int i = 0; i < 10; ++i) (void)outbox.add(point(i, long_name));
  const auto batches = decoded(outbox.take_ready(true));
  REQUIRE(batches.size() >= 3);
  std::size_t points = 0;
  for (const auto& batch : batches) {
    CHECK(batch.reports.size() < 10);
    points += batch.reports.size();
  }
  CHECK(points == 10);
}

TEST_CASE("By default 50,000 points are in flight unacknowledged before the reporter waits") {
  // A master's synced write takes up to a second on a busy disk: at 50,000
  // points a second the command must not wait for it.
  MetricOutbox outbox(1, 0);
  std::size_t in_flight = 0;
  while (!outbox.full() && in_flight < 1'000'000) {
    (void)outbox.add(point(static_cast<double>(in_flight++)));
    (void)outbox.take_ready(false);
  }
  CHECK(in_flight >= 50'000);
}

TEST_CASE("Batches are kept until acknowledged and all go again once the link is back") {
  MetricOutbox outbox(1, 0, {.batch_points = 2, .batch_bytes = 1 << 20, .window = 8});
  add_points(outbox, 0, 6);
  CHECK(seqs(outbox.take_ready(false)) == std::vector<std::uint64_t>{1, 2, 3});
  outbox.acknowledge(1);
  CHECK(outbox.settled(1));
  CHECK_FALSE(outbox.settled(2));
  outbox.link_lost();
  add_points(outbox, 6, 8);  // kept while the link is down
  const auto again = decoded(outbox.take_unacknowledged());
  REQUIRE(again.size() == 3);
  CHECK(again[0].seq == 2);
  CHECK(again[0].reports[0].metrics.at("loss") == 2);
  CHECK(again[2].seq == 4);
  CHECK(again[2].reports[1].metrics.at("loss") == 7);
  outbox.acknowledge(4);  // acknowledgements are cumulative
  CHECK(outbox.settled(4));
  CHECK(outbox.wait_until_drained() == MetricOutbox::Drained::all);
}

TEST_CASE("A batch is settled once acknowledged or once the trial stopped the rank, which it may end without answering") {
  // A refusal of a settled batch is expected (rank_actor.cpp logs it at debug level only).
  MetricOutbox outbox(1, 0, {.batch_points = 1, .batch_bytes = 1 << 20, .window = 8});
  add_points(outbox, 0, 3);
  CHECK(seqs(outbox.take_ready(false)) == std::vector<std::uint64_t>{1, 2, 3});
  outbox.acknowledge(1);
  CHECK(outbox.settled(1));
  CHECK_FALSE(outbox.settled(2));  // sent, its write not acknowledged: a refusal matters
  CHECK_FALSE(outbox.settled(3));
  outbox.close();
  CHECK(outbox.settled(2));
  CHECK(outbox.settled(3));
}

TEST_CASE("The reporter waits only while the window is full and a full batch more is held, until an acknowledgement") {
  MetricOutbox outbox(1, 0, {.batch_points = 2, .batch_bytes = 1 << 20, .window = 2});
  add_points(outbox, 0, 4);
  CHECK(seqs(outbox.take_ready(false)) == std::vector<std::uint64_t>{1, 2});
  CHECK_FALSE(outbox.full());
  add_points(outbox, 4, 6);  // a full batch held, the window full: the next add waits
  CHECK(outbox.full());
  CHECK(outbox.take_ready(true).empty());  // no room to seal it
  auto waiting = std::async(std::launch::async, [&] { return outbox.add(point(6)); });
  outbox.acknowledge(1);
  waiting.get();  // returns once the window has room
  CHECK_FALSE(outbox.full());
  const auto next = decoded(outbox.take_ready(false));
  REQUIRE(next.size() == 1);
  CHECK(next[0].seq == 3);
  CHECK(next[0].reports.size() == 2);
}

TEST_CASE("The reporter never waits while the link is down or after the trial stopped the rank") {
  MetricOutbox outbox(1, 0, {.batch_points = 1, .batch_bytes = 1 << 20, .window = 1});
  add_points(outbox, 0, 2);
  CHECK(outbox.take_ready(false).size() == 1);
  CHECK(outbox.full());
  outbox.link_lost();
  CHECK_FALSE(outbox.full());
  add_points(outbox, 2, 100);  // held, not waited for
  CHECK(outbox.wait_until_drained() == MetricOutbox::Drained::link_lost);
  CHECK(outbox.take_unacknowledged().size() == 1);  // the window's one batch; the rest waits for room
  CHECK(outbox.full());
  outbox.close();
  CHECK_FALSE(outbox.full());
  CHECK_FALSE(outbox.add(point(100)));  // dropped
  CHECK_FALSE(outbox.holds_points());
  CHECK(outbox.take_ready(true).empty());
  CHECK(outbox.wait_until_drained() == MetricOutbox::Drained::closed);
}

TEST_CASE("Draining waits for the acknowledgement of every point added") {
  MetricOutbox outbox(1, 0, {.batch_points = 10, .batch_bytes = 1 << 20, .window = 4});
  add_points(outbox, 0, 3);
  CHECK(outbox.take_ready(true).size() == 1);
  auto drained = std::async(std::launch::async, [&] { return outbox.wait_until_drained(); });
  outbox.acknowledge(1);
  CHECK(drained.get() == MetricOutbox::Drained::all);
}

TEST_CASE("The points held as a run ends go in one last batch for its answer, numbered after the sent ones") {
  MetricOutbox outbox(3, 0, {.batch_points = 2, .batch_bytes = 1 << 20, .window = 1});
  CHECK_FALSE(outbox.take_final());  // nothing held: the answer carries no batch
  add_points(outbox, 0, 7);
  CHECK(seqs(outbox.take_ready(false)) == std::vector<std::uint64_t>{1});  // the window holds one batch
  // More than a batch's worth, past the window: all of it, at once.
  const auto last = outbox.take_final();
  REQUIRE(last);
  CHECK((last->run_id == 3 && last->rank == 0 && last->seq == 2));
  REQUIRE(last->reports.size() == 5);
  CHECK(last->reports.front().metrics.at("loss") == 2);
  CHECK(last->reports.back().metrics.at("loss") == 6);
  CHECK_FALSE(outbox.holds_points());
  // It is never sent on its own, nor again after a drop of the link: the answer carries it.
  outbox.link_lost();
  CHECK(seqs(outbox.take_unacknowledged()) == std::vector<std::uint64_t>{1});
  outbox.acknowledge(1);
  CHECK(outbox.take_ready(true).empty());
  (void)outbox.add(point(7));
  outbox.close();
  CHECK_FALSE(outbox.take_final());
}
