#include "examples/native_mlp/mlp_model.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace volador::examples {
namespace {

// Views of the flat parameter (or gradient) buffer.
template <class T>
struct Layers {
  T* w1;  // [hidden][inputs]
  T* b1;  // [hidden]
  T* w2;  // [classes][hidden]
  T* b2;  // [classes]
};

template <class T>
Layers<T> split(T* base, const MlpShape& s) {
  Layers<T> l{};
  l.w1 = base;
  l.b1 = l.w1 + s.hidden * s.inputs;
  l.w2 = l.b1 + s.hidden;
  l.b2 = l.w2 + s.classes * s.hidden;
  return l;
}

void forward_hidden(const Layers<const float>& p, const MlpShape& s, const float* x, std::vector<float>& h) {
  for (std::size_t j = 0; j < s.hidden; ++j) {
    float z = p.b1[j];
    const float* w = p.w1 + j * s.inputs;
    for (std::size_t i = 0; i < s.inputs; ++i) z += w[i] * x[i];
    h[j] = std::tanh(z);
  }
}

// Softmax probabilities of the output layer, written to `prob`.
void forward_output(const Layers<const float>& p, const MlpShape& s, const std::vector<float>& h,
                    std::vector<float>& prob) {
  float max_logit = -INFINITY;
  for (std::size_t k = 0; k < s.classes; ++k) {
    float z = p.b2[k];
    const float* w = p.w2 + k * s.hidden;
    for (std::size_t j = 0; j < s.hidden; ++j) z += w[j] * h[j];
    prob[k] = z;
    max_logit = std::max(max_logit, z);
  }
  float total = 0;
  for (auto& v : prob) total += (v = std::exp(v - max_logit));
  for (auto& v : prob) v /= total;
}

}  // namespace

MlpModel::MlpModel(MlpShape shape, std::uint32_t seed) : shape_(shape), parameters_(shape.parameter_count(), 0.0f) {
  std::mt19937_64 rng(seed);
  auto l = split(parameters_.data(), shape_);
  std::normal_distribution<float> first(0.0f, 1.0f / std::sqrt(static_cast<float>(shape_.inputs)));
  std::normal_distribution<float> second(0.0f, 1.0f / std::sqrt(static_cast<float>(shape_.hidden)));
  std::generate(l.w1, l.b1, [&] { return first(rng); });
  std::generate(l.w2, l.b2, [&] { return second(rng); });
}

BatchLoss MlpModel::evaluate(std::span<const float> inputs, std::span<const float> labels, std::size_t n,
                             std::span<float> gradient) const {
  const auto& s = shape_;
  auto p = split<const float>(parameters_.data(), s);
  const bool learn = !gradient.empty();
  if (learn) std::fill(gradient.begin(), gradient.end(), 0.0f);
  auto g = split<float>(gradient.data(), s);
  std::vector<float> h(s.hidden), prob(s.classes), dh(s.hidden);
  BatchLoss out;
  const float scale = 1.0f / static_cast<float>(n);
  for (std::size_t r = 0; r < n; ++r) {
    const float* x = inputs.data() + r * s.inputs;
    const auto label = static_cast<std::size_t>(labels[r]);
    forward_hidden(p, s, x, h);
    forward_output(p, s, h, prob);
    out.loss -= std::log(std::max(prob[label], 1e-12f));
    out.accuracy += (std::max_element(prob.begin(), prob.end()) - prob.begin()) == static_cast<long>(label);
    if (!learn) continue;
    std::fill(dh.begin(), dh.end(), 0.0f);
    for (std::size_t k = 0; k < s.classes; ++k) {
      const float dz = (prob[k] - (k == label ? 1.0f : 0.0f)) * scale;
      g.b2[k] += dz;
      for (std::size_t j = 0; j < s.hidden; ++j) {
        g.w2[k * s.hidden + j] += dz * h[j];
        dh[j] += dz * p.w2[k * s.hidden + j];
      }
    }
    for (std::size_t j = 0; j < s.hidden; ++j) {
      const float dz = dh[j] * (1.0f - h[j] * h[j]);
      g.b1[j] += dz;
      for (std::size_t i = 0; i < s.inputs; ++i) g.w1[j * s.inputs + i] += dz * x[i];
    }
  }
  out.loss /= static_cast<double>(n);
  out.accuracy /= static_cast<double>(n);
  return out;
}

MomentumSgd::MomentumSgd(std::size_t size, double learning_rate, double momentum)
    : velocity_(size, 0.0f), learning_rate_(static_cast<float>(learning_rate)), momentum_(static_cast<float>(momentum)) {}

void MomentumSgd::step(std::span<float> parameters, std::span<const float> gradient) {
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    velocity_[i] = momentum_ * velocity_[i] + gradient[i];
    parameters[i] -= learning_rate_ * velocity_[i];
  }
}

}  // namespace volador::examples
