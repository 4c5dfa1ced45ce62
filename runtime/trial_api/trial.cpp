#include "runtime/trial_api/trial.hpp"

namespace volador::trial_api {

TrialContext::TrialContext(nlohmann::json hparams, nlohmann::json data_config, std::uint32_t seed,
                           std::uint64_t global_batch_size, std::uint32_t rank, std::uint32_t size)
    : hparams_(std::move(hparams)),
      data_config_(std::move(data_config)),
      seed_(seed),
      global_batch_size_(global_batch_size),
      rank_(rank),
      size_(size == 0 ? 1 : size) {}

Result<nlohmann::json> TrialContext::get_hparam(const std::string& name) const {
  auto it = hparams_.find(name);
  if (it == hparams_.end()) return fail(Error::not_found("hyperparameter '" + name + "' is not defined"));
  return *it;
}

}  // namespace volador::trial_api
