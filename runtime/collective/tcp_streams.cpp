#include "runtime/collective/tcp_streams.hpp"

#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include "runtime/collective/deadline.hpp"
#include "runtime/collective/reduce_kernels.hpp"
#include "runtime/collective/socket.hpp"

namespace volador::collective {

namespace {

constexpr std::size_t kHeaderBytes = sizeof(CallHeader);
constexpr int kMaxIov = 8;

std::size_t bytes_of(std::span<const std::byte> part) { return part.size(); }
std::size_t bytes_of(const RecvPart& part) { return part.dst.size(); }

template <class Part>
std::size_t drop_empty(std::vector<Part>& parts) {
  std::erase_if(parts, [](const Part& p) { return bytes_of(p) == 0; });
  std::size_t total = 0;
  for (const auto& p : parts) total += bytes_of(p);
  return total;
}

bool finished(const RecvStream& r) { return r.header_done == kHeaderBytes && r.done == r.total; }
bool finished(const SendStream& s) { return s.header_done == kHeaderBytes && s.done == s.total; }

std::size_t sendable(const SendStream& s) {
  std::size_t limit = s.lead;
  if (s.gate != nullptr) limit = s.lead > s.total ? s.total : s.lead + std::min(s.gate->done, s.total);
  return std::min(limit, s.total);
}

Error lost(const char* what, int peer, int err) {
  return Error::unavailable("connection to rank " + std::to_string(peer) + " lost (" + what + ": " + errno_text(err) + ")");
}

// Collects the next iovecs of a send stream, up to what the gate allows.
int gather_send(SendStream& s, std::array<iovec, kMaxIov>& iov) {
  int k = 0;
  if (s.header_done < kHeaderBytes) {
    iov[k++] = {reinterpret_cast<std::byte*>(&s.header) + s.header_done, kHeaderBytes - s.header_done};
  }
  std::size_t budget = sendable(s) - s.done;
  std::size_t part = s.part, offset = s.part_done;
  while (budget > 0 && k < kMaxIov && part < s.parts.size()) {
    const std::size_t take = std::min(budget, s.parts[part].size() - offset);
    iov[k++] = {const_cast<std::byte*>(s.parts[part].data() + offset), take};
    budget -= take;
    ++part;
    offset = 0;
  }
  return k;
}

void advance(SendStream& s, std::size_t n) {
  const std::size_t header = std::min(n, kHeaderBytes - s.header_done);
  s.header_done += header;
  n -= header;
  s.done += n;
  while (n > 0) {
    const std::size_t take = std::min(n, s.parts[s.part].size() - s.part_done);
    s.part_done += take;
    n -= take;
    if (s.part_done == s.parts[s.part].size()) {
      ++s.part;
      s.part_done = 0;
    }
  }
}

// One sendmsg. Ok(true) when bytes moved, Ok(false) when blocked.
Result<bool> step_send(SendStream& s) {
  std::array<iovec, kMaxIov> iov{};
  const int k = gather_send(s, iov);
  if (k == 0) return false;
  msghdr msg{};
  msg.msg_iov = iov.data();
  msg.msg_iovlen = static_cast<std::size_t>(k);
  const ssize_t n = ::sendmsg(s.fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n < 0) {
    if (errno == EAGAIN || errno == EINTR) return false;
    return fail(lost("send", s.peer, errno));
  }
  advance(s, static_cast<std::size_t>(n));
  return true;
}

// Where the next received payload bytes go: the current part, or the scratch for adds.
iovec recv_target(RecvStream& r) {
  if (r.part >= r.parts.size()) return {nullptr, 0};
  const RecvPart& p = r.parts[r.part];
  if (!p.add) return {p.dst.data() + r.part_done, p.dst.size() - r.part_done};
  auto scratch = std::as_writable_bytes(r.scratch);
  const std::size_t unstaged = p.dst.size() - r.part_done - r.staged;
  return {scratch.data() + r.staged, std::min(scratch.size() - r.staged, unstaged)};
}

// Adds the whole floats staged in scratch into the current part.
void fold_staged(RecvStream& r) {
  const RecvPart& p = r.parts[r.part];
  const std::size_t whole = r.staged / sizeof(float) * sizeof(float);
  add_into(reinterpret_cast<float*>(p.dst.data() + r.part_done), r.scratch.data(), whole / sizeof(float), p.scale);
  auto scratch = std::as_writable_bytes(r.scratch);
  std::memmove(scratch.data(), scratch.data() + whole, r.staged - whole);
  r.staged -= whole;
  r.part_done += whole;
  r.done += whole;
}

void take_payload(RecvStream& r, std::size_t n) {
  if (r.parts[r.part].add) {
    r.staged += n;
    fold_staged(r);
  } else {
    r.part_done += n;
    r.done += n;
  }
  if (r.part_done == r.parts[r.part].dst.size()) {
    ++r.part;
    r.part_done = 0;
  }
}

Status take_header(RecvStream& r, std::size_t n) {
  r.header_done += n;
  if (r.header_done == kHeaderBytes && !(r.got == r.expected)) {
    return fail(Error::invalid_argument("rank " + std::to_string(r.peer) + " is in " + describe(r.got) +
                                        ", this rank in " + describe(r.expected)));
  }
  return {};
}

// One readv. Ok(true) when bytes moved, Ok(false) when nothing was there.
Result<bool> step_recv(RecvStream& r) {
  std::array<iovec, 2> iov{};
  int k = 0;
  if (r.header_done < kHeaderBytes) {
    iov[k++] = {reinterpret_cast<std::byte*>(&r.got) + r.header_done, kHeaderBytes - r.header_done};
  }
  if (const iovec target = recv_target(r); target.iov_len > 0) iov[k++] = target;
  if (k == 0) return fail(Error::internal("receive from rank " + std::to_string(r.peer) + " has no room (no scratch?)"));
  const ssize_t n = ::readv(r.fd, iov.data(), k);
  if (n == 0) return fail(Error::unavailable("rank " + std::to_string(r.peer) + " closed its connection"));
  if (n < 0) {
    if (errno == EAGAIN || errno == EINTR) return false;
    return fail(lost("recv", r.peer, errno));
  }
  auto got = static_cast<std::size_t>(n);
  const std::size_t header = std::min(got, kHeaderBytes - r.header_done);
  if (header > 0) {
    if (auto ok = take_header(r, header); !ok) return fail(ok.error());
  }
  if (got > header) take_payload(r, got - header);
  return true;
}

std::string waiting_on(std::span<const SendStream> sends, std::span<const RecvStream> recvs) {
  std::vector<int> peers;
  for (const auto& r : recvs) if (!finished(r)) peers.push_back(r.peer);
  for (const auto& s : sends) if (!finished(s)) peers.push_back(s.peer);
  std::ranges::sort(peers);
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
  std::string out;
  for (int p : peers) out += (out.empty() ? "" : ", ") + std::to_string(p);
  return out;
}

// One pass over every stream (sends first: a receive is rarely ready before
// this rank has sent); adds the blocked ones to `waits`.
Result<bool> step_all(std::span<SendStream> sends, std::span<RecvStream> recvs, std::vector<pollfd>& waits) {
  bool moved = false;
  for (auto& s : sends) {
    if (finished(s)) continue;
    auto step = step_send(s);
    if (!step) return fail(step.error());
    if (*step) moved = true; else if (sendable(s) > s.done || s.header_done < kHeaderBytes) waits.push_back({s.fd, POLLOUT, 0});
  }
  for (auto& r : recvs) {
    if (finished(r)) continue;
    auto step = step_recv(r);
    if (!step) return fail(step.error());
    if (*step) moved = true; else waits.push_back({r.fd, POLLIN, 0});
  }
  return moved;
}

}  // namespace

Status pump(std::span<SendStream> sends, std::span<RecvStream> recvs, std::chrono::milliseconds stall,
            SpinPolicy& spin) {
  for (auto& s : sends) s.total = drop_empty(s.parts);
  for (auto& r : recvs) r.total = drop_empty(r.parts);
  Deadline deadline(stall);
  std::vector<pollfd> waits;
  Backoff backoff(spin);
  for (;;) {
    waits.clear();
    auto moved = step_all(sends, recvs, waits);
    if (!moved) return fail(moved.error());
    if (*moved) {
      deadline.extend();
      backoff.restart();
      continue;
    }
    const bool all_done = std::ranges::all_of(sends, [](const auto& s) { return finished(s); }) &&
                          std::ranges::all_of(recvs, [](const auto& r) { return finished(r); });
    if (all_done) return {};
    if (waits.empty()) return fail(Error::internal("a gated send waits on a finished receive"));
    const Backoff::Step step = backoff.next();
    if (step == Backoff::Step::spin && waits.size() == 1) continue;  // retrying the one call beats poll + call
    const int rc = ::poll(waits.data(), waits.size(), step == Backoff::Step::block ? deadline.poll_ms() : 0);
    if (rc == 0 && step == Backoff::Step::yield) ::sched_yield();
    if (rc == 0 && step == Backoff::Step::block) {
      return fail(Error::unavailable("no progress for " + std::to_string(stall.count()) + " ms waiting on rank(s) " +
                                     waiting_on(sends, recvs)));
    }
    if (rc < 0 && errno != EINTR) return fail(Error::io("poll: " + errno_text(errno)));
  }
}

}  // namespace volador::collective
