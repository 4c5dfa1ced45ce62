#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "runtime/process/child_process.hpp"

using namespace volador;
using namespace volador::process;

namespace {

struct Captured {
  std::mutex mutex;
  std::vector<std::pair<std::string, std::string>> lines;
  std::promise<ProcessExit> exit;
  std::thread::id reader;  // the thread that handed over the last line
};

Result<std::unique_ptr<ChildProcess>> run(Captured& c, ProcessSpec spec, ReaderThread* reader = nullptr) {
  return ChildProcess::spawn(
      spec,
      [&c](std::string_view stream, std::string line) {
        std::lock_guard lock(c.mutex);
        c.lines.emplace_back(std::string(stream), std::move(line));
        c.reader = std::this_thread::get_id();
      },
      [&c](ProcessExit e) { c.exit.set_value(e); }, {}, reader);
}

// Waits until the child printed `line` on stdout (the test's timeout bounds it).
bool eventually_printed(Captured& c, const std::string& line) {
  for (;;) {
    {
      std::lock_guard lock(c.mutex);
      for (const auto& [stream, text] : c.lines)
        if (text == line) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// The descriptors this process has open.
std::set<int> open_descriptors() {
  std::set<int> open;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) open.insert(std::stoi(entry.path().filename()));
  std::erase_if(open, [](int fd) { return fcntl(fd, F_GETFD) < 0; });  // the listing's own, closed by now
  return open;
}

// The number below which exactly `count` more descriptors can be opened (new ones take the lowest free numbers).
rlim_t limit_for(std::size_t count) {
  const auto open = open_descriptors();
  int fd = 0;
  for (std::size_t free = 0;; ++fd)
    if (!open.contains(fd) && free++ == count) return static_cast<rlim_t>(fd);
}

// Spawns `spec` while the process may open only `count` more descriptors.
Result<std::unique_ptr<ChildProcess>> spawn_with_descriptors_left(Captured& c, const ProcessSpec& spec,
                                                                  std::size_t count) {
  rlimit saved{};
  getrlimit(RLIMIT_NOFILE, &saved);
  rlimit lowered = saved;
  lowered.rlim_cur = limit_for(count);
  setrlimit(RLIMIT_NOFILE, &lowered);
  auto child = run(c, spec);
  setrlimit(RLIMIT_NOFILE, &saved);
  return child;
}

// Minor page faults this thread took so far.
long minor_faults_of_this_thread() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt;
}

}  // namespace

TEST_CASE("A spawn that runs out of descriptors partway closes those it opened and names the step") {
  ProcessSpec spec{{"true"}, {}, {}};
  spec.channel_variable = "TEST_CHANNEL";
  // Two descriptors each, in this order.
  const char* steps[] = {"stdout", "stderr", "messages to the child", "messages from the child"};
  for (std::size_t left = 0; left < 8; ++left) {
    INFO(left << " descriptors left");
    const auto before = open_descriptors();
    Captured c;
    auto child = spawn_with_descriptors_left(c, spec, left);
    REQUIRE_FALSE(child.has_value());
    CHECK(child.error().code == ErrorCode::io);
    CHECK_THAT(child.error().message, Catch::Contains(steps[left / 2]) && Catch::Contains("Too many open files"));
    CHECK(open_descriptors() == before);
  }
}

TEST_CASE("Lines of stdout and stderr are captured, with the exit code and environment") {
  Captured c;
  auto child = run(c, {{"sh", "-c", "echo out1; echo err1 >&2; printf \"tail-$VOLADOR_X\"; exit 3"},
                       {{"VOLADOR_X", "42"}}, {}});
  REQUIRE(child.has_value());
  auto exit = c.exit.get_future().get();
  CHECK(exit.exit_code == 3);
  CHECK(exit.signal == 0);
  std::lock_guard lock(c.mutex);
  CHECK(std::count(c.lines.begin(), c.lines.end(), std::pair<std::string, std::string>{"stdout", "out1"}) == 1);
  CHECK(std::count(c.lines.begin(), c.lines.end(), std::pair<std::string, std::string>{"stderr", "err1"}) == 1);
  CHECK(std::count(c.lines.begin(), c.lines.end(), std::pair<std::string, std::string>{"stdout", "tail-42"}) == 1);
}

TEST_CASE("The child gets the parent's environment with the spec's variables over it, each name once") {
  ::setenv("VOLADOR_TEST_PARENT", "from-parent", 1);
  ::setenv("VOLADOR_TEST_OVERRIDDEN", "old", 1);
  Captured c;
  auto child = run(c, {{"sh", "-c", "echo \"$VOLADOR_TEST_PARENT/$VOLADOR_TEST_OVERRIDDEN/$VOLADOR_TEST_NEW\"; "
                                    "env | grep -c '^VOLADOR_TEST_OVERRIDDEN='"},
                       {{"VOLADOR_TEST_OVERRIDDEN", "new"}, {"VOLADOR_TEST_NEW", "added"}}, {}});
  ::unsetenv("VOLADOR_TEST_PARENT");
  ::unsetenv("VOLADOR_TEST_OVERRIDDEN");
  REQUIRE(child.has_value());
  CHECK(c.exit.get_future().get().exit_code == 0);
  std::lock_guard lock(c.mutex);
  REQUIRE(c.lines.size() == 2);
  CHECK(c.lines[0] == std::pair<std::string, std::string>{"stdout", "from-parent/new/added"});
  CHECK(c.lines[1] == std::pair<std::string, std::string>{"stdout", "1"});
}

TEST_CASE("kill ends the child and what it started, reporting the signal") {
  Captured c;
  auto child = run(c, {{"sh", "-c", "sleep 30 & sleep 30"}, {}, {}});
  REQUIRE(child.has_value());
  (*child)->kill(SIGKILL);
  auto exit = c.exit.get_future().get();  // returns only once both sleeps closed the pipes
  CHECK(exit.exit_code == -1);
  CHECK(exit.signal == SIGKILL);
}

TEST_CASE("A program that cannot be started is an error naming it") {
  Captured c;
  auto child = run(c, {{"/nonexistent/volador-worker"}, {}, {}});
  REQUIRE_FALSE(child.has_value());
  CHECK(child.error().message.find("/nonexistent/volador-worker") != std::string::npos);
  CHECK(child.error().message.find("No such file") != std::string::npos);
}

TEST_CASE("A missing working folder is an error naming it") {
  Captured c;
  auto child = run(c, {{"true"}, {}, "/nonexistent-dir"});
  REQUIRE_FALSE(child.has_value());
  CHECK(child.error().message.find("/nonexistent-dir") != std::string::npos);
}

TEST_CASE("A child that exits while a process it started holds its output is reported all the same") {
  Captured c;
  auto child = run(c, {{"sh", "-c", "sleep 300 & echo $!; echo done"}, {}, {}});
  REQUIRE(child.has_value());
  auto exit = c.exit.get_future().get();  // before the fix: only once the sleep ended, 300 s later
  CHECK(exit.exit_code == 0);
  std::lock_guard lock(c.mutex);
  REQUIRE(c.lines.size() == 2);
  CHECK(c.lines[1] == std::pair<std::string, std::string>{"stdout", "done"});
  ::kill(std::stoi(c.lines[0].second), SIGKILL);
}

TEST_CASE("terminate asks with SIGTERM first") {
  Captured c;
  auto child = run(c, {{"sh", "-c", "echo ready; exec sleep 300"}, {}, {}});
  REQUIRE(child.has_value());
  REQUIRE(eventually_printed(c, "ready"));
  (*child)->terminate();
  auto exit = c.exit.get_future().get();
  CHECK(exit.signal == SIGTERM);
}

TEST_CASE("terminate kills a child that ignores SIGTERM once the grace has passed") {
  Captured c;
  ProcessSpec spec{{"sh", "-c", "trap '' TERM; echo ready; exec sleep 300"}, {}, {}};
  spec.stop_grace = std::chrono::milliseconds(50);
  auto child = run(c, spec);
  REQUIRE(child.has_value());
  REQUIRE(eventually_printed(c, "ready"));
  (*child)->terminate();
  auto exit = c.exit.get_future().get();
  CHECK(exit.signal == SIGKILL);
}

TEST_CASE("A spawn leaves the parent's memory as it was: writing it afterwards takes no copy-on-write fault") {
  // fork() would write-protect every private page of the parent, each copied
  // or faulted back on its next write: in a worker or an agent, once per trial.
  constexpr std::size_t kPages = 4096;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* mapped = mmap(nullptr, kPages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(mapped != MAP_FAILED);
  madvise(mapped, kPages * page, MADV_NOHUGEPAGE);  // one fault per page, never one per huge page
  auto* memory = static_cast<char*>(mapped);
  for (std::size_t i = 0; i < kPages; ++i) memory[i * page] = 1;
  Captured c;
  const auto before = minor_faults_of_this_thread();
  auto child = run(c, {{"true"}, {}, {}});
  REQUIRE(child.has_value());
  for (std::size_t i = 0; i < kPages; ++i) memory[i * page] = 2;
  const auto faults = minor_faults_of_this_thread() - before;
  CHECK(c.exit.get_future().get().exit_code == 0);
  munmap(mapped, kPages * page);
  CHECK(faults < static_cast<long>(kPages / 4));
}

TEST_CASE("Children started one after another on a thread, and on several threads at once, each run as asked") {
  // A thread's children start on one stack, kept from child to child.
  // Catch's assertions are for the test's thread: the others say what went wrong.
  auto run_in_turn = [](int thread) -> std::string {
    for (int i = 0; i < 20; ++i) {
      Captured c;
      const auto word = std::to_string(thread) + "-" + std::to_string(i);
      auto child = run(c, {{"sh", "-c", "echo $0 $VOLADOR_WORD; exit 7", word}, {{"VOLADOR_WORD", word}}, {}});
      if (!child) return word + ": " + child.error().message;
      if (c.exit.get_future().get().exit_code != 7) return word + ": not exit code 7";
      std::lock_guard lock(c.mutex);
      if (c.lines != std::vector<std::pair<std::string, std::string>>{{"stdout", word + " " + word}})
        return word + ": not the line '" + word + " " + word + "'";
    }
    return "";
  };
  std::vector<std::future<std::string>> threads;
  for (int thread = 0; thread < 4; ++thread) threads.push_back(std::async(std::launch::async, run_in_turn, thread));
  for (auto& thread : threads) CHECK(thread.get() == "");
}

TEST_CASE("Children started one after another read their output on one reader thread, a child started while it is busy on its own") {
  ReaderThread reader;
  std::thread::id shared;
  for (int i = 0; i < 5; ++i) {
    Captured c;
    auto child = run(c, {{"sh", "-c", "echo turn $0; exit 3", std::to_string(i)}, {}, {}}, &reader);
    REQUIRE(child.has_value());
    CHECK(c.exit.get_future().get().exit_code == 3);
    std::lock_guard lock(c.mutex);
    CHECK(c.lines == std::vector<std::pair<std::string, std::string>>{{"stdout", "turn " + std::to_string(i)}});
    if (i == 0) shared = c.reader;
    CHECK(c.reader == shared);
  }
  Captured busy;
  auto long_running = run(busy, {{"sh", "-c", "echo waiting; exec sleep 30"}, {}, {}}, &reader);
  REQUIRE(long_running.has_value());
  CHECK(eventually_printed(busy, "waiting"));
  Captured meanwhile;
  auto other = run(meanwhile, {{"sh", "-c", "echo meanwhile"}, {}, {}}, &reader);
  REQUIRE(other.has_value());
  CHECK(meanwhile.exit.get_future().get().exit_code == 0);
  {
    std::lock_guard lock(meanwhile.mutex);
    CHECK(meanwhile.lines == std::vector<std::pair<std::string, std::string>>{{"stdout", "meanwhile"}});
    CHECK(meanwhile.reader != shared);
  }
  (*long_running)->kill(SIGKILL);
  CHECK(busy.exit.get_future().get().signal == SIGKILL);
  CHECK(busy.reader == shared);
}
