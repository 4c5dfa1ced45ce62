#include <catch2/catch.hpp>

#include "runtime/collective/shm_layout.hpp"

using namespace volador::collective;

TEST_CASE("Shared-memory geometry fits the limit, with aligned slots and room for every rank") {
  for (int ranks = 1; ranks <= 16; ++ranks) {
    for (std::size_t limit : {std::size_t{1} << 20, std::size_t{4} << 20, std::size_t{64} << 20, std::size_t{4} << 30}) {
      INFO("ranks " << ranks << " limit " << limit);
      auto g = plan_geometry(ranks, limit);
      if (!g) {
        CHECK(g.error().code == volador::ErrorCode::resource_exhausted);
        continue;
      }
      CHECK(g->total_bytes() <= limit);
      CHECK(g->depth >= 2);
      CHECK(g->slot_bytes % kCacheLine == 0);
      CHECK(g->slot_bytes >= 4096 * static_cast<std::size_t>(ranks));
      CHECK(g->slot_offset(0, 0) == g->control_bytes());
      CHECK(g->slot_offset(ranks - 1, g->depth - 1) + g->slot_bytes == g->total_bytes());
    }
  }
}

TEST_CASE("Shared-memory geometry refuses a limit too small for the group") {
  auto g = plan_geometry(8, 64 << 10);
  REQUIRE_FALSE(g.has_value());
  CHECK(g.error().code == volador::ErrorCode::resource_exhausted);
  CHECK(plan_geometry(2, 64 << 20)->slot_bytes == 256 << 10);
}
