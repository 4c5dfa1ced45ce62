#pragma once
// The timings file: how a cluster's waits (master::Timings) are set, by
// `volador-node --timings FILE`, and how an agent hands its own to the rank
// workers it starts. One `KEY = DURATION` per line, `#` starts a comment;
// keys left out keep their defaults; a duration is a whole number and a unit
// (ms, s, min, h), e.g.
//
//     heartbeat_interval = 200ms
//     connection_timeout = 3s
//     reattach_grace = 2s

#include <filesystem>
#include <string>
#include <string_view>

#include "master/timings.hpp"
#include "runtime/core/error.hpp"

namespace volador::node {

// Every key of the file, in the order of master::Timings.
[[nodiscard]] std::string known_timing_keys();

// The defaults with the values `text` sets. invalid_argument listing every
// fault, one `SOURCE:LINE: message` a line: a line that is not KEY =
// DURATION, an unknown key, a key given twice, a duration that is malformed,
// 0 or over a year, a connection_timeout shorter than two heartbeat intervals.
Result<master::Timings> parse_timings(std::string_view text, const std::string& source);

// parse_timings of the file's contents, errors naming the file. not_found
// when it cannot be read; invalid_argument when it is over 64 KiB.
Result<master::Timings> read_timings_file(const std::filesystem::path& file);

// `timings` as parse_timings reads them: every key, in milliseconds.
[[nodiscard]] std::string format_timings(const master::Timings& timings);

// Writes format_timings(timings) to `file`. io error when it cannot.
Status write_timings_file(const master::Timings& timings, const std::filesystem::path& file);

}  // namespace volador::node
