#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <stdexcept>

#include "runtime/trial_api/trial_registry.hpp"
#include "runtime/trial_api/trial_runner.hpp"

using namespace volador;
using namespace volador::trial_api;

namespace {

// Records are their own index, so a test can see which records a batch held.
class IndexDataset : public Dataset {
 public:
  explicit IndexDataset(std::size_t n) : n_(n) {}
  std::size_t size() const override { return n_; }
  Batch gather(std::span<const std::size_t> indices) const override {
    Batch b;
    b.inputs.shape = {indices.size(), 1};
    for (auto i : indices) b.inputs.values.push_back(static_cast<float>(i));
    b.targets = b.inputs;
    return b;
  }

 private:
  std::size_t n_;
};

class RecordingTrial : public Trial {
 public:
  RecordingTrial(std::size_t train, std::size_t validation, std::vector<std::vector<float>>* seen)
      : train_(train), validation_(validation), seen_(seen) {}
  std::unique_ptr<Dataset> build_training_data() override { return std::make_unique<IndexDataset>(train_); }
  std::unique_ptr<Dataset> build_validation_data() override { return std::make_unique<IndexDataset>(validation_); }
  MetricMap train_batch(const Batch& batch, std::uint64_t, std::uint64_t) override {
    seen_->push_back(batch.inputs.values);
    return {{"records", static_cast<double>(batch.size())}};
  }
  Status save(const std::filesystem::path&) const override { return {}; }
  Status load(const std::filesystem::path&) override { return {}; }
  MetricMap evaluate_batch(const Batch& batch) override {
    double sum = 0;
    for (auto v : batch.inputs.values) sum += v;
    return {{"mean_index", sum / static_cast<double>(batch.size())}};
  }

 private:
  std::size_t train_, validation_;
  std::vector<std::vector<float>>* seen_;
};

TrialRunner make_runner(std::vector<std::vector<float>>* seen, std::uint32_t rank, std::uint32_t size,
                        std::size_t train = 100) {
  TrialContext ctx(nlohmann::json::object(), nlohmann::json::object(), 42, 8, rank, size);
  auto runner = TrialRunner::create(std::make_unique<RecordingTrial>(train, 10, seen), ctx);
  REQUIRE(runner.has_value());
  return std::move(*runner);
}

}  // namespace

TEST_CASE("An epoch visits each record at most once and drops the partial batch") {
  std::vector<std::vector<float>> seen;
  auto runner = make_runner(&seen, 0, 1);
  CHECK(runner.batches_per_epoch() == 12);  // 100 records / 8, partial batch dropped
  auto metrics = runner.train(0, 12);
  REQUIRE(metrics.has_value());
  CHECK(metrics->at("records") == 8);
  std::set<float> records;
  for (const auto& batch : seen) records.insert(batch.begin(), batch.end());
  CHECK(records.size() == 96);
}

TEST_CASE("Epochs are shuffled differently but reproducibly") {
  std::vector<std::vector<float>> a, b;
  auto ra = make_runner(&a, 0, 1);
  auto rb = make_runner(&b, 0, 1);
  REQUIRE(ra.train(0, 24).has_value());
  REQUIRE(rb.train(0, 12).has_value());
  REQUIRE(rb.train(12, 12).has_value());  // resuming mid-sequence gives the same batches
  CHECK(a == b);
  CHECK(a[0] != a[12]);
}

TEST_CASE("Two ranks see disjoint halves of the same global batches") {
  std::vector<std::vector<float>> whole, r0, r1;
  auto single = make_runner(&whole, 0, 1);
  auto rank0 = make_runner(&r0, 0, 2);
  auto rank1 = make_runner(&r1, 1, 2);
  REQUIRE(single.train(0, 5).has_value());
  REQUIRE(rank0.train(0, 5).has_value());
  REQUIRE(rank1.train(0, 5).has_value());
  for (int b = 0; b < 5; ++b) {
    std::vector<float> joined = r0[b];
    joined.insert(joined.end(), r1[b].begin(), r1[b].end());
    CHECK(joined == whole[b]);
  }
}

TEST_CASE("Validation covers every record exactly once across ranks") {
  std::vector<std::vector<float>> seen;
  auto rank0 = make_runner(&seen, 0, 2);
  auto rank1 = make_runner(&seen, 1, 2);
  auto m0 = rank0.validate();
  auto m1 = rank1.validate();
  REQUIRE(m0.has_value());
  REQUIRE(m1.has_value());
  // Per-slot batches of 4; metrics are averaged over batches, as in Determined.
  CHECK(m0->at("mean_index") == Approx((3.0 + 8.0) / 2));  // {0,2,4,6}, {8}
  CHECK(m1->at("mean_index") == Approx((4.0 + 9.0) / 2));  // {1,3,5,7}, {9}
}

TEST_CASE("A training set smaller than one global batch is refused") {
  std::vector<std::vector<float>> seen;
  TrialContext ctx(nlohmann::json::object(), nlohmann::json::object(), 1, 8, 0, 1);
  auto runner = TrialRunner::create(std::make_unique<RecordingTrial>(5, 10, &seen), ctx);
  REQUIRE_FALSE(runner.has_value());
  CHECK(runner.error().message.find("fewer records than one global batch") != std::string::npos);
}

TEST_CASE("An exception from train_batch becomes an error naming it") {
  class Throwing : public RecordingTrial {
   public:
    using RecordingTrial::RecordingTrial;
    MetricMap train_batch(const Batch&, std::uint64_t, std::uint64_t) override {
      throw std::runtime_error("loss is NaN");
    }
  };
  std::vector<std::vector<float>> seen;
  TrialContext ctx(nlohmann::json::object(), nlohmann::json::object(), 1, 8, 0, 1);
  auto runner = TrialRunner::create(std::make_unique<Throwing>(100, 10, &seen), ctx);
  REQUIRE(runner.has_value());
  auto r = runner->train(0, 1);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message == "train_batch raised: loss is NaN");
}

TEST_CASE("The registry finds native trials and lists the known ones otherwise") {
  TrialRegistry registry;
  std::vector<std::vector<float>> seen;
  registry.add("recorder", [&](const TrialContext&) -> Result<std::unique_ptr<Trial>> {
    return std::make_unique<RecordingTrial>(100, 10, &seen);
  });
  TrialContext ctx(nlohmann::json::object(), nlohmann::json::object(), 1, 8, 0, 1);
  CHECK(registry.create("native:recorder", ctx).has_value());
  auto missing = registry.create("native:resnet", ctx);
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().message.find("known: recorder") != std::string::npos);
  auto python = registry.create("model_def:MyTrial", ctx);
  REQUIRE_FALSE(python.has_value());
  CHECK(python.error().code == ErrorCode::invalid_argument);
}

TEST_CASE("get_hparam names a missing hyperparameter") {
  TrialContext ctx(nlohmann::json{{"lr", 0.1}}, nlohmann::json::object(), 1, 8, 0, 1);
  CHECK(ctx.get_hparam("lr").value() == 0.1);
  auto missing = ctx.get_hparam("momentum");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().message.find("momentum") != std::string::npos);
}

TEST_CASE("Float arrays round-trip and a wrong size is corruption naming the file") {
  auto dir = std::filesystem::temp_directory_path() / ("volador-floats-" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  std::vector<float> values{1.5f, -2.0f, 3.25f};
  REQUIRE(write_floats(dir / "v.bin", values));
  std::vector<float> back(3);
  REQUIRE(read_floats(dir / "v.bin", back));
  CHECK(back == values);
  std::vector<float> wrong(4);
  auto r = read_floats(dir / "v.bin", wrong);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == ErrorCode::corruption);
  CHECK(r.error().message.find("v.bin") != std::string::npos);
  auto missing = read_floats(dir / "none.bin", back);
  CHECK(missing.error().code == ErrorCode::not_found);
  std::filesystem::remove_all(dir);
}
