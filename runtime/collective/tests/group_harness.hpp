#pragma once
// Test support: runs one function per rank, in threads or in forked
// processes (each rank a real process, as in production), and collects
// every rank's outcome. Also the random seed shared by a test run.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/core/error.hpp"

namespace volador::collective::testing {

struct RankReport {
  int rank = 0;
  bool ok = false;
  std::string message;                   // the error, or how the process ended
  std::chrono::milliseconds elapsed{0};  // until the rank's function returned
};

using RankFn = std::function<Status(int rank)>;

[[nodiscard]] std::vector<RankReport> run_in_threads(int n, const RankFn& fn);
// Each rank is a forked child; ranks still running after `limit` are
// killed and reported as such. fn runs in the child only.
[[nodiscard]] std::vector<RankReport> run_in_processes(int n, const RankFn& fn, std::chrono::milliseconds limit);

// One line per rank, for failure messages.
[[nodiscard]] std::string summary(const std::vector<RankReport>& reports);
[[nodiscard]] bool all_ok(const std::vector<RankReport>& reports);

// VOLADOR_TEST_SEED when set, else fresh randomness: print it on failure.
[[nodiscard]] std::uint64_t test_seed();

// A unique name for shared-memory groups of this test process.
[[nodiscard]] std::string unique_group_id();

}  // namespace volador::collective::testing
