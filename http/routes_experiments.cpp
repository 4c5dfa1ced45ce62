// /api/v1/experiments...: the experiment list, one experiment and its trials
// (from the read model), its trials' curves and checkpoints (read from the
// journal), and the commands that go through the gateway (create, pause,
// activate, kill).

#include <fmt/format.h>

#include "http/experiment_filter.hpp"
#include "http/experiment_upload.hpp"
#include "http/gateway_calls.hpp"
#include "http/routes.hpp"
#include "master/master_queries.hpp"
#include "master/kept_answers.hpp"
#include "master/read_model.hpp"

namespace volador::http {
namespace {

constexpr std::uint64_t kMaxPageSize = 1000;
constexpr std::uint64_t kMaxSeriesPoints = 10'000;

Result<ExperimentFilter> experiment_filter(const QueryParams& query) {
  ExperimentFilter filter;
  if (auto state = query.text("state")) {
    filter.state = parse_run_state(*state);
    if (!filter.state)
      return fail(Error::invalid_argument("query parameter 'state': expected ACTIVE, PAUSED, COMPLETED, CANCELED or ERROR"));
  }
  filter.owner = query.text("owner");
  filter.label = query.text("label");
  filter.workspace = query.text("workspace");
  filter.project = query.text("project");
  auto archived = query.choice("archived", {"false", "true", "any"}, "false");
  if (!archived) return fail(archived.error());
  filter.archived = *archived == "any" ? std::nullopt : std::optional<bool>(*archived == "true");
  filter.text = query.text("q").value_or("");
  const auto& keys = experiment_sort_keys();
  auto sort = query.choice("sort", {keys.begin(), keys.end()}, "-id");
  auto offset = query.integer("offset", 0);
  auto limit = query.integer("limit", 50, 1, kMaxPageSize);
  if (!sort) return fail(sort.error());
  if (!offset) return fail(offset.error());
  if (!limit) return fail(limit.error());
  filter.sort = *sort;
  filter.offset = *offset;
  filter.limit = *limit;
  return filter;
}

Result<ApiReply> list_experiments(const ApiRequest& request) {
  auto query = request.query(
      {"state", "owner", "label", "workspace", "project", "archived", "q", "sort", "offset", "limit"});
  if (!query) return fail(query.error());
  auto filter = experiment_filter(*query);
  if (!filter) return fail(filter.error());
  auto page = select_experiments(request.context.services.summaries->experiments(true).experiments, *filter);
  return ApiReply{.body = {{"experiments", page.experiments}, {"total", page.total}, {"offset", filter->offset},
                           {"limit", filter->limit}}};
}

using KeptJson = master::KeptAnswers<std::string>;

// The JSON text of the answer to `question` about experiment `id` (serialize:
// its JSON), kept while the experiment is unchanged.
template <class Make, class Serialize>
Result<ApiReply> kept_reply(const ApiRequest& request, KeptJson::Question question, Make make, Serialize serialize) {
  auto id = request.id();
  if (!id) return fail(id.error());
  const auto& summaries = *request.context.services.summaries;
  auto text = request.context.kept_answers.answer(
      summaries, question, *id, [&] { return make(summaries, *id); },
      [&](const auto& answer) { return serialize(answer).dump(); });
  if (!text) return fail(text.error());
  return ApiReply{.text = *text};
}

Result<ApiReply> describe_experiment(const ApiRequest& request) {
  return kept_reply(
      request, KeptJson::Question::experiment,
      [](const master::ReadModel& summaries, std::uint64_t id) { return summaries.experiment(id); },
      [](const wire::ExperimentDetail& detail) { return nlohmann::json(detail); });
}

Result<ApiReply> experiment_trials(const ApiRequest& request) {
  return kept_reply(
      request, KeptJson::Question::trials,
      [](const master::ReadModel& summaries, std::uint64_t id) { return summaries.trials(id); },
      [](const wire::TrialList& list) { return nlohmann::json{{"trials", list.trials}}; });
}

// Every trial's curve of one metric: what the experiment page charts.
Result<ApiReply> experiment_metrics(const ApiRequest& request) {
  auto query = request.query({"kind", "metric", "max_points"});
  if (!query) return fail(query.error());
  auto id = request.id();
  auto kind_name = query->choice("kind", {"TRAINING", "VALIDATION"}, "VALIDATION");
  auto max_points = query->integer("max_points", 500, 3, kMaxSeriesPoints);
  if (!id) return fail(id.error());
  if (!kind_name) return fail(kind_name.error());
  if (!max_points) return fail(max_points.error());
  const auto kind = *parse_metric_kind(*kind_name);
  const auto& journal = *request.context.services.journal;
  auto detail = request.context.services.summaries->experiment(*id);
  if (!detail) return fail(detail.error());
  const auto metric = query->text("metric").value_or(detail->summary.metric);
  std::set<std::string> names;
  auto trials = nlohmann::json::array();
  for (const auto& trial : detail->trials) {
    auto curve = request.context.ended_trial_curves.curve(
        journal, {.trial_id = trial.id, .kind = kind, .metric = metric, .max_points = *max_points},
        is_terminal(trial.state));
    if (!curve) return fail(curve.error());
    names.insert((*curve)->names.begin(), (*curve)->names.end());
    auto points = nlohmann::json::array();
    for (const auto& p : (*curve)->points) points.push_back({p.x, p.y});
    trials.push_back({{"trial_id", trial.id},
                      {"state", trial.state},
                      {"hparams", nlohmann::json::parse(trial.hparams)},
                      {"points", std::move(points)}});
  }
  return ApiReply{.body = {{"metric", metric}, {"kind", *kind_name}, {"names", names}, {"trials", std::move(trials)}}};
}

Result<ApiReply> experiment_checkpoints(const ApiRequest& request) {
  auto id = request.id();
  if (!id) return fail(id.error());
  const auto& services = request.context.services;
  auto list = master::list_checkpoints(*services.journal, services.data_dir, *id, 0);
  if (!list) return fail(list.error());
  return ApiReply{.body = *list};
}

Result<ApiReply> create_experiment(const ApiRequest& request) {
  auto upload = read_experiment_upload(request.http, request.context.services.data_dir);
  if (!upload) return fail(upload.error());
  auto reply = ask_gateway<wire::CreateExperimentReply>(request, kCreateTimeout, actors::create_atom::value,
                                                        wire::encode(*upload));
  if (!reply) return fail(reply.error());
  if (reply->experiment_id == 0)
    return refused_reply("the experiment was refused", reply->errors);
  return ApiReply{.status = 201, .body = {{"id", reply->experiment_id}}};
}

// POST /experiments/{id}/VERB: the gateway's answer to the command (with `more` after the id).
template <class Atom, class... More>
JsonRoute command(Atom atom, More... more) {
  return [atom, more...](const ApiRequest& request) -> Result<ApiReply> {
    auto id = request.id();
    if (!id) return fail(id.error());
    auto done = ask_gateway<bool>(request, kGatewayTimeout, atom, *id, more...);
    if (!done) return fail(done.error());
    return ApiReply{};
  };
}

}  // namespace

void add_experiment_routes(ApiRouter& router) {
  router.get("/api/v1/experiments", list_experiments);
  router.post("/api/v1/experiments", create_experiment);
  router.get(R"(/api/v1/experiments/(\d+))", describe_experiment);
  router.get(R"(/api/v1/experiments/(\d+)/trials)", experiment_trials);
  router.get(R"(/api/v1/experiments/(\d+)/metrics)", experiment_metrics);
  router.get(R"(/api/v1/experiments/(\d+)/checkpoints)", experiment_checkpoints);
  router.post(R"(/api/v1/experiments/(\d+)/pause)", command(actors::pause_atom::value));
  router.post(R"(/api/v1/experiments/(\d+)/activate)", command(actors::activate_atom::value));
  router.post(R"(/api/v1/experiments/(\d+)/kill)", command(actors::kill_atom::value));
  router.post(R"(/api/v1/experiments/(\d+)/archive)", command(actors::archive_atom::value, true));
  router.post(R"(/api/v1/experiments/(\d+)/unarchive)", command(actors::archive_atom::value, false));
}

}  // namespace volador::http
