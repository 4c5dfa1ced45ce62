#include "storage/journal/log_chunks.hpp"

#include <string>

#include "storage/journal/journal_codec.hpp"
#include "storage/journal/journal_keys.hpp"

namespace volador::storage::log_chunks {

std::vector<std::span<const LogLine>> split(std::span<const LogLine> lines) {
  std::vector<std::span<const LogLine>> chunks;
  std::size_t begin = 0, text_bytes = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t bytes = lines[i].text.size();
    if (i > begin && (i - begin == kMaxChunkLines || text_bytes + bytes > kMaxChunkTextBytes)) {
      chunks.push_back(lines.subspan(begin, i - begin));
      begin = i;
      text_bytes = 0;
    }
    text_bytes += bytes;
  }
  if (begin < lines.size()) chunks.push_back(lines.subspan(begin));
  return chunks;
}

Result<std::vector<std::string>> encode(std::span<const LogLine> lines) {
  std::vector<std::string> values;
  for (std::span<const LogLine> chunk : split(lines)) {
    std::string value;
    for (const LogLine& line : chunk) {
      auto encoded = codec::encode(line);
      if (!encoded) return fail(encoded.error());
      value += codec::bytes_of(*encoded);
    }
    values.push_back(std::move(value));
  }
  return values;
}

Result<std::vector<LogLine>> decode(std::string_view key, std::string_view value) {
  auto lines = codec::decode_each<LogLine>(key, value);
  if (!lines) return fail(lines.error());
  const LogLine& last = lines->back();
  if (key != keys::log(last.trial_id, last.seq))
    return fail(codec::corrupt(key, "holds line " + std::to_string(last.seq) + " of trial " +
                                        std::to_string(last.trial_id) + " last"));
  for (std::size_t i = 0; i < lines->size(); ++i) {
    const LogLine& line = (*lines)[i];
    const std::uint64_t expected = last.seq - (lines->size() - 1 - i);
    if (line.trial_id != last.trial_id || line.seq != expected)
      return fail(codec::corrupt(key, "its line " + std::to_string(i + 1) + " is line " + std::to_string(line.seq) +
                                          " of trial " + std::to_string(line.trial_id) + ", not line " +
                                          std::to_string(expected) + " of trial " + std::to_string(last.trial_id)));
  }
  return lines;
}

}  // namespace volador::storage::log_chunks
