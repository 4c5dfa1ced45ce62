#pragma once
// Journal records to and from their stored values: Cap'n Proto messages of
// schemas/journal.capnp in the standard flat framing, converted by the
// write/read that capnpc-records generates. Encoding fails with
// invalid_argument when a field is over Cap'n Proto's size limits (or a
// record's JSON cannot be dumped; Journal::commit refuses that earlier, see
// journal_validation.hpp); decoding fails with corruption naming the record's
// key. Pure functions, no I/O.

#include <string>
#include <string_view>
#include <vector>

#include <capnp/common.h>
#include <kj/array.h>

#include "runtime/core/error.hpp"
#include "storage/journal/journal.hpp"

namespace volador::storage::codec {

using Words = kj::Array<capnp::word>;

// The bytes of an encoded value, to store.
std::string_view bytes_of(const Words& words);

// Corruption error "journal record KEY is corrupt: WHY".
Error corrupt(std::string_view key, std::string_view why);

// The value to store for `record`, one of the records of schemas/journal.capnp.
template <class Record>
Result<Words> encode(const Record& record);

// The record stored as `value` under `key`. Besides values that do not decode
// (and enum numbers the record's enum does not name), corruption is an
// experiment, trial or checkpoint stored under another one's key.
template <class Record>
Result<Record> decode(std::string_view key, std::string_view value);

// The records stored back to back (each a whole message, at least one) as
// `value` under `key`, in order; corruption as decode's.
template <class Record>
Result<std::vector<Record>> decode_each(std::string_view key, std::string_view value);

}  // namespace volador::storage::codec
