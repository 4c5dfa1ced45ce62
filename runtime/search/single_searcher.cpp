#include "runtime/search/single_searcher.hpp"

#include "runtime/hparams/sampling.hpp"

namespace volador::search {

// A constant space is a grid of exactly one point.
SingleSearcher::SingleSearcher(const FixedLengthSettings& settings, const hparams::Space& space)
    : FixedLengthSearcher("single", 1, settings), constants_(hparams::Grid(space).point(0)) {}

nlohmann::json SingleSearcher::next_hparams(RequestId) { return constants_; }

}  // namespace volador::search
