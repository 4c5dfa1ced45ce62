#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <future>
#include <mutex>
#include <string>

#include "runtime/process/child_process.hpp"
#include "runtime/process/message_channel.hpp"

using namespace volador;
using namespace volador::process;

namespace {

Message text(const std::string& s) { return Message(s.begin(), s.end()); }

// A child that writes 200 stderr lines and 200 stdout lines, then sends
// "after-400", then echoes each message it receives with "echo:" in front
// until the parent closes its end.
constexpr const char* kEchoChild = R"(
import os, struct, sys
r, w = (int(fd) for fd in os.environ["TEST_CHANNEL"].split(","))
def send(data):
    os.write(w, struct.pack("<I", len(data)) + data)
def receive():
    def exactly(n):
        out = b""
        while len(out) < n:
            chunk = os.read(r, n - len(out))
            if not chunk: return None
            out += chunk
        return out
    header = exactly(4)
    return None if header is None else exactly(struct.unpack("<I", header)[0])
for i in range(200):
    print(f"err {i}", file=sys.stderr, flush=True)
    print(f"out {i}", flush=True)
send(b"after-400")
while (message := receive()) is not None:
    send(b"echo:" + message)
)";

}  // namespace

TEST_CASE("A FrameReader cuts messages split anywhere and refuses an oversized frame") {
  const auto one = frame_message(text("hello")), two = frame_message(text(""));
  std::vector<char> stream(one.begin(), one.end());
  stream.insert(stream.end(), two.begin(), two.end());
  FrameReader reader;
  std::vector<Message> got;
  for (char c : stream) {
    reader.append(&c, 1);
    auto next = reader.next();
    REQUIRE(next.has_value());
    if (*next) got.push_back(**next);
  }
  REQUIRE(got == std::vector<Message>{text("hello"), text("")});

  FrameReader bad;
  const char huge[4] = {'\xff', '\xff', '\xff', '\x7f'};
  bad.append(huge, 4);
  auto refused = bad.next();
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == ErrorCode::corruption);
}

TEST_CASE("A MessageChannel found through its variable sends and receives whole messages, and sees the end") {
  int to_child[2], from_child[2];
  REQUIRE(pipe(to_child) == 0);
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, from_child) == 0);
  setenv("TEST_CHANNEL_VAR", (std::to_string(to_child[0]) + "," + std::to_string(from_child[1])).c_str(), 1);
  auto found = MessageChannel::from_environment("TEST_CHANNEL_VAR");
  REQUIRE(found.has_value());
  REQUIRE(found->has_value());
  auto& channel = **found;

  const auto framed = frame_message(text("from the parent"));
  REQUIRE(write(to_child[1], framed.data(), framed.size()) == static_cast<ssize_t>(framed.size()));
  auto received = channel.receive();
  REQUIRE(received.has_value());
  REQUIRE(*received == text("from the parent"));

  REQUIRE(channel.send(text("from the child")));
  char buffer[64];
  const auto n = read(from_child[0], buffer, sizeof buffer);
  FrameReader reader;
  reader.append(buffer, static_cast<std::size_t>(n));
  CHECK(*reader.next() == text("from the child"));

  close(to_child[1]);
  auto end = channel.receive();
  REQUIRE(end.has_value());
  CHECK_FALSE(end->has_value());
  close(from_child[0]);

  setenv("TEST_CHANNEL_VAR", "7,nope", 1);
  CHECK_FALSE(MessageChannel::from_environment("TEST_CHANNEL_VAR").has_value());
  unsetenv("TEST_CHANNEL_VAR");
  auto unset = MessageChannel::from_environment("TEST_CHANNEL_VAR");
  REQUIRE(unset.has_value());
  CHECK_FALSE(unset->has_value());
}

TEST_CASE("A child's send to a parent that closed its end is an error, not SIGPIPE") {
  int to_child[2], from_child[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, to_child) == 0);
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, from_child) == 0);
  setenv("TEST_CHANNEL_VAR", (std::to_string(to_child[0]) + "," + std::to_string(from_child[1])).c_str(), 1);
  auto found = MessageChannel::from_environment("TEST_CHANNEL_VAR");
  unsetenv("TEST_CHANNEL_VAR");
  REQUIRE(found.has_value());
  REQUIRE(found->has_value());
  close(from_child[0]);  // the parent is gone
  const pid_t writer = fork();  // SIGPIPE's default action would end the test's process itself
  if (writer == 0) {
    auto sent = (*found)->send(text("to nobody"));
    _exit(!sent && sent.error().code == ErrorCode::io ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(writer, &status, 0) == writer);
  CHECK_FALSE(WIFSIGNALED(status));
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  close(to_child[1]);
}

TEST_CASE("A channel whose write end is not a socket is refused: a write to it could raise SIGPIPE") {
  int to_child[2], from_child[2];
  REQUIRE(pipe(to_child) == 0);
  REQUIRE(pipe(from_child) == 0);
  setenv("TEST_CHANNEL_VAR", (std::to_string(to_child[0]) + "," + std::to_string(from_child[1])).c_str(), 1);
  auto found = MessageChannel::from_environment("TEST_CHANNEL_VAR");
  unsetenv("TEST_CHANNEL_VAR");
  REQUIRE_FALSE(found.has_value());
  CHECK(found.error().code == ErrorCode::invalid_argument);
  CHECK_THAT(found.error().message, Catch::Contains("TEST_CHANNEL_VAR") && Catch::Contains("socket"));
  for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) close(fd);
}

TEST_CASE("A spawned child's channel to its parent is a socket") {
  std::promise<ProcessExit> exit;
  std::mutex mutex;
  std::vector<std::string> lines;
  auto child = ChildProcess::spawn(
      {{"python3", "-c",
        "import os, stat; w = int(os.environ['TEST_CHANNEL'].split(',')[1]); print(stat.S_ISSOCK(os.fstat(w).st_mode))"},
       {}, {}, std::chrono::milliseconds(1000), "TEST_CHANNEL"},
      [&](std::string_view, std::string line) {
        std::lock_guard lock(mutex);
        lines.push_back(std::move(line));
      },
      [&](ProcessExit e) { exit.set_value(e); });
  REQUIRE(child.has_value());
  CHECK(exit.get_future().get().exit_code == 0);
  std::lock_guard lock(mutex);
  CHECK(lines == std::vector<std::string>{"True"});
}

TEST_CASE("A child's message reaches the parent after every line it wrote before it, and answers come back") {
  std::mutex mutex;
  std::size_t lines = 0;
  std::vector<std::pair<std::string, std::size_t>> messages;  // each with the lines seen when it arrived
  std::promise<void> first, echoed;
  std::promise<ProcessExit> exit;
  auto child = ChildProcess::spawn(
      {{"python3", "-c", kEchoChild}, {}, {}, std::chrono::milliseconds(1000), "TEST_CHANNEL"},
      [&](std::string_view, std::string) {
        std::lock_guard lock(mutex);
        ++lines;
      },
      [&](ProcessExit e) { exit.set_value(e); },
      [&](Message message) {
        std::lock_guard lock(mutex);
        messages.emplace_back(std::string(message.begin(), message.end()), lines);
        (messages.size() == 1 ? first : echoed).set_value();
      });
  REQUIRE(child.has_value());
  first.get_future().get();
  REQUIRE((*child)->send_message(text("ping")));
  echoed.get_future().get();
  std::lock_guard lock(mutex);
  REQUIRE(messages.size() == 2);
  CHECK(messages[0] == std::pair<std::string, std::size_t>{"after-400", 400});
  CHECK(messages[1].first == "echo:ping");
}

TEST_CASE("send_message without a channel is refused") {
  std::promise<ProcessExit> exit;
  auto child = ChildProcess::spawn({{"true"}, {}, {}}, [](std::string_view, std::string) {},
                                   [&](ProcessExit e) { exit.set_value(e); });
  REQUIRE(child.has_value());
  CHECK((*child)->send_message(text("x")).error().code == ErrorCode::unavailable);
  exit.get_future().get();
}
