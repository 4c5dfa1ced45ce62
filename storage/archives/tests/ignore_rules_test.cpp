#include <catch2/catch.hpp>

#include "storage/archives/ignore_rules.hpp"

using volador::archives::IgnoreRules;

TEST_CASE("ignore rules: comments, blank lines and base-name patterns at any depth", "[archives][ignore]") {
  auto rules = IgnoreRules::parse("# comment\n\n  *.pyc  \r\n__pycache__/\n");
  CHECK(rules.ignored("a.pyc", false));
  CHECK(rules.ignored("pkg/sub/a.pyc", false));
  CHECK(rules.ignored("pkg/__pycache__", true));
  CHECK_FALSE(rules.ignored("pkg/__pycache__", false));  // a file of that name is kept
  CHECK_FALSE(rules.ignored("# comment", false));
  CHECK_FALSE(rules.ignored("a.py", false));
}

TEST_CASE("ignore rules: patterns with a slash are anchored at the root", "[archives][ignore]") {
  auto rules = IgnoreRules::parse("/build\ndata/*.csv\n");
  CHECK(rules.ignored("build", true));
  CHECK_FALSE(rules.ignored("src/build", true));
  CHECK(rules.ignored("data/train.csv", false));
  CHECK_FALSE(rules.ignored("data/sub/train.csv", false));  // * does not cross '/'
  CHECK_FALSE(rules.ignored("other/data/train.csv", false));
}

TEST_CASE("ignore rules: no file means nothing is ignored", "[archives][ignore]") {
  auto rules = IgnoreRules::parse("");
  CHECK_FALSE(rules.ignored("anything", false));
  CHECK_FALSE(rules.ignored("dir", true));
}
