#pragma once
// `grid`: one trial per grid point, in grid order, each trained to max_length,
// at most max_concurrent_trials at a time (0 = all at once).

#include "runtime/hparams/sampling.hpp"
#include "runtime/search/fixed_length_searcher.hpp"

namespace volador::search {

class GridSearcher final : public FixedLengthSearcher {
 public:
  GridSearcher(const FixedLengthSettings& settings, hparams::Grid grid);

 private:
  nlohmann::json next_hparams(RequestId id) override;

  hparams::Grid grid_;
};

}  // namespace volador::search
