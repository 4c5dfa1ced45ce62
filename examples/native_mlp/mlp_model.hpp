#pragma once
// A one-hidden-layer MLP with all parameters in one flat buffer (so a
// gradient allreduce is one call): tanh hidden layer, softmax output,
// mean cross-entropy loss.

#include <cstdint>
#include <span>
#include <vector>

namespace volador::examples {

struct MlpShape {
  std::size_t inputs = 0;
  std::size_t hidden = 0;
  std::size_t classes = 0;
  [[nodiscard]] std::size_t parameter_count() const { return hidden * inputs + hidden + classes * hidden + classes; }
};

struct BatchLoss {
  double loss = 0;      // mean cross-entropy over the batch
  double accuracy = 0;  // fraction of argmax predictions equal to the label
};

class MlpModel {
 public:
  // Weights drawn from N(0, 1/fan_in) with `seed`; biases zero.
  MlpModel(MlpShape shape, std::uint32_t seed);

  // Loss and accuracy on a batch of `n` rows; when `gradient` is non-empty
  // (parameter_count() floats) it receives d(loss)/d(parameters).
  BatchLoss evaluate(std::span<const float> inputs, std::span<const float> labels, std::size_t n,
                     std::span<float> gradient) const;

  std::span<float> parameters() { return parameters_; }
  [[nodiscard]] std::span<const float> parameters() const { return parameters_; }
  [[nodiscard]] const MlpShape& shape() const { return shape_; }

 private:
  MlpShape shape_;
  std::vector<float> parameters_;
};

// SGD with classical momentum over a flat parameter buffer.
class MomentumSgd {
 public:
  MomentumSgd(std::size_t size, double learning_rate, double momentum);
  void step(std::span<float> parameters, std::span<const float> gradient);
  // The momentum buffer, for checkpoints.
  std::span<float> velocity() { return velocity_; }
  [[nodiscard]] std::span<const float> velocity() const { return velocity_; }

 private:
  std::vector<float> velocity_;
  float learning_rate_;
  float momentum_;
};

}  // namespace volador::examples
