#include "runtime/collective/ring_schedule.hpp"

#include <algorithm>

namespace volador::collective {

namespace {
int mod(int a, int n) { return ((a % n) + n) % n; }
}  // namespace

Range block(std::size_t count, int n, int i, std::size_t grain) {
  const auto blocks = static_cast<std::size_t>(n);
  const auto index = static_cast<std::size_t>(i);
  const std::size_t units = (count + grain - 1) / grain;
  const std::size_t base = units / blocks;
  const std::size_t extra = units % blocks;
  const std::size_t first_unit = index * base + std::min(index, extra);
  const std::size_t own_units = base + (index < extra ? 1 : 0);
  const std::size_t begin = std::min(first_unit * grain, count);
  const std::size_t end = std::min((first_unit + own_units) * grain, count);
  return {begin, end - begin};
}

std::size_t chunk_count(std::size_t count, std::size_t chunk) { return (count + chunk - 1) / chunk; }

Range chunk(std::size_t count, std::size_t chunk, std::size_t c) {
  const std::size_t begin = std::min(c * chunk, count);
  return {begin, std::min(chunk, count - begin)};
}

int ring_steps(int n) { return 2 * (n - 1); }

RingStep ring_step(int n, int rank, int t) {
  if (t < n - 1) return {mod(rank - t, n), mod(rank - t - 1, n), true};
  const int s = t - (n - 1);
  return {mod(rank + 1 - s, n), mod(rank - s, n), false};
}

int owned_block(int n, int rank) { return mod(rank + 1, n); }

int doubling_base(int n) {
  int base = 1;
  while (base * 2 <= n) base *= 2;
  return base;
}

int chain_next(int n, int root, int rank) {
  const int next = mod(rank + 1, n);
  return next == root ? -1 : next;
}

int chain_prev(int n, int root, int rank) { return rank == root ? -1 : mod(rank - 1, n); }

}  // namespace volador::collective
