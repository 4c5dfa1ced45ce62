#pragma once
// The experiment list as the API serves it: filtered, sorted and cut to one
// page. Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/states.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::http {

struct ExperimentFilter {
  std::optional<RunState> state;
  std::optional<std::string> owner;
  std::optional<std::string> label;      // one of the experiment's labels
  std::optional<std::string> workspace;  // the config's workspace, exactly
  std::optional<std::string> project;    // the config's project, exactly
  std::optional<bool> archived = false;  // nullopt: archived or not
  std::string text;  // a case-insensitive part of the name, or the id; empty: any
  std::string sort = "-id";  // id, name, state, progress, created, best; a leading '-' reverses
  std::uint64_t offset = 0;
  std::uint64_t limit = 50;
};

struct ExperimentPage {
  std::vector<wire::ExperimentSummary> experiments;
  std::uint64_t total = 0;  // matching the filter, before paging
};

// The summaries that match `filter`, in its order, from its offset; `sort`
// must be one it names (the route checks).
ExperimentPage select_experiments(std::vector<wire::ExperimentSummary> all, const ExperimentFilter& filter);

// The sort keys select_experiments knows, with and without '-'.
const std::vector<std::string>& experiment_sort_keys();

}  // namespace volador::http
