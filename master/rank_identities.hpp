#pragma once
// The identities rank launches carry (thread-safe: trial actors share it).
// A rank's rights on the master come from its certificate's experiment
// (peer_authorization.hpp) and its run from the launch's token, so the
// launches of one experiment on one agent share one identity until half its
// validity is gone, instead of a new key and signature per launch (which a
// warm worker, keeping the identity it started with, never used). Kept for
// at most a bounded number of (experiment, agent) pairs, the oldest dropped.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "runtime/core/clock.hpp"
#include "runtime/tls/identity.hpp"
#include "runtime/tls/rank_name.hpp"

namespace volador::master {

class RankIdentities {
 public:
  // Signs a new identity for a rank, valid for the validity given below (CertificateAuthority::issue_rank).
  using Issue = std::function<Result<tls::Identity>(const tls::RankName&)>;

  RankIdentities(Issue issue, std::chrono::milliseconds validity, Clock clock, std::size_t capacity = 4096);

  // The identity for launching `rank` on `agent_id`: the one issued for its
  // experiment there, while more than half its validity is left, else a new one.
  Result<tls::Identity> for_launch(const std::string& agent_id, const tls::RankName& rank);

 private:
  struct Issued {
    tls::Identity identity;
    std::int64_t issued_at_ms = 0;
  };
  using Key = std::pair<std::uint64_t, std::string>;  // experiment, agent
  void drop_oldest();

  Issue issue_;
  std::int64_t renew_after_ms_;
  Clock clock_;
  std::size_t capacity_;
  std::mutex mutex_;
  std::map<Key, Issued> issued_;
};

}  // namespace volador::master
