#include <catch2/catch.hpp>

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
