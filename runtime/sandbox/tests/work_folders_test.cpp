#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <set>

#include "runtime/sandbox/work_folders.hpp"

using namespace volador::sandbox;
namespace fs = std::filesystem;

namespace {

struct WorkDir {
  fs::path dir = fs::temp_directory_path() / ("volador-work-folders-test-" + std::to_string(getpid()));
  WorkDir() { fs::create_directories(dir); }
  ~WorkDir() { fs::remove_all(dir); }
  [[nodiscard]] fs::path rank(const std::string& name) const {
    fs::create_directories(dir / name);
    std::ofstream(dir / name / "model_def.py") << "x = 1\n";
    return dir / name;
  }
};

}  // namespace

TEST_CASE("A rank's folder goes when it ends cleanly") {
  WorkDir work;
  WorkFolders folders({std::chrono::minutes(10), 0});
  const auto folder = work.rank("trial-1-run-1-rank-0");
  folders.rank_ended(folder, false, 1000);
  CHECK_FALSE(fs::exists(folder));
}

TEST_CASE("A failed rank's folder is kept for keep_failed, then reaped with its worker's home") {
  WorkDir work;
  WorkFolders folders({std::chrono::minutes(10), 0});
  const auto folder = work.rank("workers/worker-1/trial-2-run-1-rank-0");
  folders.rank_ended(folder, true, 1000);
  folders.reap(1000 + 600'000 - 1);
  CHECK(fs::exists(folder));
  folders.reap(1000 + 600'000);
  CHECK_FALSE(fs::exists(folder.parent_path()));
}

TEST_CASE("keep_failed 0 reclaims a failed rank's folder at once") {
  WorkDir work;
  WorkFolders folders({std::chrono::milliseconds(0), 0});
  const auto folder = work.rank("trial-3-run-1-rank-0");
  folders.rank_ended(folder, true, 1000);
  CHECK_FALSE(fs::exists(folder));
}

TEST_CASE("An earlier agent's rank folders older than keep_failed go at start, recent ones and other files stay") {
  WorkDir work;
  const auto old_rank = work.rank("workers/worker-1/trial-4-run-1-rank-0");
  const auto recent_rank = work.rank("workers/worker-2/trial-5-run-1-rank-0");
  const auto tls = work.rank("tls");
  fs::last_write_time(old_rank, fs::file_time_type::clock::now() - std::chrono::hours(2));
  fs::last_write_time(tls, fs::file_time_type::clock::now() - std::chrono::hours(2));
  WorkFolders({std::chrono::hours(1), 0}).reap_left_over(work.dir);
  CHECK_FALSE(fs::exists(old_rank.parent_path()));  // its worker's home, left empty
  CHECK(fs::exists(recent_rank));
  CHECK(fs::exists(tls));
}

TEST_CASE("A work disk below the minimum refuses trials, saying how much is free and needed") {
  WorkDir work;
  const auto free = free_disk_bytes(work.dir);
  REQUIRE(free);
  CHECK_FALSE(WorkFolders({std::chrono::hours(1), 0}).refusal(work.dir, free));
  const auto refusal = WorkFolders({std::chrono::hours(1), *free + (1ull << 40)}).refusal(work.dir, free);
  REQUIRE(refusal);
  CHECK(refusal->find(work.dir.string() + " has ") != std::string::npos);
  CHECK(refusal->find("(--min-free-disk) an agent needs to start a trial") != std::string::npos);
}

TEST_CASE("The refusal follows the free space it is given: at the minimum trials start, below it or unknown they do not") {
  const WorkFolders folders({std::chrono::hours(1), 2ull << 30});
  CHECK_FALSE(folders.refusal("/work", volador::Result<std::uint64_t>(2ull << 30)));
  CHECK(folders.refusal("/work", volador::Result<std::uint64_t>((2ull << 30) - 1)) ==
        "the work folder /work has 2047 MiB free, below the 2048 MiB (--min-free-disk) an agent needs to start a trial");
  CHECK(folders.refusal("/work", volador::Result<std::uint64_t>(volador::fail(volador::Error::io("statvfs /work: gone")))) ==
        "cannot tell the free space of the work folder: statvfs /work: gone");
}

namespace {

// A warm worker's folder as the agent prepares it: the model definition, the trial and timings files.
PreparedFolder prepared(const WorkDir& work, const std::string& name, std::string_view archive = "archive-1") {
  const auto folder = work.rank(name);
  fs::create_directories(folder / "pkg");
  std::ofstream(folder / "pkg" / "model.py") << "y = 2\n";
  std::ofstream(folder / "volador-trial.json") << "{\"trial_id\": 1}\n";
  auto contents = FolderSnapshot::take(folder);
  REQUIRE(contents);
  return {folder, archive_key(archive), std::move(*contents)};
}

WorkFolders reusing(const WorkDir& work, std::set<std::string> worker_scratch = {}) {
  REQUIRE(ctime_marks_every_change(work.dir));  // Linux 6.13+ (multigrain timestamps): what the agent reuses folders on
  return WorkFolders({std::chrono::minutes(10), 0, true, std::move(worker_scratch)});
}

ino_t inode_of(const fs::path& file) {
  struct stat info {};
  REQUIRE(::stat(file.c_str(), &info) == 0);
  return info.st_ino;
}

// "d/d/.../d", `depth` folders.
fs::path nested_folders(int depth) {
  fs::path path;
  for (int i = 0; i < depth; ++i) path /= "d";
  return path;
}

std::string text_of(const fs::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("An idle worker's clean folder serves its next trial, without what the last trial added") {
  WorkDir work;
  auto folders = reusing(work);
  auto folder = prepared(work, "workers/worker-1/trial-1-run-1-rank-0");
  const auto model_inode = inode_of(folder.path / "model_def.py");
  std::ofstream(folder.path / "output.log") << "the last trial's\n";
  fs::create_directories(folder.path / ".volador-checkpoints" / "current");
  std::ofstream(folder.path / ".volador-checkpoints" / "current" / "weights") << "w";
  std::ofstream(folder.path / "pkg" / "cache.pyc") << "c";
  folders.keep_for_next(1, std::move(folder));
  CHECK(fs::exists(work.dir / "workers/worker-1/trial-1-run-1-rank-0"));

  const auto next = work.dir / "workers/worker-1/trial-2-run-1-rank-0";
  auto reused = folders.reuse(1, archive_key("archive-1"), next);
  REQUIRE(reused);
  CHECK(reused->path == next);
  CHECK_FALSE(fs::exists(work.dir / "workers/worker-1/trial-1-run-1-rank-0"));
  std::set<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(next)) names.insert(entry.path().lexically_relative(next).string());
  CHECK(names == std::set<std::string>{"model_def.py", "pkg", "pkg/model.py", "volador-trial.json"});
  CHECK(text_of(next / "model_def.py") == "x = 1\n");
  CHECK(inode_of(next / "model_def.py") == model_inode);  // kept, not made again
  CHECK_FALSE(folders.reuse(1, archive_key("archive-1"), next));  // taken: the next trial's is made again
}

TEST_CASE("A folder whose model definition a trial changed is never reused, however it was changed") {
  WorkDir work;
  auto folders = reusing(work);
  const std::vector<std::pair<std::string, std::function<void(const fs::path&)>>> changes{
      {"rewritten, same size", [](const fs::path& dir) { std::ofstream(dir / "model_def.py") << "x = 2\n"; }},
      {"appended to", [](const fs::path& dir) { std::ofstream(dir / "pkg" / "model.py", std::ios::app) << "z = 3\n"; }},
      {"removed", [](const fs::path& dir) { fs::remove(dir / "pkg" / "model.py"); }},
      {"replaced", [](const fs::path& dir) {
         std::ofstream(dir / "new.py") << "x = 1\n";
         fs::rename(dir / "new.py", dir / "model_def.py");
       }},
      {"made executable", [](const fs::path& dir) { fs::permissions(dir / "model_def.py", fs::perms::owner_exec, fs::perm_options::add); }},
      {"a folder's mode", [](const fs::path& dir) { fs::permissions(dir / "pkg", fs::perms::others_all, fs::perm_options::remove); }},
      {"the working folder's mode", [](const fs::path& dir) { fs::permissions(dir, fs::perms::others_all, fs::perm_options::remove); }},
      {"the trial file", [](const fs::path& dir) { std::ofstream(dir / "volador-trial.json") << "{}"; }},
      {"a folder swapped for a symlink to its copy", [](const fs::path& dir) {
         fs::copy(dir / "pkg", dir / "pkg-copy", fs::copy_options::recursive);
         fs::remove_all(dir / "pkg");
         fs::create_directory_symlink("pkg-copy", dir / "pkg");
       }},
      {"a file swapped for a folder", [](const fs::path& dir) {
         fs::remove(dir / "model_def.py");
         fs::create_directory(dir / "model_def.py");
       }},
  };
  std::uint64_t worker = 0;
  for (const auto& [name, change] : changes) {
    INFO(name);
    ++worker;
    const auto home = "workers/worker-" + std::to_string(worker);
    auto folder = prepared(work, home + "/trial-1-run-1-rank-0");
    change(folder.path);
    folders.keep_for_next(worker, std::move(folder));
    const auto next = work.dir / home / "trial-2-run-1-rank-0";
    CHECK_FALSE(folders.reuse(worker, archive_key("archive-1"), next));
    CHECK_FALSE(fs::exists(next));
    CHECK_FALSE(fs::exists(work.dir / home / "trial-1-run-1-rank-0"));
  }
}

TEST_CASE("A clean folder is not reused for another model definition, nor kept when reuse is off or its worker ends") {
  WorkDir work;
  auto folders = reusing(work);
  folders.keep_for_next(1, prepared(work, "workers/worker-1/trial-1-run-1-rank-0", "archive-1"));
  CHECK_FALSE(folders.reuse(1, archive_key("archive-2"), work.dir / "workers/worker-1/trial-2-run-1-rank-0"));
  CHECK(fs::is_empty(work.dir / "workers/worker-1"));

  folders.keep_for_next(2, prepared(work, "workers/worker-2/trial-3-run-1-rank-0"));
  folders.worker_ended(2);
  CHECK(fs::is_empty(work.dir / "workers/worker-2"));

  WorkFolders not_reusing({std::chrono::minutes(10), 0, false});
  not_reusing.keep_for_next(3, prepared(work, "workers/worker-3/trial-4-run-1-rank-0"));
  CHECK(fs::is_empty(work.dir / "workers/worker-3"));
}

TEST_CASE("A folder the agent rewrote a file of after preparing it is still reused once that file is refreshed") {
  WorkDir work;
  auto folders = reusing(work);
  auto folder = prepared(work, "workers/worker-1/trial-1-run-1-rank-0");
  std::ofstream(folder.path / "volador-trial.json") << "{\"trial_id\": 2}\n";
  REQUIRE(folder.contents.refresh(folder.path, "volador-trial.json"));
  folders.keep_for_next(1, std::move(folder));
  auto reused = folders.reuse(1, archive_key("archive-1"), work.dir / "workers/worker-1/trial-2-run-1-rank-0");
  REQUIRE(reused);
  CHECK(text_of(reused->path / "volador-trial.json") == "{\"trial_id\": 2}\n");
}

TEST_CASE("A reused folder keeps the names its worker remakes only while they hold nothing a trial could pass on") {
  WorkDir work;
  auto folders = reusing(work, {"scratch.json", ".scratch"});
  const auto outside = work.dir / "outside.txt";
  std::ofstream(outside) << "not the trial's\n";
  struct Left {
    std::string what;
    std::function<void(const fs::path&)> leave;
    bool kept;
  };
  const std::vector<Left> cases{
      {"a file of its own", [](const fs::path& dir) { std::ofstream(dir / "scratch.json") << "{}"; }, true},
      {"folders only", [](const fs::path& dir) { fs::create_directories(dir / ".scratch" / "current"); }, true},
      {"a symlink", [&](const fs::path& dir) { fs::create_symlink(outside, dir / "scratch.json"); }, false},
      {"a second link to a file", [&](const fs::path& dir) { fs::create_hard_link(outside, dir / "scratch.json"); }, false},
      {"a folder holding a file", [](const fs::path& dir) {
         fs::create_directories(dir / ".scratch" / "current");
         std::ofstream(dir / ".scratch" / "current" / "weights") << "w";
       }, false},
      {"a folder holding a symlink", [&](const fs::path& dir) {
         fs::create_directories(dir / ".scratch");
         fs::create_directory_symlink(work.dir, dir / ".scratch" / "current");
       }, false},
      {"a name not the worker's", [](const fs::path& dir) { fs::create_directories(dir / "other" / "current"); }, false},
      {"a file its owner may not write", [](const fs::path& dir) {
         std::ofstream(dir / "scratch.json") << "{}";
         fs::permissions(dir / "scratch.json", fs::perms::owner_read);
       }, false},
      {"a set-id file", [](const fs::path& dir) {
         std::ofstream(dir / "scratch.json") << "{}";
         fs::permissions(dir / "scratch.json", fs::perms::set_uid, fs::perm_options::add);
       }, false},
      {"a folder its owner may not enter", [](const fs::path& dir) {
         fs::create_directories(dir / ".scratch" / "current");
         fs::permissions(dir / ".scratch" / "current", fs::perms::owner_read | fs::perms::owner_write);
       }, false},
      {"folders only, 32 deep", [](const fs::path& dir) { fs::create_directories(dir / ".scratch" / nested_folders(31)); }, true},
      {"folders only, 33 deep", [](const fs::path& dir) { fs::create_directories(dir / ".scratch" / nested_folders(32)); }, false},
  };
  std::uint64_t worker = 0;
  for (const auto& left : cases) {
    INFO(left.what);
    ++worker;
    const auto home = "workers/worker-" + std::to_string(worker);
    auto folder = prepared(work, home + "/trial-1-run-1-rank-0");
    left.leave(folder.path);
    std::set<std::string> before;
    for (const auto& entry : fs::directory_iterator(folder.path)) before.insert(entry.path().filename().string());
    folders.keep_for_next(worker, std::move(folder));
    const auto next = work.dir / home / "trial-2-run-1-rank-0";
    REQUIRE(folders.reuse(worker, archive_key("archive-1"), next));
    std::set<std::string> after;
    for (const auto& entry : fs::directory_iterator(next)) after.insert(entry.path().filename().string());
    CHECK((after == before) == left.kept);
    CHECK(after.size() == (left.kept ? 4 : 3));  // model_def.py, pkg, the trial file, and what was kept
  }
  CHECK(text_of(outside) == "not the trial's\n");
}
