#include <catch2/catch.hpp>

#include "http/cluster_metrics.hpp"
#include "http/prometheus_text.hpp"

using namespace volador::http;

TEST_CASE("Families are written with HELP TYPE and escaped labels") {
  std::vector<MetricFamily> families = {
      {"volador_trials", "Trials by state", "gauge", {{{{"state", "ACTIVE"}}, 3, ""}, {{{"state", "ERROR"}}, 0, ""}}},
      {"volador_odd", "A \\ help\nline", "counter", {{{{"path", "a\"b\\c\nd"}}, 1.5, "_total"}, {{}, 2, ""}}}};
  CHECK(exposition(families) ==
        "# HELP volador_trials Trials by state\n"
        "# TYPE volador_trials gauge\n"
        "volador_trials{state=\"ACTIVE\"} 3\n"
        "volador_trials{state=\"ERROR\"} 0\n"
        "# HELP volador_odd A \\\\ help\\nline\n"
        "# TYPE volador_odd counter\n"
        "volador_odd_total{path=\"a\\\"b\\\\c\\nd\"} 1.5\n"
        "volador_odd 2\n");
}

TEST_CASE("The journal's commits become a latency histogram and counts of reports and checkpoints") {
  volador::storage::JournalStats::Snapshot stats{.commits = 4, .commit_seconds = 0.012, .commits_within = {}, .training_reports = 30,
                                                 .validation_reports = 3, .checkpoints = 2};
  stats.commits_within.fill(4);
  stats.commits_within[0] = 1;
  const auto text = exposition(journal_families(stats));
  CHECK_THAT(text, Catch::Contains("volador_journal_commits_total 4\n") &&
                       Catch::Contains("volador_journal_commit_seconds_bucket{le=\"0.0005\"} 1\n") &&
                       Catch::Contains("volador_journal_commit_seconds_bucket{le=\"+Inf\"} 4\n") &&
                       Catch::Contains("volador_journal_commit_seconds_sum 0.012\n") &&
                       Catch::Contains("volador_metric_reports_total{kind=\"TRAINING\"} 30\n") &&
                       Catch::Contains("volador_checkpoints_total 2\n"));
}
