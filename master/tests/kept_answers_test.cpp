// Encoded answers kept under the read model's version: reused while the
// experiment is unchanged, made anew once it changed, never kept on error.

#include <catch2/catch.hpp>

#include "master/kept_answers.hpp"
#include "runtime/wire/codec.hpp"
#include "master/tests/query_fixture.hpp"

using namespace volador;
using namespace volador::master;
using namespace volador::master::testing;
using Kept = KeptAnswers<wire::Bytes>;
using Question = Kept::Question;
constexpr auto kEncode = [](const auto& message) { return wire::encode(message); };

namespace {

struct Counted {
  std::unique_ptr<storage::Journal> journal = storage::Journal::in_memory();
  std::shared_ptr<const ReadModel> model = follow_journal(*journal).value();
  Kept kept;
  int made = 0;

  wire::TrialList trials(std::uint64_t experiment_id) {
    auto bytes = kept.answer(
        *model, Question::trials, experiment_id,
        [&] {
          ++made;
          return model->trials(experiment_id);
        },
        kEncode);
    REQUIRE(bytes);
    return wire::decode<wire::TrialList>(**bytes).value();
  }
};

}  // namespace

TEST_CASE("A kept answer is reused while its experiment is unchanged and made anew after a change") {
  Counted c;
  REQUIRE(c.journal->commit(storage::JournalBatch()
                                .put_experiment(experiment_record(1, RunState::active))
                                .put_experiment(experiment_record(2, RunState::active))
                                .put_trial(trial_record(1, 1, RunState::active))));
  CHECK(c.trials(1).trials.size() == 1);
  CHECK(c.trials(1).trials.size() == 1);
  CHECK(c.made == 1);
  REQUIRE(c.journal->put_trial(trial_record(2, 2, RunState::active)));  // another experiment
  CHECK(c.trials(1).trials.size() == 1);
  CHECK(c.made == 1);
  CHECK(c.trials(0).trials.size() == 2);
  CHECK(c.made == 2);
  REQUIRE(c.journal->append_metrics(report(1, MetricKind::validation, 5, {{"accuracy", 0.5}})));
  CHECK(c.trials(1).trials.at(0).best_validation == 0.5);
  CHECK(c.made == 3);
  CHECK(c.trials(0).trials.at(0).best_validation == 0.5);  // every experiment's: any change counts
  CHECK(c.made == 4);
}

TEST_CASE("An answer that fails is not kept") {
  Counted c;
  auto missing = c.kept.answer(
      *c.model, Question::experiment, 7,
      [&] {
        ++c.made;
        return c.model->experiment(7);
      },
      kEncode);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ErrorCode::not_found);
  REQUIRE(c.journal->put_experiment(experiment_record(7, RunState::active)));
  auto found = c.kept.answer(*c.model, Question::experiment, 7, [&] { return c.model->experiment(7); }, kEncode);
  REQUIRE(found);
  CHECK(wire::decode<wire::ExperimentDetail>(**found).value().summary.id == 7);
}
