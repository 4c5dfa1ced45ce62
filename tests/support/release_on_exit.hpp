#pragma once
// A guard for tests that hold a thread on a promise (a journal's writer in a
// batch's completion): it sets the promise at release() or, at the latest,
// when it goes out of scope, so a failed REQUIRE never leaves that thread, or
// a future waiting on it, blocked. Declare it after those futures: it goes first.

#include <future>
#include <utility>

namespace volador::testing {

class ReleaseOnExit {
 public:
  explicit ReleaseOnExit(std::promise<void>& promise) : promise_(&promise) {}
  ~ReleaseOnExit() { release(); }
  ReleaseOnExit(const ReleaseOnExit&) = delete;
  ReleaseOnExit& operator=(const ReleaseOnExit&) = delete;

  // Sets the promise now; once only.
  void release() {
    if (promise_ != nullptr) std::exchange(promise_, nullptr)->set_value();
  }

 private:
  std::promise<void>* promise_;
};

}  // namespace volador::testing
