#include "storage/journal/journal_codec.hpp"

#include <cstring>
#include <utility>

#include <capnp/message.h>
#include <capnp/schema.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include "schemas/journal.records_capnp.hpp"
#include "storage/journal/journal_keys.hpp"

namespace volador::storage::codec {
namespace {

// The Cap'n Proto struct generated for `Record` (see capnpc-records).
template <class Record>
using CapnpType = decltype(capnp_type_of(static_cast<const Record*>(nullptr)));

// Why `record`, read from under `key`, does not belong there; empty when it does.
std::string misplaced(const ExperimentRecord& record, std::string_view key) {
  return record.id == keys::trailing_id(key) ? "" : "holds experiment " + std::to_string(record.id);
}
std::string misplaced(const TrialRecord& record, std::string_view key) {
  return record.id == keys::trailing_id(key) ? "" : "holds trial " + std::to_string(record.id);
}
std::string misplaced(const CheckpointRecord& record, std::string_view key) {
  return key == keys::checkpoint(record.uuid) ? "" : "holds checkpoint " + record.uuid;
}
std::string misplaced(const UserRecord& record, std::string_view key) {
  return key == keys::user(record.name) ? "" : "holds user " + record.name;
}
std::string misplaced(const TokenRecord& record, std::string_view key) {
  return key == keys::token(record.token_hash) ? "" : "holds another token";
}
std::string misplaced(const ExperimentMetadataRecord& record, std::string_view key) {
  return key == keys::experiment_metadata(record.experiment_id) ? "" : "holds experiment " + std::to_string(record.experiment_id);
}
std::string misplaced(const ModelRecord& record, std::string_view key) {
  return key == keys::model(record.name) ? "" : "holds model " + record.name;
}
std::string misplaced(const ModelVersionRecord& record, std::string_view key) {
  return key == keys::model_version(record.model_name, record.version)
             ? ""
             : "holds version " + std::to_string(record.version) + " of model " + record.model_name;
}
// The other records repeat nothing of their key.
template <class Record>
std::string misplaced(const Record&, std::string_view) {
  return {};
}

}  // namespace

std::string_view bytes_of(const Words& words) { return {words.asChars().begin(), words.asChars().size()}; }

Error corrupt(std::string_view key, std::string_view why) {
  return Error::corruption("journal record " + keys::describe(key) + " is corrupt: " + std::string(why));
}

template <class Record>
Result<Words> encode(const Record& record) {
  try {
    capnp::MallocMessageBuilder message;
    write(record, message.initRoot<CapnpType<Record>>());
    return capnp::messageToFlatArray(message);
  } catch (const kj::Exception& e) {
    const std::string name = capnp::Schema::from<CapnpType<Record>>().getShortDisplayName().cStr();
    return fail(Error::invalid_argument("cannot encode " + name + ": " + e.getDescription().cStr()));
  }
}

// Traversal is limited to the value's own size (no pointer amplification),
// nesting to what the schema needs.
template <class Record>
Result<Record> decode(std::string_view key, std::string_view value) {
  constexpr std::size_t word = sizeof(capnp::word);
  if (value.empty() || value.size() % word != 0) {
    return fail(corrupt(key, std::to_string(value.size()) + " bytes is not a whole number of words"));
  }
  auto words = kj::heapArray<capnp::word>(value.size() / word);
  std::memcpy(words.begin(), value.data(), value.size());
  capnp::ReaderOptions options;
  options.traversalLimitInWords = words.size() + 8;
  options.nestingLimit = 8;
  try {
    capnp::FlatArrayMessageReader reader(words, options);
    if (reader.getEnd() != words.end()) return fail(corrupt(key, "trailing bytes after the message"));
    Record record = read(reader.getRoot<CapnpType<Record>>());
    if (auto why = misplaced(record, key); !why.empty()) return fail(corrupt(key, why));
    return record;
  } catch (const kj::Exception& e) {
    return fail(corrupt(key, e.getDescription().cStr()));
  }
}

#define VOLADOR_JOURNAL_CODEC(Record)                     \
  template Result<Words> encode<Record>(const Record&); \
  template Result<Record> decode<Record>(std::string_view, std::string_view);
VOLADOR_JOURNAL_RECORDS(VOLADOR_JOURNAL_CODEC)
#undef VOLADOR_JOURNAL_CODEC

}  // namespace volador::storage::codec
