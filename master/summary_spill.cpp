#include "master/summary_spill.hpp"

#include <array>
#include <fstream>

namespace volador::master {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kLengthBytes = 4;

std::array<char, kLengthBytes> length_bytes(std::uint32_t length) {
  std::array<char, kLengthBytes> out{};
  for (std::size_t i = 0; i < kLengthBytes; ++i) out[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  return out;
}

std::uint32_t length_at(std::string_view bytes, std::size_t at) {
  std::uint32_t length = 0;
  for (std::size_t i = 0; i < kLengthBytes; ++i)
    length |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return length;
}

// The records of a file's `bytes`, each after its length; an error naming `file` when one is cut.
Result<std::vector<std::string_view>> records_in(std::string_view bytes, const fs::path& file) {
  std::vector<std::string_view> records;
  for (std::size_t at = 0; at < bytes.size();) {
    if (bytes.size() - at < kLengthBytes) return fail(Error::corruption(file.string() + ": cut inside a length"));
    const std::uint32_t length = length_at(bytes, at);
    at += kLengthBytes;
    if (bytes.size() - at < length) return fail(Error::corruption(file.string() + ": cut inside a trial"));
    records.push_back(bytes.substr(at, length));
    at += length;
  }
  return records;
}

}  // namespace

Result<SummarySpill> SummarySpill::open(fs::path folder) {
  std::error_code ec;
  fs::remove_all(folder, ec);
  if (!ec) fs::create_directories(folder, ec);
  if (ec) return fail(Error::io("cannot prepare the query summaries' folder " + folder.string() + ": " + ec.message()));
  return SummarySpill(std::move(folder));
}

fs::path SummarySpill::file_of(std::uint64_t experiment_id) const {
  return folder_ / ("experiment-" + std::to_string(experiment_id) + ".trials");
}

Status SummarySpill::write(std::uint64_t experiment_id, const std::vector<std::string>& packed_trials) const {
  const auto file = file_of(experiment_id);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  for (const auto& packed : packed_trials) {
    const auto length = length_bytes(static_cast<std::uint32_t>(packed.size()));
    out.write(length.data(), length.size());
    out.write(packed.data(), static_cast<std::streamsize>(packed.size()));
  }
  out.close();
  if (!out) return fail(Error::io("cannot write the query summaries' file " + file.string()));
  return {};
}

Result<std::string> SummarySpill::contents(std::uint64_t experiment_id) const {
  const auto file = file_of(experiment_id);
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  std::ifstream in(file, std::ios::binary);
  std::string bytes(ec ? 0 : size, '\0');
  if (ec || !in.read(bytes.data(), static_cast<std::streamsize>(bytes.size())))
    return fail(Error::io("cannot read the query summaries' file " + file.string()));
  return bytes;
}

Result<std::vector<std::string>> SummarySpill::read(std::uint64_t experiment_id) const {
  auto bytes = contents(experiment_id);
  if (!bytes) return fail(bytes.error());
  auto trials = records_in(*bytes, file_of(experiment_id));
  if (!trials) return fail(trials.error());
  return std::vector<std::string>(trials->begin(), trials->end());
}

Result<std::string> SummarySpill::read_one(std::uint64_t experiment_id, std::size_t index) const {
  auto bytes = contents(experiment_id);
  if (!bytes) return fail(bytes.error());
  const auto file = file_of(experiment_id);
  auto trials = records_in(*bytes, file);
  if (!trials) return fail(trials.error());
  if (index >= trials->size())
    return fail(Error::corruption(file.string() + ": holds " + std::to_string(trials->size()) + " trials, not " +
                                  std::to_string(index + 1) + " or more"));
  return std::string((*trials)[index]);
}

void SummarySpill::remove(std::uint64_t experiment_id) const {
  std::error_code ignored;  // a file never written is already gone
  fs::remove(file_of(experiment_id), ignored);
}

}  // namespace volador::master
