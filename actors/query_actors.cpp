#include "actors/query_actors.hpp"

#include "actors/encoded_reply.hpp"
#include "master/kept_answers.hpp"
#include "master/master_queries.hpp"
#include "storage/journal/durable_reads.hpp"

namespace volador::actors {
namespace {

constexpr std::size_t kLogPage = 1000;

using KeptAnswers = master::KeptAnswers<wire::Bytes>;

// The kept (or newly made) encoded answer, or its error.
caf::result<wire::Bytes> bytes_reply(Result<KeptAnswers::Answer> bytes) {
  if (!bytes) return to_caf_error(bytes.error());
  return **bytes;
}

// KeptAnswers' serialization for the query actors.
constexpr auto kEncode = [](const auto& message) { return wire::encode(message); };

}  // namespace

SummaryQueryActor::behavior_type summary_query_actor(std::shared_ptr<const master::ReadModel> summaries) {
  auto kept = std::make_shared<KeptAnswers>();
  return {
      [summaries](list_atom, bool include_archived) {
        return encoded_reply(Result<wire::ExperimentList>(summaries->experiments(include_archived)));
      },
      [summaries, kept](describe_atom, std::uint64_t id) {
        return bytes_reply(kept->answer(*summaries, KeptAnswers::Question::experiment, id,
                                        [&] { return summaries->experiment(id); }, kEncode));
      },
      [summaries, kept](trials_atom, std::uint64_t experiment_id) {
        return bytes_reply(kept->answer(*summaries, KeptAnswers::Question::trials, experiment_id,
                                        [&] { return summaries->trials(experiment_id); }, kEncode));
      },
      [summaries](trial_atom, std::uint64_t id) { return encoded_reply(summaries->trial(id)); },
  };
}

HistoryQueryActor::behavior_type history_query_actor(std::shared_ptr<const storage::Journal> journal,
                                                     std::shared_ptr<const master::ReadModel> summaries,
                                                     std::filesystem::path data_dir) {
  return {
      [=](trial_atom, std::uint64_t id, std::uint32_t max_points) {
        const storage::DurableReads written_only;
        return encoded_reply(master::describe_trial(*journal, *summaries, id, max_points));
      },
      [=](logs_atom, std::uint64_t id, std::uint64_t after_seq) {
        const storage::DurableReads written_only;
        return encoded_reply(master::trial_logs(*journal, id, after_seq, kLogPage));
      },
      [=](checkpoints_atom, std::uint64_t experiment_id, std::uint64_t trial_id) {
        const storage::DurableReads written_only;
        return encoded_reply(master::list_checkpoints(*journal, data_dir, experiment_id, trial_id));
      },
      [=](checkpoints_atom, const std::string& uuid) {
        const storage::DurableReads written_only;
        return encoded_reply(master::find_checkpoint(*journal, data_dir, uuid));
      },
  };
}

}  // namespace volador::actors
