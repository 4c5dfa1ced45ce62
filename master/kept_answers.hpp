#pragma once
// Serialized answers about one experiment, kept under the read model's
// version of it (ReadModel::version) they were made at: asked again while
// nothing in that experiment changed, an experiment's 10,000 trials (3 MB)
// are neither copied out of the model nor serialized again. An answer is
// kept only once it was asked twice at one version (the first ask leaves a
// mark of the version alone): an answer asked once, as a search's trial list
// at its end usually is, would otherwise hold its text (~0.4 KB a trial) in
// the master until the bound, for nothing. `Text` is what an answer is
// serialized to (wire::Bytes for the query actors, JSON text for the HTTP
// API). At most kMaxKeptBytes in all, marks included (then all are dropped
// and kept anew). Thread-safe.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "master/read_model.hpp"

namespace volador::master {

template <class Text>
class KeptAnswers {
 public:
  enum class Question { experiment, trials };
  static constexpr std::size_t kMaxKeptBytes = 64u << 20;
  using Answer = std::shared_ptr<const Text>;

  // The answer to `question` about `experiment_id` (0: every experiment):
  // kept from an earlier call when the model's version for it is unchanged,
  // else serialize(*make()) (make() gives a Result); make()'s error.
  template <class Make, class Serialize>
  Result<Answer> answer(const ReadModel& summaries, Question question, std::uint64_t experiment_id, Make make,
                        Serialize serialize) {
    const auto version = summaries.version(experiment_id);  // before the answer: a later change is seen next time
    const Key key{question, experiment_id};
    {
      std::lock_guard lock(mutex_);
      if (auto kept = kept_.find(key); kept != kept_.end() && kept->second.version == version && kept->second.text)
        return kept->second.text;
    }
    auto made = make();
    if (!made) return fail(made.error());
    auto text = std::make_shared<const Text>(serialize(*made));
    keep(key, version, text);
    return text;
  }

  // Bytes held: the kept texts and the marks of answers asked once.
  [[nodiscard]] std::size_t kept_bytes() const {
    std::lock_guard lock(mutex_);
    return kept_bytes_;
  }

 private:
  using Key = std::pair<Question, std::uint64_t>;
  // An answer made at `version`; its text once it was asked twice at that version, else none (a mark).
  struct Entry {
    std::uint64_t version = 0;
    Answer text;
  };
  static constexpr std::size_t kMarkBytes = sizeof(Key) + sizeof(Entry);

  static std::size_t bytes_of(const Entry& entry) { return kMarkBytes + (entry.text ? entry.text->size() : 0); }

  // Keeps `text` when the answer was marked at `version` already, else marks it.
  void keep(const Key& key, std::uint64_t version, const Answer& text) {
    std::lock_guard lock(mutex_);
    Entry entry{.version = version};
    if (auto old = kept_.find(key); old != kept_.end()) {
      if (old->second.version == version) entry.text = text;
      kept_bytes_ -= bytes_of(old->second);
      kept_.erase(old);
    }
    if (kept_bytes_ + bytes_of(entry) > kMaxKeptBytes) {
      kept_.clear();
      kept_bytes_ = 0;
    }
    kept_bytes_ += bytes_of(entry);
    kept_.emplace(key, std::move(entry));
  }

  mutable std::mutex mutex_;
  std::map<Key, Entry> kept_;
  std::size_t kept_bytes_ = 0;
};

}  // namespace volador::master
