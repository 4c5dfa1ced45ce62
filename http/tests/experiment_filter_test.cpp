#include <catch2/catch.hpp>

#include "http/experiment_filter.hpp"

using namespace volador;
using namespace volador::http;

namespace {

wire::ExperimentSummary experiment(std::uint64_t id, std::string name, RunState state, std::optional<double> best = {},
                                   std::string owner = "admin", bool archived = false) {
  wire::ExperimentSummary e;
  e.owner = std::move(owner);
  e.archived = archived;
  e.id = id;
  e.name = std::move(name);
  e.state = state;
  if (best) e.best = wire::BestTrial{*best, id * 10};
  return e;
}

std::vector<std::uint64_t> ids(const ExperimentPage& page) {
  std::vector<std::uint64_t> out;
  for (const auto& e : page.experiments) out.push_back(e.id);
  return out;
}

const std::vector<wire::ExperimentSummary> kAll = {
    experiment(1, "mnist-lr", RunState::completed, 0.3), experiment(2, "MNIST-width", RunState::active, 0.2),
    experiment(3, "cifar", RunState::active, {}, "alice"), experiment(4, "mnist-final", RunState::error, 0.5),
    experiment(5, "old", RunState::completed, 0.9, "alice", true)};

ExperimentPage labelled(const std::string& label) {
  auto all = kAll;
  all[1].labels = {"mnist", "baseline"};
  all[3].labels = {"mnist"};
  return select_experiments(all, {.label = label});
}

}  // namespace

TEST_CASE("Experiments come newest first by default") {
  auto page = select_experiments(kAll, {});
  CHECK(ids(page) == std::vector<std::uint64_t>{4, 3, 2, 1});
  CHECK(page.total == 4);
}

TEST_CASE("The filter keeps one state and names containing the text in any case") {
  ExperimentFilter active{.state = RunState::active};
  CHECK(ids(select_experiments(kAll, active)) == std::vector<std::uint64_t>{3, 2});
  ExperimentFilter mnist{.text = "Mnist"};
  CHECK(ids(select_experiments(kAll, mnist)) == std::vector<std::uint64_t>{4, 2, 1});
  ExperimentFilter by_id{.text = "3"};
  CHECK(ids(select_experiments(kAll, by_id)) == std::vector<std::uint64_t>{3});
}

TEST_CASE("Archived experiments are left out unless asked for and owners filter") {
  ExperimentFilter archived{.archived = true};
  CHECK(ids(select_experiments(kAll, archived)) == std::vector<std::uint64_t>{5});
  ExperimentFilter any{.archived = std::nullopt};
  CHECK(ids(select_experiments(kAll, any)) == std::vector<std::uint64_t>{5, 4, 3, 2, 1});
  ExperimentFilter alice{.owner = "alice", .archived = std::nullopt};
  CHECK(ids(select_experiments(kAll, alice)) == std::vector<std::uint64_t>{5, 3});
}

TEST_CASE("Pages do not overlap and the total counts every match") {
  ExperimentFilter first{.sort = "id", .offset = 0, .limit = 3};
  ExperimentFilter second{.sort = "id", .offset = 3, .limit = 3};
  ExperimentFilter beyond{.sort = "id", .offset = 10, .limit = 3};
  CHECK(ids(select_experiments(kAll, first)) == std::vector<std::uint64_t>{1, 2, 3});
  CHECK(ids(select_experiments(kAll, second)) == std::vector<std::uint64_t>{4});
  auto empty = select_experiments(kAll, beyond);
  CHECK(empty.experiments.empty());
  CHECK(empty.total == 4);
}

TEST_CASE("Sorting by best metric puts experiments without one last") {
  ExperimentFilter best{.sort = "best"};
  CHECK(ids(select_experiments(kAll, best)) == std::vector<std::uint64_t>{2, 1, 4, 3});
  ExperimentFilter name{.sort = "name"};
  CHECK(ids(select_experiments(kAll, name)) == std::vector<std::uint64_t>{3, 4, 1, 2});
}

TEST_CASE("The label filter keeps experiments that carry the label") {
  CHECK(ids(labelled("mnist")) == std::vector<std::uint64_t>{4, 2});
  CHECK(ids(labelled("baseline")) == std::vector<std::uint64_t>{2});
  CHECK(ids(labelled("none")).empty());
}

TEST_CASE("The workspace and project filters keep experiments of exactly that workspace and project") {
  auto all = kAll;
  all[0].workspace = "vision";
  all[0].project = "mnist";
  all[1].workspace = "vision";
  all[1].project = "digits";
  all[2].workspace = "speech";
  CHECK(ids(select_experiments(all, {.workspace = "vision"})) == std::vector<std::uint64_t>{2, 1});
  CHECK(ids(select_experiments(all, {.workspace = "vision", .project = "mnist"})) == std::vector<std::uint64_t>{1});
  CHECK(ids(select_experiments(all, {.project = "digits"})) == std::vector<std::uint64_t>{2});
  CHECK(ids(select_experiments(all, {.workspace = "visio"})).empty());
}
