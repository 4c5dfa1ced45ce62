#pragma once
// `single`: one trial with the constant hyperparameters, trained to max_length.

#include "runtime/hparams/space.hpp"
#include "runtime/search/fixed_length_searcher.hpp"

namespace volador::search {

class SingleSearcher final : public FixedLengthSearcher {
 public:
  // Precondition: hparams::is_constant(space).
  SingleSearcher(const FixedLengthSettings& settings, const hparams::Space& space);

 private:
  nlohmann::json next_hparams(RequestId id) override;

  nlohmann::json constants_;
};

}  // namespace volador::search
