#include "storage/journal/journal_codec.hpp"

#include <cstring>
#include <utility>
#include <vector>

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

// Words of an encoding's first segment: a metric report or a log line fits,
// and that is all the builder zeroes. (Cap'n Proto's default, 1,024 words,
// zeroed 8 KiB per record: a tenth of the master's CPU in a metric flood.)
// A larger record grows into further segments.
constexpr unsigned kFirstSegmentWords = 64;

template <class Record>
Result<Words> encode(const Record& record) {
  try {
    capnp::MallocMessageBuilder message(kFirstSegmentWords);
    write(record, message.initRoot<CapnpType<Record>>());
    return capnp::messageToFlatArray(message);
  } catch (const kj::Exception& e) {
    const std::string name = capnp::Schema::from<CapnpType<Record>>().getShortDisplayName().cStr();
    return fail(Error::invalid_argument("cannot encode " + name + ": " + e.getDescription().cStr()));
  }
}

namespace {

// The value's bytes as aligned words; corruption when they are not whole words.
Result<kj::Array<capnp::word>> words_of(std::string_view key, std::string_view value) {
  constexpr std::size_t word = sizeof(capnp::word);
  if (value.empty() || value.size() % word != 0) {
    return fail(corrupt(key, std::to_string(value.size()) + " bytes is not a whole number of words"));
  }
  auto words = kj::heapArray<capnp::word>(value.size() / word);
  std::memcpy(words.begin(), value.data(), value.size());
  return words;
}

// The record whose message starts `words`, and where that message ends.
// Traversal is limited to the message's own size (no pointer amplification),
// nesting to what the schema needs.
template <class Record>
Result<std::pair<Record, const capnp::word*>> decode_first(std::string_view key, kj::ArrayPtr<const capnp::word> words) {
  capnp::ReaderOptions options;
  options.traversalLimitInWords = words.size() + 8;
  options.nestingLimit = 8;
  try {
    capnp::FlatArrayMessageReader reader(words, options);
    Record record = read(reader.getRoot<CapnpType<Record>>());
    if (auto why = misplaced(record, key); !why.empty()) return fail(corrupt(key, why));
    return std::pair(std::move(record), reader.getEnd());
  } catch (const kj::Exception& e) {
    return fail(corrupt(key, e.getDescription().cStr()));
  }
}

}  // namespace

template <class Record>
Result<Record> decode(std::string_view key, std::string_view value) {
  auto words = words_of(key, value);
  if (!words) return fail(words.error());
  auto decoded = decode_first<Record>(key, *words);
  if (!decoded) return fail(decoded.error());
  if (decoded->second != words->end()) return fail(corrupt(key, "trailing bytes after the message"));
  return std::move(decoded->first);
}

template <class Record>
Result<std::vector<Record>> decode_each(std::string_view key, std::string_view value) {
  auto words = words_of(key, value);
  if (!words) return fail(words.error());
  std::vector<Record> records;
  for (const capnp::word* next = words->begin(); next != words->end();) {
    auto decoded = decode_first<Record>(key, kj::arrayPtr(next, static_cast<const capnp::word*>(words->end())));
    if (!decoded) return fail(decoded.error());
    records.push_back(std::move(decoded->first));
    next = decoded->second;
  }
  return records;
}

#define VOLADOR_JOURNAL_CODEC(Record)                                          \
  template Result<Words> encode<Record>(const Record&);                      \
  template Result<Record> decode<Record>(std::string_view, std::string_view); \
  template Result<std::vector<Record>> decode_each<Record>(std::string_view, std::string_view);
VOLADOR_JOURNAL_RECORDS(VOLADOR_JOURNAL_CODEC)
#undef VOLADOR_JOURNAL_CODEC

}  // namespace volador::storage::codec
