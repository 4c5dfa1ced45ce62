#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <vector>

#include "runtime/search/pbt.hpp"
#include "runtime/search/simulation.hpp"
#include "runtime/hparams/tests/hp.hpp"

using namespace volador;
using volador::hparams::testing::hp;
using namespace volador::search;
using nlohmann::json;

namespace {

// x in [0, 1], n in [1, 8], a nested log rate and categorical, a constant.
const hparams::Space kSpace{
    {"x", hp(hparams::DoubleParam{0, 1, {}})},
    {"n", hp(hparams::IntParam{1, 8, {}})},
    {"opt", hp(hparams::Space{{"lr", hp(hparams::LogParam{10, -4, -1, {}})},
                              {"kind", hp(hparams::CategoricalParam{{"sgd", "adam"}})}})},
    {"act", hp(hparams::ConstParam{"relu"})},
    {"global_batch_size", hp(hparams::ConstParam{32})}};

config::ExperimentConfig pbt_config(std::uint32_t population, std::uint32_t rounds, double truncate,
                                    std::uint64_t length = 10) {
  config::ExperimentConfig config;
  config.global_batch_size = 32;
  config.hyperparameters = kSpace;
  config.searcher.name = "pbt";
  config.searcher.metric = "loss";
  config.searcher.pbt = {.population_size = population,
                         .num_rounds = rounds,
                         .length_per_round = {config::LengthUnit::batches, length},
                         .truncate_fraction = truncate,
                         .resample_probability = 0.2,
                         .perturb_factor = 0.2};
  config.searcher.max_length = {config::LengthUnit::batches, length * rounds};
  return config;
}

std::unique_ptr<Searcher> build(const config::ExperimentConfig& config, std::uint32_t seed = 7) {
  auto searcher = make_searcher(config, seed);
  REQUIRE(searcher.has_value());
  return std::move(*searcher);
}

template <class Op>
std::vector<Op> all(const Operations& ops) {
  std::vector<Op> out;
  for (const auto& op : ops)
    if (const auto* o = std::get_if<Op>(&op)) out.push_back(*o);
  return out;
}

// Creates the population and answers each CreateTrial with on_trial_created; their hparams by id.
std::map<RequestId, json> start(Searcher& s) {
  std::map<RequestId, json> hparams;
  for (const auto& c : all<CreateTrial>(s.initial_operations())) {
    hparams[c.request_id] = c.hparams;
    CHECK_FALSE(c.warm_start_from.has_value());
    CHECK(s.on_trial_created(c.request_id) == Operations{ValidateAfter{c.request_id, 10}});
  }
  return hparams;
}

// Acts on operations in FIFO order (as the experiment actor does), each trial
// reporting loss(id, batches); a value type, so a copy goes on by itself.
struct Driver {
  std::deque<Operation> pending;
  std::vector<Operation> log;
  std::map<RequestId, ExitReason> exits;  // these end early at their first ValidateAfter
  std::uint64_t shutdowns = 0;
  std::vector<double> progress;

  void take(Operations ops) {
    for (auto& op : ops) {
      log.push_back(op);
      pending.push_back(std::move(op));
    }
  }
  static double loss(RequestId id, std::uint64_t batches) { return std::fmod(id * 0.37 + batches * 0.011, 1.0); }
  bool step(Searcher& s) {
    if (pending.empty()) return false;
    const Operation op = pending.front();
    pending.pop_front();
    std::visit(
        [&](const auto& o) {
          using Op = std::decay_t<decltype(o)>;
          if constexpr (std::is_same_v<Op, CreateTrial>) take(s.on_trial_created(o.request_id));
          if constexpr (std::is_same_v<Op, ValidateAfter>) {
            if (auto exit = exits.find(o.request_id); exit != exits.end()) take(s.on_trial_exited_early(o.request_id, exit->second));
            else take(s.on_validation_completed(o.request_id, loss(o.request_id, o.batches), o.batches));
          }
          if constexpr (std::is_same_v<Op, CloseTrial>) take(s.on_trial_closed(o.request_id));
          if constexpr (std::is_same_v<Op, Shutdown>) ++shutdowns;
        },
        op);
    progress.push_back(s.progress());
    return true;
  }
  void run(Searcher& s) {
    take(s.initial_operations());
    while (step(s)) {
    }
  }
};

// The children explore() makes of `parent` by scaling alone (64 seeds), and the x, n and lr values among them.
struct Explored {
  std::vector<json> children;
  std::set<double> xs, lrs;
  std::set<std::int64_t> ns;
};
Explored explored(const json& parent, double perturb_factor) {
  Explored out;
  for (std::uint64_t seed = 0; seed < 64; ++seed) {
    hparams::Rng rng(seed);
    const json child = explore(kSpace, parent, {.resample_probability = 0, .perturb_factor = perturb_factor}, rng);
    out.xs.insert(child["x"].get<double>());
    out.ns.insert(child["n"].get<std::int64_t>());
    out.lrs.insert(child["opt"]["lr"].get<double>());
    out.children.push_back(child);
  }
  return out;
}

}  // namespace

TEST_CASE("pbt plan: rounds end at multiples of length_per_round in whole batches, floor(fraction x population) replaced", "[search][pbt]") {
  auto config = pbt_config(10, 3, 0.25);
  config.records_per_epoch = 100;
  config.searcher.pbt.length_per_round = {config::LengthUnit::epochs, 1};  // 3.125 batches of 32
  const auto plan = plan_pbt(config);
  REQUIRE(plan.has_value());
  CHECK(plan->round_ends == std::vector<std::uint64_t>{3, 6, 9});  // 100, 200, 300 records: partial batches dropped
  CHECK(plan->replaced == 2);
  CHECK(plan->population_size == 10);

  auto records = pbt_config(10, 3, 0.25);
  records.searcher.pbt.length_per_round = {config::LengthUnit::records, 70};  // 2.19 batches
  CHECK(plan_pbt(records)->round_ends == std::vector<std::uint64_t>{2, 4, 6});  // 70, 140, 210 records

  auto short_rounds = pbt_config(10, 3, 0.25);
  short_rounds.searcher.pbt.length_per_round = {config::LengthUnit::records, 20};  // under one batch of 32
  CHECK(plan_pbt(short_rounds).error().code == ErrorCode::invalid_argument);
  CHECK(plan_pbt(pbt_config(10, 3, 0.6)).error().code == ErrorCode::invalid_argument);
  CHECK(plan_pbt(pbt_config(3, 3, 0.25)).error().code == ErrorCode::invalid_argument);  // floor(0.75) = 0 replaced
  CHECK(plan_pbt(pbt_config(0, 3, 0.25)).error().code == ErrorCode::invalid_argument);
}

TEST_CASE("pbt: after each round the worst are replaced by explored copies of the best, which start from their checkpoints", "[search][pbt]") {
  auto searcher = build(pbt_config(4, 3, 0.25));
  const auto hparams = start(*searcher);
  CHECK(searcher->progress() == 0.0);
  CHECK(searcher->on_validation_completed(1, 0.4, 10).empty());
  CHECK(searcher->on_validation_completed(2, 0.1, 5).empty());  // before its target: not its round's result
  CHECK(searcher->on_validation_completed(2, 0.1, 10).empty());
  CHECK(searcher->on_validation_completed(3, 0.9, 10).empty());
  CHECK(searcher->progress() == Approx(0.75 / 3));
  const auto round_end = searcher->on_validation_completed(4, 0.5, 10);
  REQUIRE(round_end.size() == 5);
  CHECK(round_end[0] == Operation{CloseTrial{3, true}});  // the worst
  const auto child = std::get<CreateTrial>(round_end[1]);
  CHECK(child.request_id == 5);
  CHECK(child.warm_start_from == std::optional<RequestId>(2));  // the best
  CHECK(child.seed == hparams::trial_seed(7, 5));
  CHECK(child.hparams["act"] == "relu");
  CHECK(child.hparams["global_batch_size"] == 32);
  CHECK(child.hparams != hparams.at(2));
  CHECK(all<ValidateAfter>(round_end) == std::vector<ValidateAfter>{{1, 20}, {2, 20}, {4, 20}});
  CHECK(searcher->on_trial_created(5) == Operations{ValidateAfter{5, 20}});
  CHECK(searcher->on_trial_closed(3).empty());
  CHECK(searcher->progress() == Approx(1.0 / 3));

  // Round 1: larger-is-worse again; trial 5 (the copy) is now the worst and is replaced by a copy of 4.
  CHECK(searcher->on_validation_completed(1, 0.3, 20).empty());
  CHECK(searcher->on_validation_completed(2, 0.2, 20).empty());
  CHECK(searcher->on_validation_completed(4, 0.05, 20).empty());
  const auto second = searcher->on_validation_completed(5, 0.8, 20);
  CHECK(second[0] == Operation{CloseTrial{5, true}});
  CHECK(std::get<CreateTrial>(second[1]).warm_start_from == std::optional<RequestId>(4));
  CHECK(std::get<CreateTrial>(second[1]).request_id == 6);
  CHECK(all<ValidateAfter>(second) == std::vector<ValidateAfter>{{1, 30}, {2, 30}, {4, 30}});
  CHECK(searcher->on_trial_created(6) == Operations{ValidateAfter{6, 30}});

  // The last round: each member is closed (finished) as soon as it reports; the end once all are closed.
  CHECK(searcher->on_validation_completed(1, 0.1, 30) == Operations{CloseTrial{1, false}});
  CHECK(searcher->on_validation_completed(6, 0.1, 30) == Operations{CloseTrial{6, false}});
  CHECK(searcher->on_trial_closed(5).empty());
  for (RequestId id : {1, 6}) CHECK(searcher->on_trial_closed(id).empty());
  CHECK(searcher->on_validation_completed(2, 0.1, 30) == Operations{CloseTrial{2, false}});
  CHECK(searcher->on_validation_completed(4, 0.1, 30) == Operations{CloseTrial{4, false}});
  CHECK(searcher->on_trial_closed(2).empty());
  CHECK(searcher->on_trial_closed(4) == Operations{Shutdown{false}});
  CHECK(searcher->progress() == 1.0);
}

TEST_CASE("pbt: larger-is-better metrics make the largest the best", "[search][pbt]") {
  auto config = pbt_config(4, 2, 0.5);
  config.searcher.smaller_is_better = false;
  auto searcher = build(config);
  start(*searcher);
  for (RequestId id = 1; id <= 3; ++id) CHECK(searcher->on_validation_completed(id, 0.1 * id, 10).empty());
  const auto ops = searcher->on_validation_completed(4, 0.9, 10);
  CHECK(all<CloseTrial>(ops) == std::vector<CloseTrial>{{1, true}, {2, true}});
  std::vector<RequestId> parents;
  for (const auto& c : all<CreateTrial>(ops)) parents.push_back(*c.warm_start_from);
  CHECK(parents == std::vector<RequestId>{4, 3});  // the i-th best parents the i-th copy
}

TEST_CASE("pbt: a member that fails is the worst of its round and stays so until it is replaced", "[search][pbt]") {
  auto searcher = build(pbt_config(4, 4, 0.25));
  start(*searcher);
  CHECK(searcher->on_trial_exited_early(3, ExitReason::errored).empty());
  CHECK(searcher->on_trial_exited_early(1, ExitReason::user_canceled).empty());
  CHECK(searcher->on_validation_completed(2, 0.7, 10).empty());
  const auto first = searcher->on_validation_completed(4, 0.9, 10);
  // Failed 1 and 3 rank last (the older first among equals): 3 is replaced; failed trials get no CloseTrial.
  CHECK(all<CloseTrial>(first).empty());
  REQUIRE(all<CreateTrial>(first).size() == 1);
  CHECK(all<CreateTrial>(first)[0].warm_start_from == std::optional<RequestId>(2));
  CHECK(all<ValidateAfter>(first) == std::vector<ValidateAfter>{{2, 20}, {4, 20}});  // 1 stays, failed
  CHECK(searcher->on_trial_created(5) == Operations{ValidateAfter{5, 20}});
  for (RequestId id : {2, 4}) CHECK(searcher->on_validation_completed(id, 0.5, 20).empty());
  const auto second = searcher->on_validation_completed(5, 0.1, 20);
  CHECK(all<CloseTrial>(second).empty());  // 1 was the worst: replaced now, by a copy of the best, 5
  REQUIRE(all<CreateTrial>(second).size() == 1);
  CHECK(all<CreateTrial>(second)[0].warm_start_from == std::optional<RequestId>(5));
  CHECK(all<ValidateAfter>(second) == std::vector<ValidateAfter>{{2, 30}, {4, 30}, {5, 30}});
}

TEST_CASE("pbt: when a replaced share's parent has failed the best member parents it instead", "[search][pbt]") {
  auto searcher = build(pbt_config(4, 2, 0.5));
  start(*searcher);
  for (RequestId id : {1, 2, 4}) CHECK(searcher->on_trial_exited_early(id, ExitReason::errored).empty());
  const auto ops = searcher->on_validation_completed(3, 0.5, 10);
  std::vector<RequestId> parents;
  for (const auto& c : all<CreateTrial>(ops)) parents.push_back(*c.warm_start_from);
  CHECK(parents == std::vector<RequestId>{3, 3});
}

TEST_CASE("pbt: the search fails when no member is left to train on or copy from", "[search][pbt]") {
  auto searcher = build(pbt_config(2, 3, 0.5));
  start(*searcher);
  CHECK(searcher->on_validation_completed(1, 0.5, 10).empty());
  CHECK(searcher->on_trial_exited_early(2, ExitReason::errored).size() == 2);  // round 0 ends: 2 replaced by a copy of 1
  CHECK(searcher->on_trial_created(3) == Operations{ValidateAfter{3, 20}});
  CHECK(searcher->on_trial_exited_early(1, ExitReason::errored).empty());
  CHECK(searcher->on_trial_exited_early(3, ExitReason::errored) == Operations{Shutdown{true}});
  CHECK(searcher->progress() == 1.0);
}

TEST_CASE("pbt: a master restart at any point (save, load) goes on with identical operations", "[search][pbt]") {
  const auto config = pbt_config(6, 4, 0.34);  // 2 replaced a round
  Driver reference;
  reference.exits = {{3, ExitReason::errored}};
  auto whole = build(config);
  reference.run(*whole);
  CHECK(reference.shutdowns == 1);
  CHECK(std::is_sorted(reference.progress.begin(), reference.progress.end()));
  REQUIRE(reference.progress.back() == 1.0);
  for (std::size_t steps : {0, 3, 9, 17, 30, 44}) {
    CAPTURE(steps);
    auto original = build(config);
    Driver d;
    d.exits = reference.exits;
    d.take(original->initial_operations());
    for (std::size_t i = 0; i < steps && d.step(*original); ++i) {
    }
    auto restored = build(config);
    REQUIRE(restored->load_state(json::parse(original->save_state().dump())).has_value());
    CHECK(restored->save_state() == original->save_state());
    CHECK(restored->progress() == original->progress());
    Driver copy = d;
    while (d.step(*original)) {
    }
    while (copy.step(*restored)) {
    }
    CHECK(copy.log == d.log);
    CHECK(d.log == reference.log);
  }
}

TEST_CASE("pbt: state of another searcher or a broken one is refused and changes nothing", "[search][pbt]") {
  auto searcher = build(pbt_config(4, 3, 0.25));
  start(*searcher);
  const json before = searcher->save_state();
  auto random = pbt_config(4, 3, 0.25);
  random.searcher.name = "random";
  random.searcher.max_trials = 2;
  random.searcher.max_length = {config::LengthUnit::batches, 10};
  CHECK(searcher->load_state(build(random)->save_state()).error().code == ErrorCode::corruption);
  json late = before;
  late["round"] = 3;  // there are rounds 0, 1, 2
  CHECK(searcher->load_state(late).error().code == ErrorCode::corruption);
  json broken = before;
  broken["members"][0][2] = "a loss";
  CHECK(searcher->load_state(broken).error().code == ErrorCode::corruption);
  CHECK(searcher->save_state() == before);
}

TEST_CASE("pbt explore: resample with resample_probability, else scale by 1 +- perturb_factor within bounds", "[search][pbt]") {
  const json parent{{"x", 0.5},  {"n", 5},        {"opt", {{"lr", 1e-3}, {"kind", "sgd"}}},
                    {"act", "relu"}, {"global_batch_size", 32}};
  const auto scaled = explored(parent, 0.25);
  for (const auto& child : scaled.children) {
    CHECK(child["opt"]["kind"] == "sgd");
    CHECK(child["act"] == "relu");
    CHECK(child["global_batch_size"] == 32);
  }
  CHECK(scaled.xs == std::set<double>{0.375, 0.625});
  CHECK(scaled.ns == std::set<std::int64_t>{3, 7});  // floor(3.75), ceil(6.25)
  CHECK(scaled.lrs == std::set<double>{1e-3 * 0.75, 1e-3 * 1.25});

  const json high{{"x", 0.95}, {"n", 8}, {"opt", {{"lr", 0.09}, {"kind", "adam"}}}, {"act", "relu"}, {"global_batch_size", 32}};
  const auto clamped = explored(high, 0.5);
  CHECK(clamped.xs == std::set<double>{0.95 * 0.5, 1.0});              // 1.425 clamped to maxval
  CHECK(clamped.ns == std::set<std::int64_t>{4, 8});                   // 12 clamped
  CHECK(clamped.lrs == std::set<double>{0.09 * 0.5, std::pow(10.0, -1.0)});  // 0.135 clamped to 10^-1

  std::set<std::string> kinds;
  std::size_t unchanged_x = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    hparams::Rng rng(seed);
    const json child = explore(kSpace, parent, {.resample_probability = 1, .perturb_factor = 0.25}, rng);
    kinds.insert(child["opt"]["kind"].get<std::string>());
    const double x = child["x"].get<double>();
    CHECK((x >= 0 && x <= 1));
    const auto n = child["n"].get<std::int64_t>();
    CHECK((n >= 1 && n <= 8));
    unchanged_x += x == 0.375 || x == 0.625;
  }
  CHECK(kinds == std::set<std::string>{"sgd", "adam"});
  CHECK(unchanged_x == 0);  // resampled, not perturbed
}

TEST_CASE("pbt on a fixed objective: exploit and explore move the population towards the optimum", "[search][pbt]") {
  // Loss |x - 0.8| at every length; the population starts uniform over [0, 1].
  auto config = pbt_config(8, 12, 0.25);
  int improved = 0;
  for (std::uint32_t seed = 1; seed <= 5; ++seed) {
    auto searcher = build(config, seed);
    const auto sim = simulate(*searcher, [](const json& h, RequestId, std::uint64_t) {
      return std::abs(h["x"].get<double>() - 0.8);
    });
    REQUIRE(sim.has_value());
    double first = 0, last = 0;
    for (const auto& t : sim->trials) {
      if (t.id <= 8) first += std::abs(t.hparams["x"].get<double>() - 0.8) / 8;
      if (t.batches == 120) last += std::abs(t.hparams["x"].get<double>() - 0.8) / 8;
    }
    CHECK(sim->trials.size() == 8 + 11 * 2);
    CHECK(sim->total_batches == 8 * 120);  // each copy trains on from its parent's length
    improved += last < first / 2;
  }
  CHECK(improved >= 4);
}

TEST_CASE("simulate tells its creation hook of every trial before its first validation, copies with their parent",
          "[search][pbt]") {
  auto searcher = build(pbt_config(4, 3, 0.25));
  std::map<RequestId, SimulatedTrial> created;
  std::vector<RequestId> validated_before_creation;
  const auto sim = simulate(
      *searcher,
      [&](const json& h, RequestId id, std::uint64_t) {
        if (!created.contains(id)) validated_before_creation.push_back(id);
        return std::abs(h["x"].get<double>() - 0.8);
      },
      [&](const SimulatedTrial& t) { created[t.id] = t; });
  REQUIRE(sim.has_value());
  CHECK(validated_before_creation.empty());
  REQUIRE(created.size() == sim->trials.size());
  for (const auto& t : sim->trials) {
    CHECK(created.at(t.id).warm_start_from == t.warm_start_from);
    CHECK(created.at(t.id).start_batches == t.start_batches);
    if (t.warm_start_from) CHECK(t.start_batches > 0);
  }
  CHECK(std::ranges::count_if(sim->trials, [](const auto& t) { return t.warm_start_from.has_value(); }) == 2);
}
