#include "examples/native_mlp/mlp_trial.hpp"

#include "examples/native_mlp/mlp_model.hpp"
#include "examples/native_mlp/synthetic_data.hpp"

namespace volador::examples {
namespace {

using trial_api::Batch;
using trial_api::Dataset;
using trial_api::TrialContext;

class MlpTrial : public trial_api::Trial {
 public:
  MlpTrial(const TrialContext& context, SyntheticSpec data, std::size_t hidden, double learning_rate, double momentum)
      : context_(context),
        data_(data),
        model_({data.features, hidden, data.classes}, context.get_seed()),
        optimizer_(model_.shape().parameter_count(), learning_rate, momentum),
        gradient_(model_.shape().parameter_count()) {}

  std::unique_ptr<Dataset> build_training_data() override { return make_synthetic_dataset(data_, false); }
  std::unique_ptr<Dataset> build_validation_data() override { return make_synthetic_dataset(data_, true); }

  MetricMap train_batch(const Batch& batch, std::uint64_t, std::uint64_t) override {
    auto result = model_.evaluate(batch.inputs.values, batch.targets.values, batch.size(), gradient_);
    context_.average_gradients(std::vector<std::span<float>>{gradient_});
    optimizer_.step(model_.parameters(), gradient_);
    return {{"loss", result.loss}, {"accuracy", result.accuracy}};
  }

  MetricMap evaluate_batch(const Batch& batch) override {
    auto result = model_.evaluate(batch.inputs.values, batch.targets.values, batch.size(), {});
    return {{"validation_loss", result.loss}, {"accuracy", result.accuracy}};
  }

  std::vector<std::span<float>> parameters() override { return {model_.parameters()}; }

  Status save(const std::filesystem::path& dir) const override {
    if (auto s = trial_api::write_floats(dir / "parameters.bin", model_.parameters()); !s) return s;
    return trial_api::write_floats(dir / "velocity.bin", optimizer_.velocity());
  }

  Status load(const std::filesystem::path& dir) override {
    if (auto s = trial_api::read_floats(dir / "parameters.bin", model_.parameters()); !s) return s;
    return trial_api::read_floats(dir / "velocity.bin", optimizer_.velocity());
  }

 private:
  TrialContext context_;
  SyntheticSpec data_;
  MlpModel model_;
  MomentumSgd optimizer_;
  std::vector<float> gradient_;
};

// Reads a numeric hyperparameter, or says which one is missing or mistyped.
Result<double> number_hparam(const TrialContext& context, const std::string& name) {
  auto value = context.get_hparam(name);
  if (!value) return fail(value.error());
  if (!value->is_number())
    return fail(Error::invalid_argument("hyperparameter '" + name + "' must be a number, got " + value->dump()));
  return value->get<double>();
}

Result<std::unique_ptr<trial_api::Trial>> make_mlp_trial(const TrialContext& context) {
  auto lr = number_hparam(context, "learning_rate");
  auto hidden = number_hparam(context, "hidden_units");
  if (!lr) return fail(lr.error());
  if (!hidden) return fail(hidden.error());
  if (*hidden < 1) return fail(Error::invalid_argument("hyperparameter 'hidden_units' must be at least 1"));
  auto momentum = context.get_hparams().value("momentum", 0.9);
  return std::make_unique<MlpTrial>(context, synthetic_spec_from(context.get_data_config()),
                                    static_cast<std::size_t>(*hidden), *lr, momentum);
}

}  // namespace

void register_example_trials(trial_api::TrialRegistry& registry) {
  registry.add("mlp_classifier", make_mlp_trial);
}

}  // namespace volador::examples
