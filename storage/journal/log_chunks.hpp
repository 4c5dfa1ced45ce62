#pragma once
// How the journal stores a trial's log lines: one record per chunk, a run of
// consecutive lines of one append, rather than one per line (a metric flood
// prints a line per point: one record per line was half the writer's
// records). A chunk holds at most kMaxChunkLines lines and kMaxChunkTextBytes
// of text (a longer line alone), is stored under its last line's seq
// (journal_keys.hpp: l/<trial>/<seq>), and its value is its lines' LogLine
// values back to back. A line stored alone, as journals before chunks stored
// every line, is a chunk of one: those journals read as they did. Pure
// functions, no I/O.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/error.hpp"
#include "storage/journal/journal.hpp"

namespace volador::storage::log_chunks {

// Bounds that keep a chunk's value well under RocksDB's blob size (64 KiB)
// and a one-line read from decoding much more than it returns.
inline constexpr std::size_t kMaxChunkLines = 256;
inline constexpr std::size_t kMaxChunkTextBytes = 32 << 10;

// `lines` cut, in order, into chunks within the bounds; none for no lines.
std::vector<std::span<const LogLine>> split(std::span<const LogLine> lines);

// The value to store for each chunk of split(lines), in order;
// invalid_argument when a line cannot be encoded.
Result<std::vector<std::string>> encode(std::span<const LogLine> lines);

// The lines of the chunk stored as `value` under log key `key`, in order;
// corruption naming the key when the value does not decode or its lines are
// not consecutive lines of the key's trial ending at the key's seq.
Result<std::vector<LogLine>> decode(std::string_view key, std::string_view value);

}  // namespace volador::storage::log_chunks
