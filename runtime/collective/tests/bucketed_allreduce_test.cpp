#include <catch2/catch.hpp>

#include <numeric>
#include <random>

#include "runtime/collective/bucketed_allreduce.hpp"
#include "runtime/collective/shm_communicator.hpp"
#include "runtime/collective/tests/group_harness.hpp"

using namespace volador;
using namespace volador::collective;
using namespace volador::collective::testing;

TEST_CASE("Tensors are packed in order into buckets, large ones split across buckets") {
  const std::vector<std::size_t> sizes{3, 0, 10, 2};
  auto buckets = plan_buckets(sizes, 4);
  REQUIRE(buckets.size() == 4);
  CHECK(buckets[0] == Bucket{{0, 0, 3}, {2, 0, 1}});
  CHECK(buckets[1] == Bucket{{2, 1, 4}});
  CHECK(buckets[2] == Bucket{{2, 5, 4}});
  CHECK(buckets[3] == Bucket{{2, 9, 1}, {3, 0, 2}});
  CHECK(plan_buckets(std::vector<std::size_t>{}, 4).empty());
  CHECK(plan_buckets(std::vector<std::size_t>{0, 0}, 4).empty());
}

TEST_CASE("A bucketed average equals averaging every tensor on its own") {
  const int n = 3;
  const auto group_id = unique_group_id();
  const auto seed = test_seed();
  // Rank r's tensors: many small ones and one spanning several buckets.
  auto tensors_of = [&](int rank) {
    std::mt19937_64 rng(seed + static_cast<std::uint64_t>(rank));
    std::uniform_real_distribution<float> value(-1, 1);
    std::vector<std::vector<float>> out;
    for (std::size_t size : {1u, 7u, 0u, 300u, 5u, 64u}) {
      out.emplace_back(size);
      for (auto& v : out.back()) v = value(rng);
    }
    return out;
  };
  const auto reports = run_in_threads(n, [&](int rank) -> Status {
    auto comm = ShmCommunicator::join(group_id, rank, n);
    if (!comm) return fail(comm.error());
    auto tensors = tensors_of(rank);
    std::vector<std::span<float>> views(tensors.begin(), tensors.end());
    BucketedAllreduce fused(**comm, 64 * sizeof(float));
    if (auto s = fused.run(views, ReduceOp::avg); !s) return s;
    for (std::size_t t = 0; t < tensors.size(); ++t) {
      for (std::size_t i = 0; i < tensors[t].size(); ++i) {
        double expected = 0;
        for (int r = 0; r < n; ++r) expected += tensors_of(r)[t][i];
        if (std::abs(tensors[t][i] - expected / n) > 1e-6)
          return fail(Error::internal("tensor " + std::to_string(t) + " element " + std::to_string(i) + " is wrong"));
      }
    }
    return {};
  });
  INFO("seed " << seed << "\n" << summary(reports));
  CHECK(all_ok(reports));
}
