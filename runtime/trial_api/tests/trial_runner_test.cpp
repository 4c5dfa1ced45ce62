#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <stdexcept>

#include "runtime/collective/shm_communicator.hpp"
#include "runtime/collective/tests/group_harness.hpp"
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

TrialContext empty_context(std::uint64_t global_batch_size = 8,
                           std::shared_ptr<DataParallel> group = std::make_shared<DataParallel>()) {
  return {nlohmann::json::object(), nlohmann::json::object(), 42, global_batch_size, std::move(group)};
}

TrialRunner make_runner(std::vector<std::vector<float>>* seen) {
  auto runner = TrialRunner::create(std::make_unique<RecordingTrial>(100, 10, seen), empty_context());
  REQUIRE(runner.has_value());
  return std::move(*runner);
}

// Runs `fn(rank, group)` on `n` ranks in threads, each with a real
// shared-memory rank group; fails the test with every rank's outcome.
void on_ranks(int n, const std::function<Status(int, std::shared_ptr<DataParallel>)>& fn) {
  const auto group_id = collective::testing::unique_group_id();
  auto reports = collective::testing::run_in_threads(n, [&](int rank) -> Status {
    auto comm = collective::ShmCommunicator::join(group_id, rank, n);
    if (!comm) return fail(comm.error());
    return fn(rank, std::make_shared<DataParallel>(std::move(*comm), 64));
  });
  INFO(collective::testing::summary(reports));
  REQUIRE(collective::testing::all_ok(reports));
}

}  // namespace

TEST_CASE("An epoch visits each record at most once and drops the partial batch") {
  std::vector<std::vector<float>> seen;
  auto runner = make_runner(&seen);
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
  auto ra = make_runner(&a);
  auto rb = make_runner(&b);
  REQUIRE(ra.train(0, 24).has_value());
  REQUIRE(rb.train(0, 12).has_value());
  REQUIRE(rb.train(12, 12).has_value());  // resuming mid-sequence gives the same batches
  CHECK(a == b);
  CHECK(a[0] != a[12]);
}

TEST_CASE("Two ranks see disjoint halves of the same global batches and average their metrics") {
  std::vector<std::vector<float>> whole;
  auto single = make_runner(&whole);
  REQUIRE(single.train(0, 5).has_value());
  std::vector<std::vector<float>> seen[2];
  MetricMap metrics[2];
  on_ranks(2, [&](int rank, std::shared_ptr<DataParallel> group) -> Status {
    auto runner = TrialRunner::create(std::make_unique<RecordingTrial>(100, 10, &seen[rank]), empty_context(8, group));
    if (!runner) return fail(runner.error());
    auto m = runner->train(0, 5);
    if (!m) return fail(m.error());
    metrics[rank] = *m;
    return {};
  });
  for (int b = 0; b < 5; ++b) {
    std::vector<float> joined = seen[0][b];
    joined.insert(joined.end(), seen[1][b].begin(), seen[1][b].end());
    CHECK(joined == whole[b]);
  }
  CHECK(metrics[0].at("records") == 4);  // per-slot batches of 4
  CHECK(metrics[0] == metrics[1]);
}

TEST_CASE("Validation covers every record once across ranks and gives the whole set's mean") {
  std::vector<std::vector<float>> unused;
  auto single = make_runner(&unused).validate();
  REQUIRE(single.has_value());
  CHECK(single->at("mean_index") == Approx(4.5));  // records 0..9, whatever the batching
  for (int n : {2, 3}) {
    MetricMap metrics[3];
    on_ranks(n, [&](int rank, std::shared_ptr<DataParallel> group) -> Status {
      auto runner = TrialRunner::create(std::make_unique<RecordingTrial>(100, 10, &unused), empty_context(6, group));
      if (!runner) return fail(runner.error());
      auto m = runner->validate();
      if (!m) return fail(m.error());
      metrics[rank] = *m;
      return {};
    });
    for (int r = 0; r < n; ++r) CHECK(metrics[r].at("mean_index") == Approx(4.5));
  }
}

TEST_CASE("Every rank starts from rank 0's parameters") {
  class Seeded : public RecordingTrial {
   public:
    Seeded(float init, std::vector<std::vector<float>>* seen) : RecordingTrial(100, 10, seen), weights_(3, init) {}
    std::vector<std::span<float>> parameters() override { return {weights_}; }
    std::vector<float> weights_;
  };
  std::vector<float> after[3];
  std::vector<std::vector<float>> unused;
  on_ranks(3, [&](int rank, std::shared_ptr<DataParallel> group) -> Status {
    auto trial = std::make_unique<Seeded>(static_cast<float>(rank + 1), &unused);
    auto* raw = trial.get();
    auto runner = TrialRunner::create(std::move(trial), empty_context(6, group));
    if (!runner) return fail(runner.error());
    after[rank] = raw->weights_;
    return {};
  });
  for (const auto& w : after) CHECK(w == std::vector<float>{1, 1, 1});
}

TEST_CASE("A training set smaller than one global batch is refused") {
  std::vector<std::vector<float>> seen;
  auto ctx = empty_context();
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
  auto ctx = empty_context();
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
  auto ctx = empty_context();
  CHECK(registry.create("native:recorder", ctx).has_value());
  auto missing = registry.create("native:resnet", ctx);
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().message.find("known: recorder") != std::string::npos);
  auto python = registry.create("model_def:MyTrial", ctx);
  REQUIRE_FALSE(python.has_value());
  CHECK(python.error().code == ErrorCode::invalid_argument);
}

TEST_CASE("get_hparam names a missing hyperparameter") {
  TrialContext ctx(nlohmann::json{{"lr", 0.1}}, nlohmann::json::object(), 1, 8);
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
