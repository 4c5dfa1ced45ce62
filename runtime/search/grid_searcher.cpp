#include "runtime/search/grid_searcher.hpp"

#include <utility>

namespace volador::search {

GridSearcher::GridSearcher(const FixedLengthSettings& settings, hparams::Grid grid)
    : FixedLengthSearcher("grid", grid.size(), settings), grid_(std::move(grid)) {}

// Trial n gets grid point n-1: ids are handed out in order, once each.
nlohmann::json GridSearcher::next_hparams(RequestId id) { return grid_.point(id - 1); }

}  // namespace volador::search
