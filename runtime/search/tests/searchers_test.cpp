#include <catch2/catch.hpp>

#include <deque>
#include <map>
#include <set>

#include "runtime/hparams/sampling.hpp"
#include "runtime/search/searcher_base.hpp"
#include "runtime/search/searcher_options.hpp"
#include "runtime/search/searcher.hpp"
#include "runtime/hparams/tests/hp.hpp"

using namespace volador;
using volador::hparams::testing::hp;
using namespace volador::search;
using nlohmann::json;

namespace {

config::ExperimentConfig make_config(std::string name, hparams::Space space) {
  config::ExperimentConfig config;
  config.global_batch_size = 32;
  space["global_batch_size"] = hp(hparams::ConstParam{32});
  config.hyperparameters = std::move(space);
  config.searcher.name = std::move(name);
  config.searcher.metric = "loss";
  config.searcher.max_length = {config::LengthUnit::batches, 500};
  return config;
}

std::unique_ptr<Searcher> build(const config::ExperimentConfig& config, std::uint32_t seed = 7) {
  auto searcher = make_searcher(config, seed);
  REQUIRE(searcher.has_value());
  return std::move(*searcher);
}

const hparams::Space kManualGrid{{"aparam", hp(hparams::IntParam{0, 2, 3})},
                                 {"bparam", hp(hparams::CategoricalParam{{10, 20}})},
                                 {"cparam", hp(hparams::ConstParam{"c"})}};
const hparams::Space kRandomSpace{{"x", hp(hparams::DoubleParam{0, 1, {}})}, {"n", hp(hparams::IntParam{1, 8, {}})}};
// Every kind of hyperparameter, nested too; the Driver's metric is x.
const hparams::Space kEveryType{
    {"x", hp(hparams::DoubleParam{0, 1, {}})},
    {"n", hp(hparams::IntParam{1, 8, {}})},
    {"opt", hp(hparams::Space{{"lr", hp(hparams::LogParam{10, -4, -1, {}})},
                              {"kind", hp(hparams::CategoricalParam{{"sgd", "adam", 3}})}})},
    {"act", hp(hparams::ConstParam{"relu"})}};

// A config of `name` over kEveryType with `extra` keys.
config::ExperimentConfig every_type_config(std::string name, std::uint32_t max_trials, std::uint32_t cap,
                                           json extra = json::object()) {
  auto config = make_config(std::move(name), kEveryType);
  config.searcher.max_trials = max_trials;
  config.searcher.max_concurrent_trials = cap;
  config.searcher.extra = std::move(extra);
  return config;
}

// A tiny stand-in for the searcher actor: acts on operations in FIFO order and
// feeds the resulting events back. Trials listed in `exits` end early instead
// of validating. A value type, so a copy can continue a run independently.
struct Driver {
  std::deque<Operation> pending;
  std::vector<Operation> log;
  std::map<RequestId, ExitReason> exits;
  std::map<RequestId, json> hparams;
  std::uint64_t alive = 0, max_alive = 0, shutdowns = 0;
  std::vector<double> progress;

  void take(Operations ops) {
    for (auto& op : ops) {
      log.push_back(op);
      pending.push_back(std::move(op));
    }
  }
  void start(Searcher& s) { take(s.initial_operations()); }
  double metric(RequestId id) const { return hparams.at(id).value("x", static_cast<double>(id)); }

  bool step(Searcher& s) {
    if (pending.empty()) return false;
    const Operation op = pending.front();
    pending.pop_front();
    std::visit([&](const auto& o) { act(s, o); }, op);
    progress.push_back(s.progress());
    return true;
  }
  void run(Searcher& s) {
    while (step(s)) {
    }
  }

  void act(Searcher& s, const CreateTrial& c) {
    max_alive = std::max(max_alive, ++alive);
    hparams[c.request_id] = c.hparams;
    take(s.on_trial_created(c.request_id));
  }
  void act(Searcher& s, const ValidateAfter& v) {
    if (auto exit = exits.find(v.request_id); exit != exits.end()) {
      --alive;
      take(s.on_trial_exited_early(v.request_id, exit->second));
    } else {
      take(s.on_validation_completed(v.request_id, metric(v.request_id), v.batches));
    }
  }
  void act(Searcher& s, const CloseTrial& c) {
    --alive;
    take(s.on_trial_closed(c.request_id));
  }
  void act(Searcher&, const Shutdown&) { ++shutdowns; }

  template <class Op>
  std::vector<Op> all() const {
    std::vector<Op> out;
    for (const auto& op : log)
      if (const auto* o = std::get_if<Op>(&op)) out.push_back(*o);
    return out;
  }
};

Driver run_all(Searcher& s, std::map<RequestId, ExitReason> exits = {}) {
  Driver d;
  d.exits = std::move(exits);
  d.start(s);
  d.run(s);
  return d;
}

std::vector<RequestId> created_ids(const Driver& d) {
  std::vector<RequestId> ids;
  for (const auto& c : d.all<CreateTrial>()) ids.push_back(c.request_id);
  return ids;
}

std::vector<RequestId> iota_ids(RequestId n) {
  std::vector<RequestId> ids;
  for (RequestId i = 1; i <= n; ++i) ids.push_back(i);
  return ids;
}

void check_finished_cleanly(const Driver& d, bool failure = false) {
  CHECK(d.shutdowns == 1);
  CHECK(d.alive == 0);
  REQUIRE_FALSE(d.log.empty());
  CHECK(d.log.back() == Operation{Shutdown{failure}});
  CHECK(d.progress.back() == 1.0);
  CHECK(std::is_sorted(d.progress.begin(), d.progress.end()));
}

// Runs `steps` events, saves, restores into a fresh searcher, and checks both
// continue with identical operations.
void check_restore_at(const config::ExperimentConfig& config, std::size_t steps,
                      const std::map<RequestId, ExitReason>& exits = {}) {
  auto original = build(config);
  Driver d;
  d.exits = exits;
  d.start(*original);
  for (std::size_t i = 0; i < steps && d.step(*original); ++i) {
  }
  const std::string saved = original->save_state().dump();
  auto restored = build(config);
  REQUIRE(restored->load_state(json::parse(saved)).has_value());
  CHECK(restored->save_state() == original->save_state());
  CHECK(restored->progress() == original->progress());
  Driver copy = d;
  d.run(*original);
  copy.run(*restored);
  CHECK(copy.log == d.log);
  CHECK(copy.shutdowns == 1);
}

}  // namespace

TEST_CASE("single: one trial with the constants, trained to max_length, closed, then shutdown") {
  auto config = make_config("single", {{"lr", hp(hparams::ConstParam{0.1})}});
  auto searcher = build(config, 7);
  CHECK(searcher->progress() == 0.0);
  const Driver d = run_all(*searcher);
  const json hparams{{"global_batch_size", 32}, {"lr", 0.1}};
  const std::vector<Operation> expected{CreateTrial{1, hparams, hparams::trial_seed(7, 1)}, ValidateAfter{1, 500},
                                        CloseTrial{1}, Shutdown{false}};
  CHECK(d.log == expected);
  check_finished_cleanly(d);
}

TEST_CASE("single refuses searchable hyperparameters") {
  const auto result = make_searcher(make_config("single", kRandomSpace), 1);
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().code == ErrorCode::invalid_argument);
}

TEST_CASE("single: a trial that errors ends the search as a failure") {
  auto searcher = build(make_config("single", {}));
  const Driver d = run_all(*searcher, {{1, ExitReason::errored}});
  CHECK(d.all<CloseTrial>().empty());
  check_finished_cleanly(d, true);
}

TEST_CASE("grid: one trial per point of the manual's grid, all at once with no cap") {
  auto config = make_config("grid", kManualGrid);
  config.searcher.max_concurrent_trials = 0;
  auto searcher = build(config);
  const Driver d = run_all(*searcher);
  const auto creates = d.all<CreateTrial>();
  REQUIRE(creates.size() == 6);
  const auto points = hparams::grid(config.hyperparameters);
  for (std::size_t i = 0; i < creates.size(); ++i) {
    CHECK(creates[i].request_id == i + 1);
    CHECK(creates[i].hparams == points[i]);
  }
  CHECK(creates[1].hparams == json{{"aparam", 0}, {"bparam", 20}, {"cparam", "c"}, {"global_batch_size", 32}});
  CHECK(d.max_alive == 6);
  CHECK(d.all<CloseTrial>().size() == 6);
  check_finished_cleanly(d);
}

TEST_CASE("grid: max_concurrent_trials caps the trials alive at a time") {
  auto config = make_config("grid", kManualGrid);
  config.searcher.max_concurrent_trials = 2;
  auto searcher = build(config);
  CHECK(searcher->initial_operations().size() == 2);
  const Driver d = run_all(*build(config));
  CHECK(d.max_alive == 2);
  CHECK(created_ids(d) == iota_ids(6));
  check_finished_cleanly(d);
}

TEST_CASE("grid: an early exit counts as done, the search still covers every point") {
  auto config = make_config("grid", kManualGrid);
  config.searcher.max_concurrent_trials = 3;
  auto searcher = build(config);
  const Driver d = run_all(*searcher, {{2, ExitReason::errored}, {4, ExitReason::invalid_hparams}});
  CHECK(created_ids(d) == iota_ids(6));
  CHECK(d.all<CloseTrial>().size() == 4);
  check_finished_cleanly(d);
}

TEST_CASE("grid needs a count on every range and a bounded grid") {
  const auto missing = make_searcher(make_config("grid", {{"lr", hp(hparams::DoubleParam{0, 1, {}})}}), 1);
  REQUIRE_FALSE(missing.has_value());
  CHECK_THAT(missing.error().message, Catch::Matchers::Contains("lr"));
  hparams::Space huge;
  for (int i = 0; i < 8; ++i) huge["p" + std::to_string(i)] = hp(hparams::IntParam{0, 1 << 30, 1u << 30});
  CHECK_FALSE(make_searcher(make_config("grid", huge), 1).has_value());
}

TEST_CASE("random: max_trials sampled trials, ids in creation order, cap respected") {
  auto config = make_config("random", kRandomSpace);
  config.searcher.max_trials = 10;
  config.searcher.max_concurrent_trials = 3;
  auto searcher = build(config);
  const Driver d = run_all(*searcher);
  CHECK(created_ids(d) == iota_ids(10));
  CHECK(d.max_alive == 3);
  std::set<std::uint32_t> seeds;
  for (const auto& c : d.all<CreateTrial>()) {
    CHECK(c.hparams["global_batch_size"] == 32);
    CHECK(c.hparams["x"].get<double>() >= 0.0);
    CHECK(c.hparams["x"].get<double>() < 1.0);
    CHECK((c.hparams["n"].get<int>() >= 1 && c.hparams["n"].get<int>() <= 8));
    seeds.insert(c.seed);
  }
  CHECK(seeds.size() == 10);
  for (const auto& v : d.all<ValidateAfter>()) CHECK(v.batches == 500);
  check_finished_cleanly(d);
}

TEST_CASE("random: no cap creates every trial at once") {
  auto config = make_config("random", kRandomSpace);
  config.searcher.max_trials = 5;
  config.searcher.max_concurrent_trials = 0;
  auto searcher = build(config);
  CHECK(searcher->initial_operations().size() == 5);
}

TEST_CASE("random: the experiment seed decides the samples") {
  auto config = make_config("random", kRandomSpace);
  config.searcher.max_trials = 4;
  auto a = build(config, 11), b = build(config, 11), c = build(config, 12);
  const auto ops_a = run_all(*a).log;
  CHECK(ops_a == run_all(*b).log);
  CHECK(ops_a != run_all(*c).log);
}

TEST_CASE("random: errored trials count as done (Determined semantics)") {
  auto config = make_config("random", kRandomSpace);
  config.searcher.max_trials = 6;
  config.searcher.max_concurrent_trials = 2;
  auto searcher = build(config);
  const Driver d = run_all(*searcher, {{2, ExitReason::errored}, {5, ExitReason::user_canceled}});
  CHECK(created_ids(d) == iota_ids(6));
  CHECK(d.all<CloseTrial>().size() == 4);
  CHECK(d.max_alive == 2);
  check_finished_cleanly(d);
}

TEST_CASE("random: when every trial errors the shutdown reports failure") {
  auto config = make_config("random", kRandomSpace);
  config.searcher.max_trials = 3;
  auto searcher = build(config);
  const Driver d =
      run_all(*searcher, {{1, ExitReason::errored}, {2, ExitReason::errored}, {3, ExitReason::errored}});
  check_finished_cleanly(d, true);
}

TEST_CASE("random: a trial with invalid hyperparameters is replaced by a fresh sample") {
  auto config = make_config("random", kRandomSpace);
  config.searcher.max_trials = 4;
  config.searcher.max_concurrent_trials = 2;
  auto searcher = build(config);
  const Driver d = run_all(*searcher, {{3, ExitReason::invalid_hparams}});
  CHECK(created_ids(d) == iota_ids(5));
  CHECK(d.all<CloseTrial>().size() == 4);
  check_finished_cleanly(d);
}

TEST_CASE("Save and restore at any point continues with identical operations") {
  auto grid_config = make_config("grid", kManualGrid);
  grid_config.searcher.max_concurrent_trials = 2;
  auto random_config = make_config("random", kRandomSpace);
  random_config.searcher.max_trials = 7;
  random_config.searcher.max_concurrent_trials = 3;
  const std::map<RequestId, ExitReason> exits{{2, ExitReason::errored}, {4, ExitReason::invalid_hparams}};
  for (std::size_t steps : {0, 1, 2, 3, 5, 8, 13, 21, 100}) {
    INFO("steps before saving: " << steps);
    check_restore_at(make_config("single", {}), steps);
    check_restore_at(grid_config, steps);
    check_restore_at(grid_config, steps, exits);
    check_restore_at(random_config, steps);
    check_restore_at(random_config, steps, exits);
  }
}

TEST_CASE("Every searcher saves and restores at any point and continues identically", "[search][state]") {
  auto asha = every_type_config("adaptive_asha", 24, 4);
  asha.searcher.divisor = 2;
  const std::vector<config::ExperimentConfig> configs{
      every_type_config("tpe", 14, 3, {{"n_startup_trials", 4}}),
      every_type_config("bayesian", 10, 2, {{"n_initial_points", 3}, {"n_candidates", 40}}),
      asha,
      every_type_config("random", 12, 3, {{"early_stopping", {{"min_trials", 1}, {"start_step", 1}, {"num_steps", 4}}}}),
      every_type_config("tpe", 12, 2, {{"goal", 0.05}, {"early_stopping", "median"}, {"n_startup_trials", 3}}),
      every_type_config("tpe", 14, 3, {{"n_startup_trials", 4}, {"multivariate", true}, {"bandwidth_factor", 0.5}}),
  };
  const std::map<RequestId, ExitReason> exits{{2, ExitReason::errored}, {5, ExitReason::invalid_hparams}};
  for (const auto& config : configs) {
    for (std::size_t steps : {0, 1, 3, 8, 21, 55, 144}) {
      INFO(config.searcher.name << " " << config.searcher.extra.dump() << ", steps before saving: " << steps);
      check_restore_at(config, steps);
      check_restore_at(config, steps, exits);
    }
  }
}

TEST_CASE("tpe and bayesian suggest every kind of hyperparameter within its range", "[search]") {
  for (const char* name : {"tpe", "bayesian"}) {
    auto config = every_type_config(name, 16, 2, {{"n_startup_trials", 3}, {"n_initial_points", 3}, {"n_candidates", 30}});
    auto searcher = build(config);
    const Driver d = run_all(*searcher, {{4, ExitReason::invalid_hparams}});
    CHECK(created_ids(d) == iota_ids(17));
    for (const auto& c : d.all<CreateTrial>()) {
      INFO(name << ": " << c.hparams.dump());
      CHECK((c.hparams["x"].get<double>() >= 0 && c.hparams["x"].get<double>() <= 1));
      CHECK(c.hparams["n"].is_number_integer());
      CHECK((c.hparams["n"].get<int>() >= 1 && c.hparams["n"].get<int>() <= 8));
      const double lr = c.hparams["opt"]["lr"].get<double>();
      CHECK((lr >= 1e-4 * (1 - 1e-9) && lr <= 1e-1 * (1 + 1e-9)));
      const json kind = c.hparams["opt"]["kind"];
      CHECK((kind == "sgd" || kind == "adam" || kind == 3));
      CHECK(c.hparams["act"] == "relu");
      CHECK(c.hparams["global_batch_size"] == 32);
    }
    check_finished_cleanly(d);
  }
}

TEST_CASE("A goal ends the search: open trials are closed as stopped early, no more are created", "[search]") {
  for (bool smaller : {true, false}) {
    auto config = every_type_config("random", 50, 3, {{"goal", smaller ? 0.1 : 0.9}});
    config.searcher.smaller_is_better = smaller;
    auto searcher = build(config);
    const Driver d = run_all(*searcher);
    const auto creates = d.all<CreateTrial>();
    CHECK(creates.size() < 50);
    const auto reached = std::ranges::find_if(creates, [&](const CreateTrial& c) {
      const double x = c.hparams["x"].get<double>();
      return smaller ? x <= 0.1 : x >= 0.9;
    });
    REQUIRE(reached != creates.end());
    bool stopped_reacher = false;
    for (const auto& c : d.all<CloseTrial>()) {
      if (c.request_id == reached->request_id) stopped_reacher = c.stopped_early;
      if (c.request_id > reached->request_id) CHECK(c.stopped_early);
    }
    CHECK(stopped_reacher);
    CHECK(d.log.back() == Operation{Shutdown{false}});
    CHECK(d.shutdowns == 1);
    CHECK(d.alive == 0);
  }
}

TEST_CASE("max_failed_trials gives up: open trials closed, Shutdown reports failure", "[search]") {
  auto config = every_type_config("random", 20, 3, {{"max_failed_trials", 2}});
  auto searcher = build(config);
  const Driver d = run_all(*searcher, {{2, ExitReason::errored}, {4, ExitReason::errored}, {6, ExitReason::errored}});
  CHECK(d.all<CreateTrial>().size() < 20);
  CHECK(d.log.back() == Operation{Shutdown{true}});
  CHECK(d.shutdowns == 1);
  CHECK(d.alive == 0);
  // Canceled trials and invalid hyperparameters are not failures.
  auto lenient = build(config);
  const Driver e = run_all(*lenient, {{1, ExitReason::user_canceled}, {2, ExitReason::invalid_hparams},
                                      {3, ExitReason::errored}});
  CHECK(e.log.back() == Operation{Shutdown{false}});
  CHECK(e.all<CreateTrial>().size() == 21);
}

TEST_CASE("Median early stopping: trials validate on the ladder and stop when worse than the median", "[search]") {
  // One trial at a time, metric x at every step: at 200 and 300 batches trial k stops when x_k is
  // above the median x of the earlier trials that reached that length (at least 2 of them).
  auto config = every_type_config("random", 12, 1,
                                  {{"early_stopping", {{"min_trials", 2}, {"start_step", 2}, {"num_steps", 4}}}});
  config.searcher.max_length = {config::LengthUnit::batches, 400};
  auto searcher = build(config);
  const Driver d = run_all(*searcher);
  std::map<RequestId, std::vector<std::uint64_t>> targets;
  for (const auto& v : d.all<ValidateAfter>()) targets[v.request_id].push_back(v.batches);
  std::vector<std::pair<double, std::uint64_t>> earlier;  // x, batches reached
  std::size_t stops = 0;
  for (const auto& c : d.all<CreateTrial>()) {
    const double x = c.hparams["x"].get<double>();
    std::vector<std::uint64_t> expected{100};
    for (std::uint64_t step : {200, 300, 400}) {
      expected.push_back(step);
      std::vector<double> others;
      for (const auto& [ox, reached] : earlier)
        if (reached >= step) others.push_back(ox);
      std::ranges::sort(others);
      const std::size_t n = others.size();
      if (step < 400 && n >= 2 && x > (n % 2 ? others[n / 2] : (others[n / 2 - 1] + others[n / 2]) / 2)) break;
    }
    INFO("trial " << c.request_id << " x " << x);
    CHECK(targets[c.request_id] == expected);
    stops += expected.back() < 400;
    earlier.emplace_back(x, expected.back());
  }
  CHECK(stops >= 3);
  std::size_t stopped_closes = 0;
  for (const auto& c : d.all<CloseTrial>()) stopped_closes += c.stopped_early;
  CHECK(stopped_closes == stops);
  check_finished_cleanly(d);
}

TEST_CASE("Searcher options: defaults and bad values", "[search]") {
  config::SearcherConfig s;
  s.name = "tpe";
  auto defaults = read_searcher_options(s);
  REQUIRE(defaults.has_value());
  CHECK(defaults->tpe.n_startup_trials == 10);
  CHECK(defaults->tpe.gamma == 0.1);
  CHECK(defaults->tpe.n_ei_candidates == 24);
  CHECK_FALSE(defaults->tpe.multivariate);
  CHECK(defaults->tpe.bandwidth_factor == 1.0);
  CHECK_FALSE(defaults->early_stopping.has_value());
  CHECK_FALSE(defaults->limits.goal.has_value());
  s.extra = {{"early_stopping", "median"}, {"goal", -2.5},          {"max_failed_trials", 3},
             {"gamma", 0.25},              {"multivariate", true}, {"bandwidth_factor", 0.7}};
  auto set = read_searcher_options(s);
  REQUIRE(set.has_value());
  CHECK(set->early_stopping->min_trials == 3);
  CHECK(set->early_stopping->start_step == 4);
  CHECK(set->limits.goal == -2.5);
  CHECK(set->limits.max_failed_trials == 3u);
  CHECK(set->tpe.gamma == 0.25);
  CHECK(set->tpe.multivariate);
  CHECK(set->tpe.bandwidth_factor == 0.7);
  for (const json& bad : {json{{"gamma", 0}}, json{{"gamma", "x"}}, json{{"n_startup_trials", 0}},
                          json{{"max_failed_trials", -1}}, json{{"early_stopping", "hyperband"}},
                          json{{"early_stopping", {{"rule", 3}}}}, json{{"early_stopping", {{"min_trials", 0}}}},
                          json{{"goal", "high"}}, json{{"multivariate", 1}}, json{{"bandwidth_factor", 0}},
                          json{{"bandwidth_factor", 1.5}}}) {
    s.extra = bad;
    INFO(bad.dump());
    const auto result = read_searcher_options(s);
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().code == ErrorCode::invalid_argument);
    CHECK_THAT(result.error().message, Catch::Matchers::StartsWith("searcher."));
  }
  auto asha = make_config("adaptive_asha", kRandomSpace);
  asha.searcher.max_trials = 4;
  asha.searcher.extra = {{"early_stopping", "median"}};
  CHECK_FALSE(make_searcher(asha, 1).has_value());
}

TEST_CASE("Restoring refuses another searcher's or broken state and keeps the current one") {
  auto config = make_config("random", kRandomSpace);
  config.searcher.max_trials = 3;
  auto searcher = build(config);
  const json before = searcher->save_state();
  const json grid_state = build(make_config("grid", kManualGrid))->save_state();
  CHECK(searcher->load_state(grid_state).error().code == ErrorCode::corruption);
  CHECK_FALSE(searcher->load_state(json{{"kind", "random"}}).has_value());
  json bad_rng = before;
  bad_rng["method"]["suggester"]["rng"] = "not numbers";
  CHECK_FALSE(searcher->load_state(bad_rng).has_value());
  json bad_book = before;
  bad_book["book"]["alive"] = {9};
  CHECK_FALSE(searcher->load_state(bad_book).has_value());
  CHECK(searcher->save_state() == before);
}

TEST_CASE("The best trial respects smaller_is_better") {
  for (bool smaller : {true, false}) {
    auto config = make_config("random", kRandomSpace);
    config.searcher.max_trials = 8;
    config.searcher.smaller_is_better = smaller;
    auto searcher = build(config);
    const Driver d = run_all(*searcher);
    const auto* fixed = dynamic_cast<const SearcherBase*>(searcher.get());
    REQUIRE(fixed != nullptr);
    REQUIRE(fixed->best().has_value());
    double best = smaller ? 2.0 : -1.0;
    for (const auto& [id, hp] : d.hparams) best = smaller ? std::min(best, hp["x"].get<double>()) : std::max(best, hp["x"].get<double>());
    CHECK(fixed->best()->metric == best);
    CHECK(d.hparams.at(fixed->best()->id)["x"].get<double>() == best);
  }
}

TEST_CASE("Events for unknown or finished trials and early validations change nothing") {
  auto config = make_config("grid", kManualGrid);
  config.searcher.max_concurrent_trials = 1;
  auto searcher = build(config);
  CHECK(searcher->initial_operations().size() == 1);
  CHECK(searcher->on_trial_created(9).empty());
  CHECK(searcher->on_validation_completed(9, 1.0, 500).empty());
  CHECK(searcher->on_trial_closed(9).empty());
  CHECK(searcher->on_trial_exited_early(9, ExitReason::errored).empty());
  CHECK(searcher->on_trial_created(1) == Operations{ValidateAfter{1, 500}});
  CHECK(searcher->on_validation_completed(1, 1.0, 100).empty());
  CHECK(searcher->on_validation_completed(1, 1.0, 500) == Operations{CloseTrial{1}});
  const auto next = searcher->on_trial_closed(1);
  REQUIRE(next.size() == 1);
  CHECK(std::get<CreateTrial>(next[0]).request_id == 2);
  CHECK(searcher->on_trial_closed(1).empty());
  CHECK(searcher->progress() == Approx(1.0 / 6));
}

TEST_CASE("max_length in records or epochs becomes batches") {
  auto config = make_config("single", {});
  config.searcher.max_length = {config::LengthUnit::records, 1000};
  CHECK(build(config)->initial_operations().size() == 1);
  auto searcher = build(config);
  searcher->initial_operations();
  CHECK(searcher->on_trial_created(1) == Operations{ValidateAfter{1, 31}});
  config.searcher.max_length = {config::LengthUnit::epochs, 2};
  config.records_per_epoch = 100;
  searcher = build(config);
  searcher->initial_operations();
  CHECK(searcher->on_trial_created(1) == Operations{ValidateAfter{1, 6}});
}

TEST_CASE("make_searcher rejects unknown searchers and bad inputs") {
  const auto unknown = make_searcher(make_config("hyperband", {}), 1);
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().code == ErrorCode::invalid_argument);
  CHECK_THAT(unknown.error().message, Catch::Matchers::Contains("hyperband"));
  CHECK_FALSE(make_searcher(make_config("random", kRandomSpace), 1).has_value());  // max_trials 0
  auto epochs = make_config("single", {});
  epochs.searcher.max_length = {config::LengthUnit::epochs, 1};
  CHECK_FALSE(make_searcher(epochs, 1).has_value());  // no records_per_epoch
  auto zero_batch = make_config("single", {});
  zero_batch.global_batch_size = 0;  // a command's lengths in batches need none; in records they do
  CHECK(make_searcher(zero_batch, 1).has_value());
  zero_batch.searcher.max_length = {config::LengthUnit::records, 100};
  CHECK_FALSE(make_searcher(zero_batch, 1).has_value());
  auto zero_length = make_config("single", {});
  zero_length.searcher.max_length.value = 0;
  CHECK_FALSE(make_searcher(zero_length, 1).has_value());
}
