#include <catch2/catch.hpp>

#include <sys/resource.h>

#include <algorithm>

#include "runtime/net/descriptor_limit.hpp"

using namespace volador::net;

TEST_CASE("The soft descriptor limit is raised towards the hard limit and never lowered") {
  CHECK(wanted_soft_descriptor_limit(1024, 524288) == kWantedDescriptors);
  CHECK(wanted_soft_descriptor_limit(1024, 4096) == 4096);        // the hard limit caps it
  CHECK(wanted_soft_descriptor_limit(1024, 1024) == 1024);
  CHECK(wanted_soft_descriptor_limit(100000, 200000) == 100000);  // already higher: kept
  CHECK(wanted_soft_descriptor_limit(RLIM_INFINITY, RLIM_INFINITY) == RLIM_INFINITY);
}

TEST_CASE("A process started with the common limit of 1024 raises its own") {
  rlimit saved{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &saved) == 0);
  rlimit common = saved;
  common.rlim_cur = std::min<rlim_t>(1024, saved.rlim_max);
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &common) == 0);
  const auto raised = raise_descriptor_limit();
  rlimit now{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &now) == 0);
  CHECK(raised == now.rlim_cur);
  CHECK(now.rlim_cur == std::max<rlim_t>(common.rlim_cur, std::min<rlim_t>(saved.rlim_max, kWantedDescriptors)));
  ::setrlimit(RLIMIT_NOFILE, &saved);
}
