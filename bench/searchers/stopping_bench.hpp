#pragma once
// The early-stopping part of bench_searchers, on the learning-curve objective
// (objectives.hpp: curve_loss, at most kCurveEpochs epochs), trials one at a
// time: random and tpe without stopping, random and tpe with the median
// stopping rule (defaults, and from the 3rd of its 10 steps: `_s3`),
// adaptive_asha in each mode, pbt with populations of 10 and 20 (9 rounds of
// 9 epochs; a copy continues its parent's curve at its own speed, so a
// schedule found by exploit and explore can beat every fixed setting's final
// loss and give a negative regret). Per row, over the seeds: epochs
// trained, trials stopped, the best validation loss found (as regret against
// the best final loss), the regret after 700 epochs, and the regret of the
// same sampler without stopping given the same epochs (seed by seed).

#include <cstdint>

namespace volador::search::testing {

// Prints the table and one `RESULT {json}` line (bench "stopping") per row.
void stopping_table(std::uint32_t seeds, std::uint32_t trials);

}  // namespace volador::search::testing
