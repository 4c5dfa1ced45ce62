#pragma once
// Which checkpoints model versions register, kept in memory by the Journal so
// that asking about one uuid reads nothing once loaded: loaded from every
// stored version at the first question, then kept current by each version
// the journal writes. Thread-safe.

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/core/error.hpp"
#include "schemas/journal.records.hpp"

namespace volador::storage {

class RegisteredCheckpoints {
 public:
  // Every stored model version (a store read).
  using Loader = std::function<Result<std::vector<ModelVersionRecord>>()>;

  // Whether some version registers `uuid`; the first call loads with `load`
  // (its errors are returned, and the next call loads again).
  [[nodiscard]] Result<bool> contains(std::string_view uuid, const Loader& load);
  // `version` was written to the store (a replaced version's checkpoint
  // stays registered only if another version registers it).
  void written(const ModelVersionRecord& version);

 private:
  void add(const ModelVersionRecord& version);

  std::mutex mutex_;
  bool loaded_ = false;
  std::map<std::pair<std::string, std::uint32_t>, std::string> uuid_of_version_;
  std::map<std::string, std::size_t, std::less<>> versions_of_uuid_;
};

}  // namespace volador::storage
