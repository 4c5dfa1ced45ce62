// Encoded answers kept under the read model's version: kept once asked twice
// at one version, reused while the experiment is unchanged, made anew once it
// changed, never kept on error; an answer asked once holds no text.

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
  CHECK(c.trials(1).trials.size() == 1);  // asked twice at one version: kept
  CHECK(c.made == 2);
  CHECK(c.trials(1).trials.size() == 1);
  CHECK(c.made == 2);
  REQUIRE(c.journal->put_trial(trial_record(2, 2, RunState::active)));  // another experiment
  CHECK(c.trials(1).trials.size() == 1);
  CHECK(c.made == 2);
  CHECK(c.trials(0).trials.size() == 2);
  CHECK(c.made == 3);
  REQUIRE(c.journal->append_metrics(report(1, MetricKind::validation, 5, {{"accuracy", 0.5}})));
  CHECK(c.trials(1).trials.at(0).best_validation == 0.5);
  CHECK(c.made == 4);
  CHECK(c.trials(0).trials.at(0).best_validation == 0.5);  // every experiment's: any change counts
  CHECK(c.made == 5);
}

TEST_CASE("Answers asked once hold no text, so ended searches each asked once leave the kept bytes flat") {
  Counted c;
  constexpr std::uint64_t kSearches = 20;
  constexpr std::uint64_t kTrialsEach = 50;
  storage::JournalBatch batch;
  for (std::uint64_t e = 1; e <= kSearches; ++e) {
    batch.put_experiment(experiment_record(e, RunState::completed));
    for (std::uint64_t t = 1; t <= kTrialsEach; ++t)
      batch.put_trial(trial_record((e - 1) * kTrialsEach + t, e, RunState::completed));
  }
  REQUIRE(c.journal->commit(batch));
  const std::size_t one_answer = wire::encode(c.model->trials(1).value()).size();
  REQUIRE(one_answer > 1000);
  for (std::uint64_t e = 1; e <= kSearches; ++e) CHECK(c.trials(e).trials.size() == kTrialsEach);
  CHECK(c.kept.kept_bytes() < one_answer);  // the marks alone
  CHECK(c.trials(1).trials.size() == kTrialsEach);  // asked again: now kept
  CHECK(c.kept.kept_bytes() >= one_answer);
  CHECK(c.kept.kept_bytes() < 2 * one_answer);
  const int made = c.made;
  CHECK(c.trials(1).trials.size() == kTrialsEach);
  CHECK(c.made == made);
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
