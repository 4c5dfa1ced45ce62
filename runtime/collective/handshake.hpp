#pragma once
// The first bytes on every data-plane connection. The connector sends a
// hello with the per-trial secret, the group size and its rank; the acceptor
// checks the secret in constant time and the rank, then answers accepted or
// refused (and the caller closes a refused connection). The secret travels
// in the clear: it keeps strays and stale ranks out, it is not encryption.

#include <cstddef>
#include <string_view>

#include "runtime/collective/deadline.hpp"
#include "runtime/core/error.hpp"

namespace volador::collective {

inline constexpr std::size_t kMaxSecretBytes = 256;

// Equal contents, in time that depends only on `expected`'s length.
[[nodiscard]] bool constant_time_equal(std::string_view expected, std::string_view given);

[[nodiscard]] Status send_hello(int fd, std::string_view secret, int size, int rank, Deadline& deadline);
// Reads a hello. Returns the connector's claimed rank when the secret and
// group size match; otherwise answers "refused" and returns error
// invalid_argument saying what differed. The caller answers a valid hello.
[[nodiscard]] Result<int> read_hello(int fd, std::string_view secret, int size, Deadline& deadline);
// Answers a hello read by read_hello: accepted (as rank `my_rank`) or refused.
[[nodiscard]] Status answer_hello(int fd, bool accept, int my_rank, Deadline& deadline);
// Reads the acceptor's answer: Ok when rank `peer` accepted us.
[[nodiscard]] Status await_welcome(int fd, int peer, Deadline& deadline);

}  // namespace volador::collective
