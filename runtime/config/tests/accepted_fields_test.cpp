// Issue 14's "no silent fields": every field the parser accepts either takes
// effect (a test shows it) or is refused where it has no meaning (a test
// checks the refusal). The table names those tests; this file checks that
// every accepted field has an entry and that every named test exists in the
// repository's test sources (read at test time from VOLADOR_SOURCE_DIR).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <string_view>

#include "runtime/config/accepted_fields.hpp"

namespace {

// The tests that hold a field to its word: a TEST_CASE, SECTION or Python
// test function showing its effect, and/or one checking its refusal.
struct Coverage {
  std::string_view effect_test;
  std::string_view refusal_test;
};

constexpr std::string_view kCommandRefusal = "The workload plan's fields are refused for a command, which cannot honour them";
constexpr std::string_view kSchedulePolicy = "The schedule policy converts config periods to batches";
constexpr std::string_view kSampling = "Samples stay within their ranges over many seeds and have JSON types";
constexpr std::string_view kObjectStores = "make_checkpoint_store refuses the object stores of other builds";
constexpr std::string_view kSharedFs = "make_checkpoint_store puts shared_fs checkpoints under host_path and storage_path";
constexpr std::string_view kBestMetric = "Validation reports of the searcher metric make the trial's and the experiment's best";
constexpr std::string_view kMedianStopping =
    "Median early stopping: trials validate on the ladder and stop when worse than the median";
constexpr std::string_view kShown = "An experiment record sets its summary and the facts of its config";
constexpr std::string_view kFiltered = "Experiments show their config's workspace and project and the list filters by them";
constexpr std::string_view kRankLimits =
    "A memory hog and a fork bomb end in ERROR with their limit in the log while a neighbouring trial completes";
constexpr std::string_view kRankLimitRefusal = "A bad limit is refused at its line";
constexpr std::string_view kSchedulingRefusal =
    "resources.priority outside 1..99, a weight not above 0 and an empty pool are refused at their line";
constexpr std::string_view kSandboxed =
    "A sandboxed trial reads its mounted data set, cannot write a read-only mount, has its shm_size and sees no other "
    "folder";
constexpr std::string_view kImageRefusal = "A config with a container image is refused at submission naming the pool: no agent there can run images";
constexpr std::string_view kCommandInputs =
    "Hyperparameters and the data section reach a command in its arguments, environment and files, a custom stdout "
    "pattern is used";
constexpr std::string_view kStartupTrials =
    "tpe's n_startup_trials and bayesian's n_initial_points: k random draws, then the model";
constexpr std::string_view kGcPolicy = "GcPolicy::of takes the experiment's numbers and searcher direction";
constexpr std::string_view kPbtRounds =
    "pbt: after each round the worst are replaced by explored copies of the best, which start from their checkpoints";
constexpr std::string_view kPbtPlan =
    "pbt plan: rounds end at multiples of length_per_round in whole batches, floor(fraction x population) replaced";
constexpr std::string_view kPbtExplore =
    "pbt explore: resample with resample_probability, else scale by 1 +- perturb_factor within bounds";
constexpr std::string_view kPbtRefusal = "pbt's fields are required, in range, and refused where they would not take effect";

const std::map<std::string_view, Coverage> kCoverage{
    {"name", {"A fork runs the stored project with its changes merged, and bad changes are refused at their line", ""}},
    {"description", {kShown, ""}},
    {"workspace", {kFiltered, "cross-field rules"}},
    {"project", {kFiltered, "cross-field rules"}},
    {"labels", {"Experiments show their config's labels and the list filters by label", ""}},
    // A trial class gets it as context.get_data_config() (the trial file), a command in VOLADOR_DATA.
    {"data", {kCommandInputs, ""}},
    {"entrypoint", {"A plain script's stdout metrics are journaled, its trials complete and the best one is chosen", ""}},
    {"hyperparameters.global_batch_size",
     {"The example trial on 2 and 4 ranks learns as on 1 rank with the same global batch", ""}},
    {"hyperparameters.<name>.type", {kSampling, ""}},
    {"hyperparameters.<name>.val", {kSampling, ""}},
    {"hyperparameters.<name>.minval", {kSampling, ""}},
    {"hyperparameters.<name>.maxval", {kSampling, ""}},
    {"hyperparameters.<name>.count", {"Grid values follow the manual's examples", ""}},
    {"hyperparameters.<name>.base", {"Log sampling honours the base", ""}},
    {"hyperparameters.<name>.vals", {"Categorical choices may be any YAML values and every one is drawn", ""}},
    {"searcher.name", {"Every searcher's example config runs on one cluster with the trials and lengths its searcher plans", ""}},
    {"searcher.metric", {kBestMetric, ""}},
    {"searcher.smaller_is_better", {kGcPolicy, ""}},
    {"searcher.max_length.batches", {"Batch lengths are taken as they are", ""}},
    {"searcher.max_length.records",
     {"Record lengths drop the partial batch: 10 records at batch size 3 train 9 records, 3 batches", ""}},
    {"searcher.max_length.epochs", {"Epoch lengths multiply by records_per_epoch before dividing", ""}},
    {"searcher.max_concurrent_trials", {"grid: max_concurrent_trials caps the trials alive at a time", ""}},
    {"searcher.early_stopping.rule", {kMedianStopping, ""}},
    {"searcher.early_stopping.min_trials", {kMedianStopping, ""}},
    {"searcher.early_stopping.start_step", {kMedianStopping, ""}},
    {"searcher.early_stopping.num_steps", {kMedianStopping, ""}},
    {"searcher.goal", {"A goal ends the search: open trials are closed as stopped early, no more are created", ""}},
    {"searcher.max_failed_trials", {"max_failed_trials gives up: open trials closed, Shutdown reports failure", ""}},
    {"searcher.max_trials", {"random: max_trials sampled trials, ids in creation order, cap respected", ""}},
    {"searcher.mode", {"asha plan: rungs max_length / d^k, brackets by mode, trials split by budget", ""}},
    {"searcher.divisor", {"asha plan: rungs max_length / d^k, brackets by mode, trials split by budget", ""}},
    {"searcher.max_rungs", {"asha: promotions and stops at each rung exactly as specified", ""}},
    {"searcher.n_startup_trials", {kStartupTrials, ""}},
    {"searcher.gamma", {"tpe's gamma: with every result counted as good the model no longer favours the best choice", ""}},
    {"searcher.n_ei_candidates",
     {"tpe's n_ei_candidates: one candidate is a draw from the good density, more are weighed against the bad one", ""}},
    {"searcher.prior_weight", {"tpe's prior_weight: a heavier uniform prior spreads the suggestions over every choice", ""}},
    {"searcher.multivariate", {"tpe's multivariate: one joint density keeps interacting choices together", ""}},
    {"searcher.bandwidth_factor",
     {"tpe's bandwidth_factor: narrower kernels put the suggestions nearer the best trial so far", ""}},
    {"searcher.n_initial_points", {kStartupTrials, ""}},
    {"searcher.xi", {"bayesian's xi: a larger improvement margin explores farther from the trials so far", ""}},
    {"searcher.n_candidates",
     {"bayesian's n_candidates: the random candidates are what lets the acquisition reach untried choices", ""}},
    {"searcher.population_size", {kPbtRounds, kPbtRefusal}},
    {"searcher.num_rounds", {kPbtRounds, kPbtRefusal}},
    {"searcher.length_per_round.batches", {kPbtRounds, kPbtRefusal}},
    {"searcher.length_per_round.records", {kPbtPlan, kPbtRefusal}},
    {"searcher.length_per_round.epochs", {kPbtPlan, "pbt's length_per_round in epochs needs records_per_epoch"}},
    {"searcher.replace_function.truncate_fraction", {kPbtPlan, kPbtRefusal}},
    {"searcher.explore_function.resample_probability", {kPbtExplore, kPbtRefusal}},
    {"searcher.explore_function.perturb_factor", {kPbtExplore, kPbtRefusal}},
    {"metrics_collector.format",
     {kCommandInputs,
      "metrics_collector is refused for a trial class which reports its metrics through the trial API"}},
    {"records_per_epoch", {"Epoch lengths multiply by records_per_epoch before dividing", ""}},
    {"scheduling_unit", {kSchedulePolicy, kCommandRefusal}},
    {"min_validation_period.batches", {kSchedulePolicy, kCommandRefusal}},
    {"min_validation_period.records", {kSchedulePolicy, kCommandRefusal}},
    {"min_validation_period.epochs", {kSchedulePolicy, kCommandRefusal}},
    {"min_checkpoint_period.batches", {"min_checkpoint_period checkpoints happen under every policy", kCommandRefusal}},
    {"min_checkpoint_period.records", {kSchedulePolicy, kCommandRefusal}},
    {"min_checkpoint_period.epochs", {kSchedulePolicy, kCommandRefusal}},
    {"checkpoint_policy", {"checkpoint_policy decides which validations a trial checkpoints after", kCommandRefusal}},
    {"perform_initial_validation", {kSchedulePolicy, kCommandRefusal}},
    {"max_restarts", {"A rank's death restarts the run within max_restarts and then ends the trial in ERROR", ""}},
    {"checkpoint_storage.type", {kSharedFs, kObjectStores}},
    {"checkpoint_storage.save_experiment_best", {kGcPolicy, ""}},
    {"checkpoint_storage.save_trial_best", {kGcPolicy, ""}},
    {"checkpoint_storage.save_trial_latest", {kGcPolicy, ""}},
    {"checkpoint_storage.host_path", {kSharedFs, ""}},
    {"checkpoint_storage.storage_path", {kSharedFs, ""}},
    // The keys of s3, gcs and azure: their types are refused when the experiment is created.
    {"checkpoint_storage.bucket", {"", kObjectStores}},
    {"checkpoint_storage.access_key", {"", kObjectStores}},
    {"checkpoint_storage.secret_key", {"", kObjectStores}},
    {"checkpoint_storage.prefix", {"", kObjectStores}},
    {"checkpoint_storage.endpoint_url", {"", kObjectStores}},
    {"checkpoint_storage.container", {"", kObjectStores}},
    {"checkpoint_storage.connection_string", {"", kObjectStores}},
    {"checkpoint_storage.account_url", {"", kObjectStores}},
    {"checkpoint_storage.credential", {"", kObjectStores}},
    {"resources.slots_per_trial", {"The example trial on 2 and 4 slots of one host reports the metrics of 1 slot", ""}},
    // The master's launch hands it to the agents (LaunchSpec.killGracePeriodMs).
    {"resources.kill_grace_period",
     {"A trial asks for its slots once given a target and launches one rank per granted slot", ""}},
    {"resources.memory_limit", {kRankLimits, kRankLimitRefusal}},
    {"resources.max_processes", {kRankLimits, kRankLimitRefusal}},
    {"resources.resource_pool",
     {"A pool with no agents queues its experiment until an agent joins it, and agents show their pool and labels",
      "An unknown pool or one that can never fit a trial is refused at submission and an unknown --pool at registration"}},
    {"resources.priority",
     {"A priority-10 experiment preempts a priority-50 one, which resumes with the metrics of an uninterrupted run",
      kSchedulingRefusal}},
    {"resources.weight", {"Two experiments of equal weight share the slots of their pool evenly", kSchedulingRefusal}},
    {"environment.environment_variables",
     {"Paused-and-activated and crashed-and-restarted trials report exactly the metrics of an uninterrupted one", ""}},
    {"environment.experiment_seed",
     {"experiment_seed may stand under environment, as the manual lists it, but in one place only",
      "experiment_seed may stand under environment, as the manual lists it, but in one place only"}},
    {"experiment_seed", {"random: the experiment seed decides the samples", ""}},
    // The trial sandbox (tests/integration/sandbox_test.cpp, runtime/config/tests/sandbox_fields_test.cpp).
    {"resources.shm_size",
     {kSandboxed,
      "With --sandbox off a trial with bind mounts or shm_size fails at launch naming the field: they cannot be honoured"}},
    {"bind_mounts[].host_path", {kSandboxed, "A bind mount whose host_path is missing fails the trial at launch naming the mount"}},
    {"bind_mounts[].container_path",
     {kSandboxed, "A bind mount's container path that is relative or would shadow the sandbox's folders is refused at its line"}},
    {"bind_mounts[].read_only", {kSandboxed, ""}},
    {"bind_mounts[].propagation",
     {"A mount made on the host under a bind mount's host_path while the trial runs appears inside its sandbox",
      "A bind mount's propagation other than rslave is refused: the sandbox's mounts are the host's slaves"}},
    {"environment.image", {"", kImageRefusal}},
    {"environment.force_pull_image", {"", kImageRefusal}},
    {"environment.registry_auth.username", {"", kImageRefusal}},
    {"environment.registry_auth.password", {"", kImageRefusal}},
    {"environment.registry_auth.serveraddress", {"", kImageRefusal}},
};

bool skipped_directory(const std::filesystem::path& dir) {
  const std::string name = dir.filename().string();
  return name.starts_with("build") || name.starts_with(".") || name == "node_modules" || name == "volador-demo";
}

bool is_test_source(const std::filesystem::path& file) {
  const std::string text = file.generic_string();
  const bool in_tests = text.find("/tests/") != std::string::npos || text.find("/tests") == text.size() - 6;
  return in_tests && (file.extension() == ".cpp" || file.extension() == ".py");
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every test name in the repository's test sources: Catch2 TEST_CASE, TEST_CASE_METHOD and
// SECTION names (escaped quotes unescaped) and Python `def test_...`.
std::set<std::string> test_names_in_sources() {
  static const std::regex catch_name(R"re((?:TEST_CASE|SECTION|TEST_CASE_METHOD)\((?:\w+, )?"((?:[^"\\]|\\.)*)")re");
  static const std::regex python_name(R"re(def (test_\w+)\()re");
  std::set<std::string> names;
  namespace fs = std::filesystem;
  for (auto it = fs::recursive_directory_iterator(VOLADOR_SOURCE_DIR); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && skipped_directory(it->path())) it.disable_recursion_pending();
    if (!it->is_regular_file() || !is_test_source(it->path())) continue;
    const std::string text = read_text(it->path());
    for (const auto& regex : {catch_name, python_name})
      for (auto m = std::sregex_iterator(text.begin(), text.end(), regex); m != std::sregex_iterator(); ++m)
        names.insert(std::regex_replace((*m)[1].str(), std::regex(R"(\\")"), "\""));
  }
  return names;
}

}  // namespace

TEST_CASE("Every accepted config field has an effect or refusal test", "[config][fields]") {
  for (const auto& path : volador::config::accepted_field_paths()) {
    CAPTURE(path);
    CHECK(kCoverage.contains(path));
  }
}

TEST_CASE("The coverage table names only fields the parser accepts", "[config][fields]") {
  const auto accepted = volador::config::accepted_field_paths();
  const auto accepts = [&](std::string_view path) { return std::ranges::find(accepted, path) != accepted.end(); };
  for (const auto& [path, coverage] : kCoverage) {
    CAPTURE(path);
    CHECK(accepts(path));
    CHECK_FALSE((coverage.effect_test.empty() && coverage.refusal_test.empty()));
  }
}

TEST_CASE("Every test the coverage table names exists in the repository's test sources", "[config][fields]") {
  const auto names = test_names_in_sources();
  REQUIRE(names.contains("Every test the coverage table names exists in the repository's test sources"));
  for (const auto& [path, coverage] : kCoverage) {
    CAPTURE(path);
    for (const std::string_view test : {coverage.effect_test, coverage.refusal_test}) {
      CAPTURE(test);
      if (!test.empty()) CHECK(names.contains(std::string(test)));
    }
  }
}
