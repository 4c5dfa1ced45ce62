#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "runtime/collective/ring_schedule.hpp"

using namespace volador::collective;

TEST_CASE("Blocks tile the buffer in order, near-equal, on grain boundaries") {
  for (std::size_t count : {0UL, 1UL, 5UL, 16UL, 17UL, 1000UL, 1009UL, 65'537UL}) {
    for (int n = 1; n <= 9; ++n) {
      for (std::size_t grain : {1UL, 16UL}) {
        INFO("count " << count << " n " << n << " grain " << grain);
        std::size_t next = 0, smallest = count, largest = 0;
        for (int i = 0; i < n; ++i) {
          const Range b = block(count, n, i, grain);
          CHECK(b.offset == next);
          CHECK((b.offset % grain == 0 || b.count == 0));
          next = b.offset + b.count;
          smallest = std::min(smallest, b.count);
          largest = std::max(largest, b.count);
        }
        CHECK(next == count);
        if (count >= grain * static_cast<std::size_t>(n)) CHECK(largest - smallest < 2 * grain);
      }
    }
  }
}

TEST_CASE("Chunks cut a buffer into full chunks and one shorter tail") {
  CHECK(chunk_count(0, 4) == 0);
  CHECK(chunk_count(9, 4) == 3);
  CHECK(chunk(9, 4, 0) == Range{0, 4});
  CHECK(chunk(9, 4, 2) == Range{8, 1});
  CHECK(chunk_count(8, 4) == 2);
  CHECK(chunk(8, 4, 1) == Range{4, 4});
}

TEST_CASE("Ring steps forward what was just received and leave every rank with every block summed") {
  for (int n = 1; n <= 8; ++n) {
    INFO("n " << n);
    // contributions[rank][block]: the set of ranks whose data that rank holds for the block.
    std::vector<std::vector<std::set<int>>> held(n, std::vector<std::set<int>>(n));
    for (int r = 0; r < n; ++r)
      for (int b = 0; b < n; ++b) held[r][b] = {r};
    for (int t = 0; t < ring_steps(n); ++t) {
      auto next = held;
      for (int r = 0; r < n; ++r) {
        const RingStep step = ring_step(n, r, t);
        const int prev = (r + n - 1) % n;
        const RingStep sender = ring_step(n, prev, t);
        CHECK(sender.send_block == step.recv_block);
        if (t + 1 < ring_steps(n)) CHECK(ring_step(n, r, t + 1).send_block == step.recv_block);
        auto& mine = next[r][step.recv_block];
        const auto& theirs = held[prev][sender.send_block];
        if (step.reduce) {
          for (int c : theirs) CHECK(mine.insert(c).second);  // never added twice
        } else {
          mine = theirs;
        }
      }
      held = next;
      if (t == n - 2) {
        for (int r = 0; r < n; ++r) CHECK(held[r][owned_block(n, r)].size() == static_cast<std::size_t>(n));
      }
    }
    for (int r = 0; r < n; ++r)
      for (int b = 0; b < n; ++b) CHECK(held[r][b].size() == static_cast<std::size_t>(n));
  }
}

TEST_CASE("The broadcast chain visits every rank once, starting at the root") {
  for (int n = 1; n <= 6; ++n) {
    for (int root = 0; root < n; ++root) {
      std::set<int> seen{root};
      CHECK(chain_prev(n, root, root) == -1);
      for (int r = chain_next(n, root, root); r >= 0; r = chain_next(n, root, r)) {
        CHECK(seen.insert(r).second);
        CHECK(seen.count(chain_prev(n, root, r)) == 1);
      }
      CHECK(seen.size() == static_cast<std::size_t>(n));
    }
  }
}

TEST_CASE("Recursive doubling folds the ranks beyond a power of two") {
  CHECK(doubling_base(1) == 1);
  CHECK(doubling_base(2) == 2);
  CHECK(doubling_base(3) == 2);
  CHECK(doubling_base(7) == 4);
  CHECK(doubling_base(8) == 8);
}
