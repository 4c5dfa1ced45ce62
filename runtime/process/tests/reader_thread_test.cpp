#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "runtime/process/reader_thread.hpp"

using volador::process::ReaderThread;
using namespace std::chrono_literals;

TEST_CASE("A reader thread runs loops one after another on the same thread, numbering the runs") {
  ReaderThread reader;
  std::thread::id first_thread, second_thread;
  auto first = reader.try_run([&] { first_thread = std::this_thread::get_id(); });
  REQUIRE(first.has_value());
  reader.wait(*first);
  auto second = reader.try_run([&] { second_thread = std::this_thread::get_id(); });
  REQUIRE(second.has_value());
  reader.wait(*second);
  CHECK(*second == *first + 1);
  CHECK(first_thread == second_thread);
  CHECK(first_thread != std::this_thread::get_id());
}

TEST_CASE("A reader thread refuses a loop while one runs, and waiting for a run waits for its loop") {
  ReaderThread reader;
  std::promise<void> release;
  std::atomic<bool> returned{false};
  auto busy = reader.try_run([&, gate = release.get_future().share()] {
    gate.wait();
    returned = true;
  });
  REQUIRE(busy.has_value());
  bool ran = false;
  CHECK_FALSE(reader.try_run([&] { ran = true; }).has_value());
  auto waiter = std::async(std::launch::async, [&] { reader.wait(*busy); });
  CHECK(waiter.wait_for(50ms) == std::future_status::timeout);
  release.set_value();
  waiter.get();
  CHECK(returned);
  CHECK_FALSE(ran);
  auto next = reader.try_run([&] { ran = true; });
  REQUIRE(next.has_value());
  reader.wait(*next);
  CHECK(ran);
}

TEST_CASE("A reader thread ends after the loop it runs") {
  std::atomic<bool> returned{false};
  {
    ReaderThread reader;
    REQUIRE(reader.try_run([&] {
      std::this_thread::sleep_for(30ms);
      returned = true;
    }));
  }
  CHECK(returned);
}
