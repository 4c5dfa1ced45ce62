// /api/v1/trials/...: one trial, its metric reports, its logs (paged and
// followed live as Server-Sent Events), its checkpoints and their downloads;
// killing it goes through the gateway.

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "http/gateway_calls.hpp"
#include "http/routes.hpp"
#include "master/master_queries.hpp"
#include "master/metric_downsampling.hpp"
#include "master/read_model.hpp"
#include "storage/archives/archive.hpp"

namespace volador::http {
namespace {

constexpr std::uint64_t kMaxLogPage = 10'000;
constexpr std::uint64_t kMaxPointsPerSeries = 100'000;
constexpr std::size_t kLogScanPage = 1000;
constexpr std::size_t kMaxLogScan = 200'000;  // lines one search request reads before answering
constexpr auto kStreamPoll = std::chrono::milliseconds(250);

Result<ApiReply> describe_trial(const ApiRequest& request) {
  auto id = request.id();
  if (!id) return fail(id.error());
  auto summary = request.context.services.summaries->trial(*id);
  if (!summary) return fail(summary.error());
  return ApiReply{.body = *summary};
}

// Reports of one kind (or both), each series cut to at most `max_points`
// points (master/metric_downsampling.hpp) unless `all`, with the metric
// names among them (downsampling keeps at least one point of every series).
Result<ApiReply> trial_metrics(const ApiRequest& request) {
  auto query = request.query({"kind", "max_points", "all"});
  if (!query) return fail(query.error());
  auto id = request.id();
  auto kind = query->choice("kind", {"TRAINING", "VALIDATION", "ALL"}, "ALL");
  auto max_points = query->integer("max_points", master::kDefaultPointsPerSeries, master::kMinPointsPerSeries,
                                   kMaxPointsPerSeries);
  auto all = query->boolean("all", false);
  if (!id) return fail(id.error());
  if (!kind) return fail(kind.error());
  if (!max_points) return fail(max_points.error());
  if (!all) return fail(all.error());
  const auto& services = request.context.services;
  auto detail = master::describe_trial(*services.journal, *services.summaries, *id, *all ? 0 : *max_points,
                                       parse_metric_kind(*kind));
  if (!detail) return fail(detail.error());
  std::set<std::string> names;
  for (const auto& point : detail->metrics)
    for (const auto& [name, value] : point.metrics) names.insert(name);
  return ApiReply{.body = {{"names", names}, {"points", detail->metrics}, {"total", detail->total_reports},
                           {"downsampled", detail->downsampled}}};
}

// Log lines after `after_seq`, those containing `q` when given; a search
// reads at most kMaxLogScan lines and says where it stopped (next_seq).
Result<ApiReply> trial_logs(const ApiRequest& request) {
  auto query = request.query({"after_seq", "limit", "q"});
  if (!query) return fail(query.error());
  auto id = request.id();
  auto after_seq = query->integer("after_seq", 0);
  auto limit = query->integer("limit", 1000, 1, kMaxLogPage);
  if (!id) return fail(id.error());
  if (!after_seq) return fail(after_seq.error());
  if (!limit) return fail(limit.error());
  const auto needle = query->text("q").value_or("");
  const auto& journal = *request.context.services.journal;
  auto lines = nlohmann::json::array();
  std::uint64_t next_seq = *after_seq;
  for (std::size_t scanned = 0; lines.size() < *limit && scanned < kMaxLogScan;) {
    const auto want = needle.empty() ? *limit - lines.size() : kLogScanPage;
    auto page = master::trial_logs(journal, *id, next_seq, want);
    if (!page) return fail(page.error());
    for (const auto& line : page->lines) {
      next_seq = line.seq;
      if (needle.empty() || line.text.find(needle) != std::string::npos) lines.push_back(line);
      if (lines.size() == *limit) break;
    }
    scanned += page->lines.size();
    if (page->lines.size() < want) break;
  }
  return ApiReply{.body = {{"lines", std::move(lines)}, {"next_seq", next_seq}}};
}

// True once the trial has ended (or is gone): no more lines will come.
bool trial_ended(const storage::Journal& journal, std::uint64_t trial_id) {
  auto trial = journal.trial(trial_id);
  return !trial || is_terminal(trial->state);
}

// Sends every new line as an event until the trial ended and all were sent
// (then `event: end`), the client went away or the server stops.
void stream_logs(const ApiContext& context, std::uint64_t trial_id, std::uint64_t after_seq, httplib::DataSink& sink) {
  const auto& journal = *context.services.journal;
  auto send = [&](const std::string& event) { return sink.is_writable() && sink.write(event.data(), event.size()); };
  while (!context.stopping) {
    const bool ended = trial_ended(journal, trial_id);  // read before the lines: none can follow it
    auto page = master::trial_logs(journal, trial_id, after_seq, kLogScanPage);
    if (!page) return;
    for (const auto& line : page->lines) {
      after_seq = line.seq;
      if (!send(fmt::format("id: {}\ndata: {}\n\n", line.seq, nlohmann::json(line).dump()))) return;
    }
    if (page->lines.size() == kLogScanPage) continue;
    if (ended) {
      send("event: end\ndata: {}\n\n");
      return;
    }
    if (!send(": idle\n\n")) return;  // finds a client that went away
    std::this_thread::sleep_for(kStreamPoll);
  }
}

Status follow_logs(const ApiRequest& request, httplib::Response& response) {
  auto query = request.query({"after_seq"});
  if (!query) return fail(query.error());
  auto id = request.id();
  auto after_seq = query->integer("after_seq", 0);
  if (!id) return fail(id.error());
  if (!after_seq) return fail(after_seq.error());
  auto& context = request.context;
  if (auto trial = context.services.journal->trial(*id); !trial) return fail(trial.error());
  // A browser's EventSource resumes after the last event it saw.
  if (auto last = request.http.get_header_value("Last-Event-ID"); !last.empty())
    *after_seq = std::max<std::uint64_t>(*after_seq, std::strtoull(last.c_str(), nullptr, 10));
  if (context.event_streams.fetch_add(1) >= context.limits.max_event_streams) {
    context.event_streams.fetch_sub(1);
    return fail(Error::unavailable(fmt::format("{} log streams are open, the most this server keeps: try again later",
                                               context.limits.max_event_streams)));
  }
  response.set_header("Cache-Control", "no-cache");
  response.set_chunked_content_provider(
      "text/event-stream",
      [&context, trial_id = *id, from = *after_seq](std::size_t, httplib::DataSink& sink) {
        stream_logs(context, trial_id, from, sink);
        sink.done();
        return true;
      },
      [&context](bool) { context.event_streams.fetch_sub(1); });
  response.status = 200;
  return {};
}

Result<ApiReply> trial_checkpoints(const ApiRequest& request) {
  auto id = request.id();
  if (!id) return fail(id.error());
  const auto& services = request.context.services;
  auto list = master::list_checkpoints(*services.journal, services.data_dir, 0, *id);
  if (!list) return fail(list.error());
  return ApiReply{.body = *list};
}

// The checkpoint's folder as a gzip tar, streamed as it is packed.
Status download_checkpoint(const ApiRequest& request, httplib::Response& response) {
  const auto uuid = request.http.matches[1].str();
  const auto& services = request.context.services;
  auto found = master::find_checkpoint(*services.journal, services.data_dir, uuid);
  if (!found) return fail(found.error());
  const auto& checkpoint = found->checkpoints.front();
  if (checkpoint.path.empty())
    return fail(Error::not_found("checkpoint " + uuid + " is " + std::string(to_string(checkpoint.state)) + ": its files are gone"));
  response.set_header("Content-Disposition", fmt::format("attachment; filename=\"checkpoint-{}.tar.gz\"", uuid));
  response.set_chunked_content_provider("application/gzip", [folder = checkpoint.path](std::size_t, httplib::DataSink& sink) {
    auto streamed = archives::stream_directory(folder, [&](std::string_view chunk) {
      return sink.is_writable() && sink.write(chunk.data(), chunk.size());
    });
    if (streamed) sink.done();
    return static_cast<bool>(streamed);
  });
  response.status = 200;
  return {};
}

Result<ApiReply> kill_trial(const ApiRequest& request) {
  auto id = request.id();
  if (!id) return fail(id.error());
  auto done = ask_gateway<bool>(request, kGatewayTimeout, actors::kill_trial_atom::value, *id);
  if (!done) return fail(done.error());
  return ApiReply{};
}

}  // namespace

void add_trial_routes(ApiRouter& router) {
  router.get(R"(/api/v1/trials/(\d+))", describe_trial);
  router.get(R"(/api/v1/trials/(\d+)/metrics)", trial_metrics);
  router.get(R"(/api/v1/trials/(\d+)/logs)", trial_logs);
  router.get_raw(R"(/api/v1/trials/(\d+)/logs/stream)", follow_logs);
  router.get(R"(/api/v1/trials/(\d+)/checkpoints)", trial_checkpoints);
  router.post(R"(/api/v1/trials/(\d+)/kill)", kill_trial);
  router.get_raw(R"(/api/v1/checkpoints/([0-9a-fA-F-]{1,64})/download)", download_checkpoint);
}

}  // namespace volador::http
