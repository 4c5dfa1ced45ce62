#include <catch2/catch.hpp>

#include <array>
#include <optional>
#include <string_view>

#include "runtime/config/did_you_mean.hpp"

using namespace volador::config;

TEST_CASE("edit distance", "[config][did_you_mean]") {
  struct Case {
    std::string_view a, b;
    std::size_t distance;
  };
  for (const Case& c : std::array<Case, 6>{{{"", "", 0},
                                           {"abc", "", 3},
                                           {"kitten", "sitting", 3},
                                           {"name", "nmae", 2},
                                           {"registrt_auth", "registry_auth", 1},
                                           {"records1281167epoch", "records_per_epoch", 7}}}) {
    CAPTURE(c.a, c.b);
    CHECK(edit_distance(c.a, c.b) == c.distance);
    CHECK(edit_distance(c.b, c.a) == c.distance);
  }
}

TEST_CASE("did you mean", "[config][did_you_mean]") {
  constexpr std::array<std::string_view, 5> kKeys{"name", "records_per_epoch", "max_restarts", "registry_auth",
                                                  "resources"};
  struct Case {
    std::string_view name;
    std::optional<std::string_view> suggestion;
  };
  for (const Case& c : std::array<Case, 9>{{{"records1281167epoch", "records_per_epoch"},
                                           {"registrt_auth", "registry_auth"},
                                           {"nmae", "name"},
                                           {"Name", "name"},
                                           {"resource", "resources"},
                                           {"max_restart", "max_restarts"},
                                           {"banana", std::nullopt},
                                           {"x", std::nullopt},
                                           {"name", std::nullopt}}}) {
    CAPTURE(c.name);
    CHECK(did_you_mean(c.name, kKeys) == c.suggestion);
  }
}
