#pragma once
// The name a rank worker's certificate carries: which experiment, trial, run
// and rank it was issued for. The master issues one per rank launch
// (CertificateAuthority::issue_rank) and lets a peer presenting it do only
// what a rank of that experiment does (master/peer_authorization.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace volador::tls {

struct RankName {
  std::uint64_t experiment_id = 0;
  std::uint64_t trial_id = 0;
  std::uint32_t run_id = 0;
  std::uint32_t rank = 0;

  // "rank:EXPERIMENT:TRIAL:RUN.RANK", the certificate's subject common name.
  // The colon sets it apart from every node name (check_node_name refuses colons).
  [[nodiscard]] std::string common_name() const;

  bool operator==(const RankName&) const = default;
};

// The rank a common name names; nullopt for any other name (a node's, or a malformed one).
std::optional<RankName> parse_rank_name(std::string_view common_name);

}  // namespace volador::tls
