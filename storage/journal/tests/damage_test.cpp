// A damaged write-ahead log is never silent (issue 17, item 6): a journal
// killed mid-run whose log is then truncated, bit-flipped or deleted is
// refused with the count of acknowledged writes it would lose, without a
// byte of its folder changed; accepting the loss opens it at the last
// consistent point with a report of the writes lost; a torn tail that held
// no acknowledged write opens with a note.

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "storage/journal/journal.hpp"
#include "storage/journal/tests/journal_test_support.hpp"

namespace fs = std::filesystem;
using namespace volador;
using namespace volador::storage;
using namespace volador::storage::testing;

namespace {

constexpr int kTrials = 40;

// A journal of one experiment with kTrials trials, each with one validation,
// written by a child killed with SIGKILL right after (no clean close: the
// records live only in the write-ahead log).
void write_and_crash(const TempDir& tmp) {
  const pid_t child = spawn_child("damage child killed after writing", tmp.path);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
}

fs::path only_log(const fs::path& journal_dir) {
  fs::path log;
  for (const auto& entry : fs::directory_iterator(journal_dir)) {
    if (entry.path().extension() == ".log" && fs::file_size(entry.path()) > 0) {
      REQUIRE(log.empty());
      log = entry.path();
    }
  }
  REQUIRE(!log.empty());
  return log;
}

// Every file of the folder and its bytes.
std::map<std::string, std::string> contents_of(const fs::path& dir) {
  std::map<std::string, std::string> contents;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    contents[entry.path().filename()] = std::string(std::istreambuf_iterator<char>(in), {});
  }
  return contents;
}

void flip_a_bit_at(const fs::path& file, std::uintmax_t offset) {
  std::fstream io(file, std::ios::in | std::ios::out | std::ios::binary);
  io.seekg(static_cast<std::streamoff>(offset));
  char byte = 0;
  io.get(byte);
  io.seekp(static_cast<std::streamoff>(offset));
  io.put(static_cast<char>(byte ^ 0x10));
}

// Requires the refusal of a damaged journal that leaves its folder as it was.
std::string refusal_of(const TempDir& tmp) {
  const auto before = contents_of(tmp.journal());
  auto refused = Journal::open(tmp.journal());
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == ErrorCode::corruption);
  CHECK_THAT(refused.error().message, Catch::Contains("acknowledged write(s) would be lost") &&
                                          Catch::Contains("Nothing was changed") &&
                                          Catch::Contains("--accept-journal-loss"));
  CHECK(contents_of(tmp.journal()) == before);
  return refused.error().message;
}

std::size_t trials_kept(Journal& journal) {
  auto trials = journal.trials(1);
  REQUIRE(trials);
  return trials->size();
}

// After the loss was accepted once, the journal opens whole, with what was kept and new writes.
void check_reopens_whole(const TempDir& tmp, std::size_t kept) {
  {
    auto journal = open_journal(tmp.journal());
    REQUIRE(journal->put_trial(make_trial(1000, 1)));
  }
  auto reopened = open_journal(tmp.journal());
  CHECK_FALSE(reopened->damage_report());
  CHECK(trials_kept(*reopened) == kept + 1);
}

}  // namespace

TEST_CASE("damage child killed after writing", "[.][child]") {
  if (child_dir() == nullptr) return;
  auto journal = open_journal(fs::path(child_dir()) / "journal");
  REQUIRE(journal->put_experiment(make_experiment(1)));
  for (std::uint64_t id = 1; id <= kTrials; ++id) {
    REQUIRE(journal->commit(JournalBatch()
                                .put_trial(make_trial(id, 1))
                                .append_metrics(make_metrics(id, MetricKind::validation, 100, 0.5))));
  }
  ::kill(::getpid(), SIGKILL);
}

TEST_CASE("a journal whose log lost its end is refused, then opened at its last whole write when the loss is accepted",
          "[journal][damage]") {
  TempDir tmp;
  write_and_crash(tmp);
  const fs::path log = only_log(tmp.journal());
  fs::resize_file(log, fs::file_size(log) - 300);

  CHECK_THAT(refusal_of(tmp), Catch::Contains("write-ahead log is damaged"));

  std::size_t kept = 0;
  {
    auto accepted = Journal::open(tmp.journal(), /*accept_loss=*/true);
    REQUIRE(accepted);
    REQUIRE((*accepted)->damage_report());
    CHECK_THAT(*(*accepted)->damage_report(), Catch::Contains("acknowledged write(s) lost"));
    kept = trials_kept(**accepted);
    CHECK(kept > 0);
    CHECK(kept < kTrials);
    check_same(*(*accepted)->trial(1), make_trial(1, 1));
  }
  check_reopens_whole(tmp, kept);
}

TEST_CASE("a journal whose log has a flipped bit is refused, and accepting the loss says which writes were lost",
          "[journal][damage]") {
  TempDir tmp;
  write_and_crash(tmp);
  const fs::path log = only_log(tmp.journal());
  flip_a_bit_at(log, fs::file_size(log) / 2);

  CHECK_THAT(refusal_of(tmp), Catch::Contains("checksum mismatch"));

  std::size_t kept = 0;
  {
    auto accepted = Journal::open(tmp.journal(), /*accept_loss=*/true);
    REQUIRE(accepted);
    REQUIRE((*accepted)->damage_report());
    const std::string report = *(*accepted)->damage_report();
    kept = trials_kept(**accepted);
    CHECK(kept < kTrials);
    // One experiment, then a trial and its metric report per commit: every write up to the last is counted.
    const std::uint64_t written = 1 + 3 * kTrials;  // the trial, its index entry, its report
    CHECK_THAT(report, Catch::Contains(" to " + std::to_string(written) + ";"));
  }
  check_reopens_whole(tmp, kept);
}

TEST_CASE("a journal whose log was deleted is refused, and accepting the loss says its records cannot be named",
          "[journal][damage]") {
  TempDir tmp;
  write_and_crash(tmp);
  fs::remove(only_log(tmp.journal()));

  CHECK_THAT(refusal_of(tmp), Catch::Contains("missing writes it acknowledged"));

  auto accepted = Journal::open(tmp.journal(), /*accept_loss=*/true);
  REQUIRE(accepted);
  REQUIRE((*accepted)->damage_report());
  CHECK_THAT(*(*accepted)->damage_report(), Catch::Contains("(writes 1 to "));
  CHECK_FALSE((*accepted)->experiment(1));
}

TEST_CASE("a torn log tail that held no acknowledged write opens with a note", "[journal][damage]") {
  TempDir tmp;
  write_and_crash(tmp);
  {
    std::ofstream tail(only_log(tmp.journal()), std::ios::binary | std::ios::app);
    tail << std::string(40, '\x7f');  // a record header that never got its body
  }
  auto journal = Journal::open(tmp.journal());
  REQUIRE(journal);
  REQUIRE((*journal)->damage_report());
  CHECK_THAT(*(*journal)->damage_report(), Catch::Contains(" 0 acknowledged write(s) lost"));
  CHECK(trials_kept(**journal) == kTrials);
}

TEST_CASE("a journal killed after its writes reopens whole, with no damage report", "[journal][damage]") {
  TempDir tmp;
  write_and_crash(tmp);
  auto journal = open_journal(tmp.journal());
  CHECK_FALSE(journal->damage_report());
  CHECK(trials_kept(*journal) == kTrials);
}
