#pragma once
// What every allreduce benchmark program shares (ours and the peers'): the
// sizes and iteration counts, the bandwidth arithmetic, the output lines,
// and running ranks as forked processes, so that every implementation is
// measured and reported the same way.

#include <chrono>
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace volador::bench {

struct Step {
  std::size_t bytes = 0;
  int warmup = 0;
  int iters = 0;  // fewer for big sizes
};

// Powers of two from min_bytes to max_bytes (float multiples).
[[nodiscard]] std::vector<Step> plan(std::size_t min_bytes, std::size_t max_bytes);
// "8", "64K", "256M", "1G".
[[nodiscard]] std::size_t parse_size(std::string_view text);

// nccl-tests' definitions: algbw = bytes / time, busbw = algbw * 2(n-1)/n.
[[nodiscard]] double algbw_gbps(std::size_t bytes, double seconds);
[[nodiscard]] double busbw_gbps(std::size_t bytes, double seconds, int ranks);

// Prints a table row and the machine-readable line for one size:
//   RESULT {"impl":..,"ranks":..,"bytes":..,"iters":..,"time_us":..,"algbw_gbps":..,"busbw_gbps":..}
void report(std::string_view impl, int ranks, const Step& step, double seconds);
void print_table_header(std::string_view impl, int ranks);
// LIMIT {"name":..,"gbps":..}
void report_limit(std::string_view name, double gbps);

// Per-rank timings in memory shared with forked ranks: each rank writes its
// own slot; the slowest rank's time is the result.
class RankTimes {
 public:
  explicit RankTimes(int ranks);
  ~RankTimes();
  RankTimes(const RankTimes&) = delete;
  RankTimes& operator=(const RankTimes&) = delete;
  void set(int rank, double seconds) { slots_[rank] = seconds; }
  [[nodiscard]] double slowest() const;

 private:
  int ranks_;
  volatile double* slots_;
};

// A value of fixed size that one forked rank publishes and the others wait
// for (an NCCL group id), in memory shared with the ranks: make it before
// forking them.
class Handoff {
 public:
  explicit Handoff(std::size_t bytes);
  ~Handoff();
  Handoff(const Handoff&) = delete;
  Handoff& operator=(const Handoff&) = delete;
  // Hands `value` (of the size given above) to the waiting ranks.
  void publish(std::span<const std::byte> value);
  // Tells the waiting ranks that no value will come (the publisher failed).
  void abandon();
  // Copies the published value into `out`; false when it was abandoned or
  // did not come within `timeout`.
  [[nodiscard]] bool await(std::span<std::byte> out, std::chrono::milliseconds timeout) const;

 private:
  struct Shared;
  std::size_t bytes_;
  Shared* shared_;
};

// Runs fn(rank) in n forked processes; true when every one exited 0. Like
// mpirun's default, rank r is bound to core r when the ranks fit the cores
// (and left unbound otherwise), so every implementation gets the same placement.
[[nodiscard]] bool run_forked(int n, const std::function<int(int rank)>& fn);

}  // namespace volador::bench
