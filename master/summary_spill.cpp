#include "master/summary_spill.hpp"

#include <array>
#include <fstream>
#include <iterator>

namespace volador::master {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kLengthBytes = 4;

std::array<char, kLengthBytes> length_bytes(std::uint32_t length) {
  std::array<char, kLengthBytes> out{};
  for (std::size_t i = 0; i < kLengthBytes; ++i) out[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  return out;
}

std::uint32_t length_at(const std::string& bytes, std::size_t at) {
  std::uint32_t length = 0;
  for (std::size_t i = 0; i < kLengthBytes; ++i)
    length |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return length;
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

Result<std::vector<std::string>> SummarySpill::read(std::uint64_t experiment_id) const {
  const auto file = file_of(experiment_id);
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(Error::io("cannot read the query summaries' file " + file.string()));
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) return fail(Error::io("cannot read the query summaries' file " + file.string()));
  std::vector<std::string> trials;
  for (std::size_t at = 0; at < bytes.size();) {
    if (bytes.size() - at < kLengthBytes) return fail(Error::corruption(file.string() + ": cut inside a length"));
    const std::uint32_t length = length_at(bytes, at);
    at += kLengthBytes;
    if (bytes.size() - at < length) return fail(Error::corruption(file.string() + ": cut inside a trial"));
    trials.emplace_back(bytes, at, length);
    at += length;
  }
  return trials;
}

void SummarySpill::remove(std::uint64_t experiment_id) const {
  std::error_code ignored;  // a file never written is already gone
  fs::remove(file_of(experiment_id), ignored);
}

}  // namespace volador::master
