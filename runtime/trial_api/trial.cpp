#include "runtime/trial_api/trial.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace volador::trial_api {

TrialContext::TrialContext(nlohmann::json hparams, nlohmann::json data_config, std::uint32_t seed,
                           std::uint64_t global_batch_size, std::shared_ptr<DataParallel> group)
    : hparams_(std::move(hparams)),
      data_config_(std::move(data_config)),
      seed_(seed),
      global_batch_size_(global_batch_size),
      group_(std::move(group)) {}

void TrialContext::average_gradients(std::span<const std::span<float>> gradients) const {
  if (auto s = group_->average(gradients); !s)
    throw std::runtime_error("averaging gradients across ranks failed: " + s.error().message);
}

Result<nlohmann::json> TrialContext::get_hparam(const std::string& name) const {
  auto it = hparams_.find(name);
  if (it == hparams_.end()) return fail(Error::not_found("hyperparameter '" + name + "' is not defined"));
  return *it;
}

Status write_floats(const std::filesystem::path& file, std::span<const float> values) {
  std::unique_ptr<std::FILE, decltype(&std::fclose)> out(std::fopen(file.c_str(), "wb"), &std::fclose);
  auto failed = [&] { return fail(Error::io("cannot write " + file.string() + ": " + std::strerror(errno))); };
  if (!out) return failed();
  const std::uint64_t count = values.size();
  if (std::fwrite(&count, sizeof count, 1, out.get()) != 1) return failed();
  if (std::fwrite(values.data(), sizeof(float), values.size(), out.get()) != values.size()) return failed();
  if (std::fflush(out.get()) != 0) return failed();
  if (std::fclose(out.release()) != 0) return failed();
  return {};
}

Status read_floats(const std::filesystem::path& file, std::span<float> out) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(Error::not_found("checkpoint file " + file.string() + " is missing"));
  std::uint64_t count = 0;
  in.read(reinterpret_cast<char*>(&count), sizeof count);
  if (!in || count != out.size())
    return fail(Error::corruption("checkpoint file " + file.string() + " holds " + std::to_string(count) +
                                  " values, expected " + std::to_string(out.size())));
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size_bytes()));
  if (!in || in.peek() != std::char_traits<char>::eof())
    return fail(Error::corruption("checkpoint file " + file.string() + " has the wrong size"));
  return {};
}

}  // namespace volador::trial_api
