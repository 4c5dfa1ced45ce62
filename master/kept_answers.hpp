#pragma once
// Encoded answers about one experiment, kept under the read model's version
// of it (ReadModel::version) they were made at: asked again while nothing in
// that experiment changed, an experiment's 10,000 trials (3 MB) are neither
// copied out of the model nor encoded again. At most kMaxKeptBytes in all
// (then all are dropped and kept anew). Not thread-safe: one owner (the
// summary query actor).

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>

#include "master/read_model.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::master {

class KeptAnswers {
 public:
  enum class Question { experiment, trials };
  static constexpr std::size_t kMaxKeptBytes = 64u << 20;

  // The encoded answer to `question` about `experiment_id` (0: every
  // experiment): kept from an earlier call when the model's version for it
  // is unchanged, else make() (Result<Message>) encoded; make()'s error.
  template <class Make>
  Result<wire::Bytes> answer(const ReadModel& summaries, Question question, std::uint64_t experiment_id, Make make) {
    const auto version = summaries.version(experiment_id);  // before the answer: a later change is seen next time
    const Key key{question, experiment_id};
    if (auto kept = kept_.find(key); kept != kept_.end() && kept->second.first == version) return kept->second.second;
    auto made = make();
    if (!made) return fail(made.error());
    auto bytes = wire::encode(*made);
    keep(key, version, bytes);
    return bytes;
  }

 private:
  using Key = std::pair<Question, std::uint64_t>;

  void keep(const Key& key, std::uint64_t version, const wire::Bytes& bytes) {
    if (auto old = kept_.find(key); old != kept_.end()) {
      kept_bytes_ -= old->second.second.size();
      kept_.erase(old);
    }
    if (kept_bytes_ + bytes.size() > kMaxKeptBytes) {
      kept_.clear();
      kept_bytes_ = 0;
    }
    kept_bytes_ += bytes.size();
    kept_.emplace(key, std::make_pair(version, bytes));
  }

  std::map<Key, std::pair<std::uint64_t, wire::Bytes>> kept_;
  std::size_t kept_bytes_ = 0;
};

}  // namespace volador::master
