#pragma once
// The fair split of a pool between experiments, as pure arithmetic.
//
// Priorities are strict: the experiments of the most important priority
// get what they ask for first, the next priority what is left, and so on.
// Within one priority the slots are split in proportion to weight, no
// experiment getting more than it asks for (weighted max-min fairness,
// "water filling"); what one cannot use goes to the others.

#include <cstdint>
#include <span>
#include <vector>

namespace volador::scheduling {

struct ShareDemand {
  int priority = 0;     // lower is more important
  double weight = 1.0;  // > 0
  double demand = 0;    // slots it would use: allocated plus queued
};

// Each demand's ideal slots (a real number, in `demands`' order) when
// `capacity` slots are split as above. They add up to min(capacity, total
// demand).
std::vector<double> ideal_shares(std::span<const ShareDemand> demands, double capacity);

// How served an experiment would be after getting `more` slots: the order
// in which the scheduler serves experiments of one priority (lowest first),
// and the test of a preemption between them. Counting the gang about to be
// granted rounds shares fairly with gang sizes: an experiment of 4-slot
// trials and one of 1-slot trials alternate by the slots they would then
// hold, not by trials.
[[nodiscard]] inline double served_after(double allocated_slots, double more, double weight) {
  return (allocated_slots + more) / weight;
}

// Whether a same-priority experiment that holds `requester_slots` (weight
// `requester_weight`) and waits for a gang of `gang` slots may take
// `taken` slots from one holding `victim_slots` (weight `victim_weight`):
// only when, after the move, the requester is still no more served than
// the victim. The move back then never qualifies, so fairness preemption
// cannot ping-pong.
[[nodiscard]] bool fair_to_take(double requester_slots, double requester_weight, double gang, double victim_slots,
                                double victim_weight, double taken);

}  // namespace volador::scheduling
