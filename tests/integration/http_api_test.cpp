// End to end: the master's HTTP API on a real cluster, driven by an HTTP
// client: every route's 401, the users' 403, unknown ids' 404, bad input's
// 400 (each a JSON error), an experiment uploaded as files whose curves,
// logs, live log stream and checkpoints are then served, a Keras trial
// refused at submission, and the lifecycle and model registry routes.
#include <catch2/catch.hpp>

#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tests/integration/cluster_fixture.hpp"

using namespace volador;
using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

const fs::path kExample = fs::path(VOLADOR_SOURCE_DIR) / "examples" / "native_mlp";

// A cluster with an agent of 2 slots, and an HTTP client of its master's API.
struct ApiCluster {
  TempDir dir;
  Cluster cluster{dir.path(), 2};
  httplib::Client client{base_url()};

  std::string base_url() const {
    std::string url;
    std::ifstream(dir.path() / "http.addr") >> url;
    REQUIRE(url.starts_with("http://"));
    return url.substr(0, url.size() - 1);  // without the trailing '/'
  }
  std::string admin_password() const {
    std::string password;
    std::getline(std::ifstream(dir.path() / "admin.password"), password);
    return password;
  }
};

httplib::Headers bearer(const std::string& token) { return {{"Authorization", "Bearer " + token}}; }

nlohmann::json body(const httplib::Result& result) {
  REQUIRE(result);
  return nlohmann::json::parse(result->body);
}

// Checks `result` is a JSON error with this status and code.
void check_error(const httplib::Result& result, int status, const std::string& code) {
  REQUIRE(result);
  INFO(result->body);
  CHECK(result->status == status);
  auto error = nlohmann::json::parse(result->body)["error"];
  CHECK(error["status"] == status);
  CHECK(error["code"] == code);
  CHECK_FALSE(error["message"].get<std::string>().empty());
}

std::string login(httplib::Client& client, const std::string& name, const std::string& password) {
  auto reply = client.Post("/api/v1/auth/login", nlohmann::json{{"username", name}, {"password", password}}.dump(),
                           "application/json");
  REQUIRE(reply);
  REQUIRE(reply->status == 200);
  return nlohmann::json::parse(reply->body)["token"];
}

// Creates user `name` (as the admin) and logs it in.
std::string user_token(httplib::Client& client, const std::string& admin_token, const std::string& name) {
  auto created = client.Post("/api/v1/users", bearer(admin_token),
                             nlohmann::json{{"username", name}, {"password", name + "-password"}}.dump(), "application/json");
  REQUIRE(created);
  REQUIRE(created->status == 201);
  return login(client, name, name + "-password");
}

// Uploads `config` and the project's `files` (path -> content), file by file, as a browser does.
httplib::Result upload(httplib::Client& client, const std::string& token, const std::string& config,
                       const std::map<std::string, std::string>& files) {
  httplib::MultipartFormDataItems items{{"config", config, "distributed.yaml", "application/yaml"}};
  for (const auto& [path, content] : files) items.push_back({"files", content, path, "application/octet-stream"});
  return client.Post("/api/v1/experiments", bearer(token), items);
}

// Uploads the native MLP example.
httplib::Result upload_example(httplib::Client& client, const std::string& token) {
  auto read = [](const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(kExample))
    if (entry.is_regular_file()) files[fs::relative(entry.path(), kExample).string()] = read(entry.path());
  return upload(client, token, read(kExample / "distributed.yaml"), files);
}

// The id in the 201 reply to a submission.
std::uint64_t created_id(const httplib::Result& reply) {
  REQUIRE(reply);
  INFO(reply->body);
  REQUIRE(reply->status == 201);
  return nlohmann::json::parse(reply->body)["id"];
}

// Waits until experiment `id` ended; its summary.
nlohmann::json wait_until_ended(httplib::Client& client, const std::string& token, std::uint64_t id) {
  nlohmann::json summary;
  REQUIRE(eventually([&] {
    summary = body(client.Get("/api/v1/experiments/" + std::to_string(id), bearer(token)));
    return summary["state"] != "ACTIVE";
  }, 120));
  return summary;
}

}  // namespace

TEST_CASE("Every API route without a valid token is refused with a JSON 401") {
  ApiCluster api;
  const std::vector<std::pair<std::string, std::string>> routes = {
      {"GET", "/api/v1/experiments"},          {"POST", "/api/v1/experiments"},
      {"GET", "/api/v1/experiments/1"},        {"GET", "/api/v1/experiments/1/trials"},
      {"GET", "/api/v1/experiments/1/metrics"}, {"GET", "/api/v1/experiments/1/checkpoints"},
      {"POST", "/api/v1/experiments/1/pause"}, {"POST", "/api/v1/experiments/1/activate"},
      {"POST", "/api/v1/experiments/1/kill"},  {"POST", "/api/v1/experiments/1/archive"},
      {"POST", "/api/v1/experiments/1/unarchive"}, {"GET", "/api/v1/trials/1"},
      {"GET", "/api/v1/trials/1/metrics"},     {"GET", "/api/v1/trials/1/logs"},
      {"GET", "/api/v1/trials/1/logs/stream"}, {"GET", "/api/v1/trials/1/checkpoints"},
      {"POST", "/api/v1/trials/1/kill"},       {"GET", "/api/v1/checkpoints/abc/download"},
      {"GET", "/api/v1/agents"},               {"GET", "/api/v1/pools"},
      {"POST", "/api/v1/config/validate"},     {"POST", "/api/v1/preview"},
      {"POST", "/api/v1/auth/logout"},         {"GET", "/api/v1/me"},
      {"GET", "/api/v1/users"},                {"POST", "/api/v1/users"},
      {"POST", "/api/v1/experiments/1/delete"}, {"POST", "/api/v1/experiments/1/fork"},
      {"POST", "/api/v1/experiments/1/continue"}, {"POST", "/api/v1/experiments/1/metadata"},
      {"GET", "/api/v1/experiments/1/model_def"}, {"POST", "/api/v1/checkpoints/abc/delete"},
      {"GET", "/api/v1/models"},               {"POST", "/api/v1/models"},
      {"GET", "/api/v1/models/resnet"},        {"POST", "/api/v1/models/resnet/versions"}};
  for (const auto& [method, path] : routes) {
    INFO(method << " " << path);
    for (const auto& headers : {httplib::Headers{}, bearer("not-a-token"), httplib::Headers{{"Cookie", "volador_token=nope"}}}) {
      auto reply = method == "GET" ? api.client.Get(path.c_str(), headers) : api.client.Post(path.c_str(), headers, "{}", "application/json");
      check_error(reply, 401, "unauthenticated");
    }
  }
}

TEST_CASE("The pools route shows each pool's scheduler, capacity, use and queue and each experiment's share") {
  ApiCluster api;
  const auto token = login(api.client, "admin", api.admin_password());
  const auto auth = bearer(token);
  const auto gate = api.dir.path() / "gate";
  write_gated_project(api.dir.path() / "running", gate, 1);
  write_gated_project(api.dir.path() / "waiting", gate, 1,
                      "resources: {slots_per_trial: 2, priority: 50, weight: 2}\n");
  auto pool = [&] {
    const auto pools = body(api.client.Get("/api/v1/pools", auth))["pools"];
    REQUIRE(pools.size() == 1);
    return pools[0];
  };
  const auto running = std::stoull(submit(api.cluster, api.dir.path() / "running"));
  REQUIRE(eventually([&] { return pool()["running_trials"] == 1; }));
  // Less important and needing both slots: it waits, and preempts nothing.
  const auto waiting = std::stoull(submit(api.cluster, api.dir.path() / "waiting"));
  REQUIRE(eventually([&] { return pool()["pending_trials"] == 1; }));
  const auto listed = pool();
  CHECK(listed["name"] == "default");
  CHECK(listed["scheduler"] == "priority");
  CHECK(listed["preemption"] == true);
  CHECK(listed["min_run_time_ms"] == 60'000);
  CHECK(listed["agents"] == 1);
  CHECK(listed["slots"] == 2);
  CHECK(listed["used_slots"] == 1);
  CHECK(listed["running_trials"] == 1);
  CHECK(listed["pending_slots"] == 2);
  CHECK(listed["preempting_trials"] == 0);
  CHECK(listed["experiments"] == nlohmann::json::array(
                                     {{{"experiment_id", running}, {"priority", 42}, {"weight", 1.0},
                                       {"allocated_slots", 1}, {"running_trials", 1}, {"pending_trials", 0},
                                       {"ideal_slots", 1.0}},
                                      {{"experiment_id", waiting}, {"priority", 50}, {"weight", 2.0},
                                       {"allocated_slots", 0}, {"running_trials", 0}, {"pending_trials", 1},
                                       {"ideal_slots", 1.0}}}));
  write_file(gate, "");
  for (auto id : {running, waiting}) CHECK(wait_until_ended(api.client, token, id)["state"] == "COMPLETED");
  CHECK(pool()["experiments"].empty());
}

TEST_CASE("A wrong password is a 401 that says nothing more and a logged-out token is refused") {
  ApiCluster api;
  auto wrong = api.client.Post("/api/v1/auth/login", R"({"username":"admin","password":"not-it-at-all"})", "application/json");
  check_error(wrong, 401, "unauthenticated");
  auto unknown = api.client.Post("/api/v1/auth/login", R"({"username":"nobody","password":"not-it-at-all"})", "application/json");
  check_error(unknown, 401, "unauthenticated");
  CHECK(body(wrong)["error"]["message"] == body(unknown)["error"]["message"]);

  auto reply = api.client.Post("/api/v1/auth/login",
                               nlohmann::json{{"username", "admin"}, {"password", api.admin_password()}}.dump(), "application/json");
  REQUIRE(reply);
  REQUIRE(reply->status == 200);
  const auto cookie = reply->get_header_value("Set-Cookie");
  CHECK_THAT(cookie, Catch::Contains("HttpOnly") && Catch::Contains("SameSite=Strict"));
  const std::string token = nlohmann::json::parse(reply->body)["token"];
  CHECK(body(api.client.Get("/api/v1/me", {{"Cookie", "volador_token=" + token}}))["name"] == "admin");
  REQUIRE(api.client.Post("/api/v1/auth/logout", bearer(token), "", "application/json")->status == 204);
  check_error(api.client.Get("/api/v1/me", bearer(token)), 401, "unauthenticated");
}

TEST_CASE("Bad input and unknown ids get a JSON 400 or 404 naming what was wrong") {
  ApiCluster api;
  const auto token = login(api.client, "admin", api.admin_password());
  const auto auth = bearer(token);
  for (const auto* path : {"/api/v1/experiments/99", "/api/v1/experiments/99/trials", "/api/v1/experiments/99/metrics",
                           "/api/v1/experiments/99/checkpoints", "/api/v1/trials/99", "/api/v1/trials/99/metrics",
                           "/api/v1/trials/99/logs", "/api/v1/trials/99/logs/stream", "/api/v1/trials/99/checkpoints",
                           "/api/v1/checkpoints/0123-4567/download", "/api/v1/nothing/here"}) {
    INFO(path);
    check_error(api.client.Get(path, auth), 404, "not_found");
  }
  for (const auto* path : {"/api/v1/experiments/99/pause", "/api/v1/experiments/99/activate", "/api/v1/experiments/99/kill",
                           "/api/v1/experiments/99/archive", "/api/v1/trials/99/kill"}) {
    INFO(path);
    check_error(api.client.Post(path, auth, "", "application/json"), 404, "not_found");
  }
  check_error(api.client.Get("/api/v1/experiments?colour=red", auth), 400, "invalid_argument");
  check_error(api.client.Get("/api/v1/experiments?limit=0", auth), 400, "invalid_argument");
  check_error(api.client.Get("/api/v1/experiments?state=RUNNING", auth), 400, "invalid_argument");
  check_error(api.client.Get("/api/v1/trials/1/logs?after_seq=x", auth), 400, "invalid_argument");
  check_error(api.client.Post("/api/v1/auth/login", "{not json", "application/json"), 400, "invalid_argument");
  check_error(api.client.Post("/api/v1/config/validate", auth, R"({"yaml": 1})", "application/json"), 400, "invalid_argument");
  check_error(api.client.Post("/api/v1/preview", auth, R"({"config": "name: [unclosed"})", "application/json"), 400,
              "invalid_argument");
  check_error(api.client.Post("/api/v1/experiments", auth, "{}", "application/json"), 400, "invalid_argument");
  check_error(api.client.Post("/api/v1/users", auth, R"({"username": "Bad Name", "password": "long-enough"})", "application/json"),
              400, "invalid_argument");
  httplib::MultipartFormDataItems traversal = {{"config", "name: x\n", "distributed.yaml", ""},
                                               {"files", "x", "../outside.py", ""}};
  auto escaped = api.client.Post("/api/v1/experiments", auth, traversal);
  check_error(escaped, 400, "invalid_argument");
  CHECK_THAT(body(escaped)["error"]["message"].get<std::string>(), Catch::Contains("../outside.py"));

  auto errors = body(api.client.Post("/api/v1/config/validate", auth,
                                     nlohmann::json{{"config", "name: x\nsearcher:\n  name: nope\n"}}.dump(), "application/json"));
  bool placed = false;  // the bad searcher name is placed at its line and field, for the form
  for (const auto& e : errors["errors"]) placed = placed || (e["field"] == "searcher.name" && e["line"] == 3);
  CHECK(placed);

  httplib::Headers too_big = auth;
  too_big.emplace("Content-Length", std::to_string(1ull << 31));
  auto huge = api.client.Post("/api/v1/experiments", too_big, "x", "application/json");
  REQUIRE(huge);
  CHECK(huge->status == 413);
}

TEST_CASE("Only an experiment's owner or an admin may steer it over the API") {
  ApiCluster api;
  const auto admin = login(api.client, "admin", api.admin_password());
  const auto alice = user_token(api.client, admin, "alice");
  const auto bob = user_token(api.client, admin, "bob");
  check_error(api.client.Get("/api/v1/users", bearer(alice)), 403, "permission_denied");

  auto created = upload_example(api.client, alice);
  REQUIRE(created);
  INFO(created->body);
  REQUIRE(created->status == 201);
  const std::uint64_t id = nlohmann::json::parse(created->body)["id"];
  const auto path = "/api/v1/experiments/" + std::to_string(id);
  CHECK(body(api.client.Get(path.c_str(), bearer(bob)))["owner"] == "alice");
  for (const auto* verb : {"/pause", "/activate", "/kill"}) {
    INFO(verb);
    check_error(api.client.Post((path + verb).c_str(), bearer(bob), "", "application/json"), 403, "permission_denied");
  }
  auto summary = wait_until_ended(api.client, alice, id);
  CHECK(summary["state"] == "COMPLETED");
  check_error(api.client.Post((path + "/archive").c_str(), bearer(bob), "", "application/json"), 403, "permission_denied");
  REQUIRE(api.client.Post((path + "/archive").c_str(), bearer(alice), "", "application/json")->status == 200);
  CHECK(body(api.client.Get("/api/v1/experiments", bearer(bob)))["total"] == 0);
  CHECK(body(api.client.Get("/api/v1/experiments?archived=true&owner=alice", bearer(bob)))["total"] == 1);
  REQUIRE(api.client.Post((path + "/unarchive").c_str(), bearer(admin), "", "application/json")->status == 200);
  CHECK(body(api.client.Get("/api/v1/experiments", bearer(bob)))["total"] == 1);
}

TEST_CASE("An experiment uploaded over the API is served back: curves logs a live log stream and checkpoints") {
  ApiCluster api;
  const auto token = login(api.client, "admin", api.admin_password());
  const auto auth = bearer(token);
  auto created = upload_example(api.client, token);
  REQUIRE(created);
  INFO(created->body);
  REQUIRE(created->status == 201);
  const std::uint64_t id = nlohmann::json::parse(created->body)["id"];

  // Follow the first trial's log live while the experiment runs.
  const auto first_trial = [&] {
    nlohmann::json trials;
    REQUIRE(eventually([&] {
      trials = body(api.client.Get(("/api/v1/experiments/" + std::to_string(id) + "/trials").c_str(), auth))["trials"];
      return !trials.empty();
    }));
    return trials[0]["id"].get<std::uint64_t>();
  }();
  std::string stream;
  auto streamed = api.client.Get(("/api/v1/trials/" + std::to_string(first_trial) + "/logs/stream").c_str(), auth,
                                 [&](const char* data, std::size_t length) {
                                   stream.append(data, length);
                                   return true;
                                 });
  REQUIRE(streamed);
  CHECK(streamed->status == 200);
  CHECK_THAT(stream, Catch::Contains("data: {") && Catch::EndsWith("event: end\ndata: {}\n\n"));

  auto summary = wait_until_ended(api.client, token, id);
  REQUIRE(summary["state"] == "COMPLETED");
  REQUIRE(summary["trials"].size() == 6);

  auto curves = body(api.client.Get(("/api/v1/experiments/" + std::to_string(id) + "/metrics?max_points=3").c_str(), auth));
  CHECK(curves["metric"] == "accuracy");
  REQUIRE(curves["trials"].size() == 6);
  for (const auto& trial : curves["trials"]) {
    CHECK(trial["points"].size() == 3);  // 4 validations, downsampled
    CHECK(trial["hparams"].contains("learning_rate"));
  }

  const auto trial = std::to_string(first_trial);
  auto page = body(api.client.Get(("/api/v1/trials/" + trial + "/logs?limit=2").c_str(), auth));
  REQUIRE(page["lines"].size() == 2);
  CHECK(page["next_seq"] == page["lines"][1]["seq"]);
  auto found = body(api.client.Get(("/api/v1/trials/" + trial + "/logs?q=validated").c_str(), auth));
  REQUIRE_FALSE(found["lines"].empty());
  for (const auto& line : found["lines"]) CHECK_THAT(line["text"].get<std::string>(), Catch::Contains("validated"));

  auto checkpoints = body(api.client.Get(("/api/v1/trials/" + trial + "/checkpoints").c_str(), auth))["checkpoints"];
  REQUIRE_FALSE(checkpoints.empty());
  const std::string uuid = checkpoints.back()["uuid"];
  auto download = api.client.Get(("/api/v1/checkpoints/" + uuid + "/download").c_str(), auth);
  REQUIRE(download);
  REQUIRE(download->status == 200);
  TempDir unpacked;
  fs::path archive = unpacked.path() / "checkpoint.tar.gz";
  std::ofstream(archive, std::ios::binary) << download->body;
  REQUIRE(run_command({"tar", "xzf", archive.string(), "-C", unpacked.path().string()}).exit_code == 0);
  CHECK(fs::exists(unpacked.path() / "manifest.json"));

  auto metrics = api.client.Get("/metrics");
  REQUIRE(metrics);
  CHECK_THAT(metrics->body, Catch::Contains("volador_experiments{state=\"COMPLETED\"} 1") &&
                                Catch::Contains("volador_slots{agent=\"test-agent\"") &&
                                Catch::Contains("volador_metric_reports_total{kind=\"VALIDATION\"} 24") &&
                                Catch::Contains("volador_journal_commit_seconds_count") &&
                                Catch::Contains("volador_http_requests_total{route=\"/api/v1/experiments/{id}\""));
}

TEST_CASE("A trial's log of a thousand lines in one burst reads the same through pages, a search, the live stream "
          "and trial logs --tail") {
  // The journal keeps the burst as chunks of lines (storage/journal/log_chunks.hpp); every reader pages by line.
  ApiCluster api;
  const auto token = login(api.client, "admin", api.admin_password());
  const auto auth = bearer(token);
  const std::string config =
      "name: burst\n"
      "entrypoint: /bin/sh printer.sh\n"
      "hyperparameters: {global_batch_size: 1}\n"
      "searcher: {name: single, metric: loss, max_length: {batches: 1000}}\n"
      "max_restarts: 0\n";
  const auto id = created_id(upload(api.client, token, config, {{"printer.sh", "exec /usr/bin/seq -f 'loss=%.0f' 1 1000\n"}}));
  REQUIRE(wait_until_ended(api.client, token, id)["state"] == "COMPLETED");
  const auto trial = body(api.client.Get(("/api/v1/experiments/" + std::to_string(id) + "/trials").c_str(), auth))
                         ["trials"][0]["id"].get<std::uint64_t>();
  const std::string logs = "/api/v1/trials/" + std::to_string(trial) + "/logs";

  // The whole log in one page: seqs 1, 2, ... holding the command's lines in order.
  const auto all = body(api.client.Get((logs + "?limit=10000").c_str(), auth))["lines"];
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < all.size(); ++i) {
    REQUIRE(all[i]["seq"] == i + 1);
    texts.push_back(all[i]["text"]);
  }
  std::vector<std::string> printed;
  for (const auto& text : texts)
    if (text.starts_with("loss=")) printed.push_back(text);
  REQUIRE(printed.size() == 1000);
  for (std::size_t i = 0; i < printed.size(); ++i) CHECK(printed[i] == "loss=" + std::to_string(i + 1));

  // Pages of 97 lines, each after the last one's seq (the web UI's "more").
  std::vector<std::string> paged;
  for (std::uint64_t after = 0;;) {
    const auto page = body(api.client.Get((logs + "?limit=97&after_seq=" + std::to_string(after)).c_str(), auth));
    if (page["lines"].empty()) break;
    for (const auto& line : page["lines"]) paged.push_back(line["text"]);
    after = page["next_seq"];
  }
  CHECK(paged == texts);

  // A search: the lines holding the text, in order.
  std::vector<std::string> found, expected_found;
  const auto search = body(api.client.Get((logs + "?q=7").c_str(), auth));
  INFO(search.dump().substr(0, 300));  // an error's reply, if it is one
  for (const auto& line : search["lines"]) found.push_back(line["text"]);
  for (const auto& text : texts)
    if (text.find('7') != std::string::npos) expected_found.push_back(text);
  CHECK(expected_found.size() >= 271);  // loss=N for the 271 of 1-1000 with a 7
  CHECK(found == expected_found);

  // The live stream of an ended trial: every line as an event, in order, then its end.
  std::string stream;
  REQUIRE(api.client.Get((logs + "/stream").c_str(), auth, [&](const char* data, std::size_t length) {
    stream.append(data, length);
    return true;
  }));
  std::vector<std::string> streamed;
  for (std::size_t at = 0; (at = stream.find("id: ", at)) != std::string::npos; ++at) {  // an event of a line
    const std::size_t data = stream.find("data: ", at) + 6;
    streamed.push_back(nlohmann::json::parse(stream.substr(data, stream.find('\n', data) - data))["text"]);
  }
  CHECK(streamed == texts);
  CHECK_THAT(stream, Catch::EndsWith("event: end\ndata: {}\n\n"));

  // trial logs --tail 300: the last 300 lines, in order.
  const auto tail = api.cluster.cli({"trial", "logs", std::to_string(trial), "--tail", "300", "--json"});
  REQUIRE(tail.exit_code == 0);
  std::vector<std::string> tailed;
  for (const auto& line : nlohmann::json::parse(tail.out)) tailed.push_back(line["text"]);
  CHECK(tailed == std::vector<std::string>(texts.end() - 300, texts.end()));
}

TEST_CASE("Over HTTPS the API presents a certificate of the cluster CA valid for the address it is reached at") {
  TempDir dir;
  Cluster cluster(dir.path());
  cluster.add_node_arguments({"--http-tls", "on"});
  cluster.start_master();
  std::string url;
  std::ifstream(dir.path() / "http.addr") >> url;
  REQUIRE(url.starts_with("https://127.0.0.1:"));
  const int port = std::stoi(url.substr(url.rfind(':') + 1));
  for (const auto* host : {"127.0.0.1", "localhost"}) {
    INFO(host);
    httplib::SSLClient client(host, port);
    client.set_ca_cert_path((dir.path() / "tls" / "ca" / "ca.crt").c_str());
    client.enable_server_certificate_verification(true);
    check_error(client.Get("/api/v1/me"), 401, "unauthenticated");
  }
  httplib::SSLClient stranger("127.0.0.1", port);  // trusts the system's CAs, not the cluster's
  stranger.enable_server_certificate_verification(true);
  CHECK_FALSE(stranger.Get("/api/v1/me"));
  httplib::Client plain("127.0.0.1", port);
  auto refused = plain.Get("/api/v1/me");
  CHECK((!refused || refused->status != 401));
}

TEST_CASE("A Keras trial is refused at submission over the API and from the CLI, naming its import") {
  ApiCluster api;
  const auto token = login(api.client, "admin", api.admin_password());
  const std::string config = "name: k\nentrypoint: model_def:MyTrial\nhyperparameters: {global_batch_size: 8}\n"
                             "searcher: {name: single, metric: accuracy, max_length: {batches: 10}}\n";
  const std::string model = "import determined.keras as dk\n\nclass MyTrial(dk.TFKerasTrial):\n    pass\n";
  const std::string why = "model_def.py:1: imports determined.keras: Keras trials are not available";

  auto uploaded = upload(api.client, token, config, {{"model_def.py", model}});
  check_error(uploaded, 400, "invalid_argument");
  CHECK_THAT(body(uploaded)["error"]["message"].get<std::string>(), Catch::Contains(why));

  const auto project = api.dir.path() / "keras";
  write_file(project / "model_def.py", model);
  write_file(project / "distributed.yaml", config);
  auto created = api.cluster.cli({"experiment", "create", (project / "distributed.yaml").string(), project.string()});
  CHECK(created.exit_code == 1);
  CHECK_THAT(created.err, Catch::Contains(why));
  CHECK(body(api.client.Get("/api/v1/experiments", bearer(token)))["total"] == 0);
}

// Each lifecycle route once, its effect checked through the API's reads.
TEST_CASE("The lifecycle routes set metadata, serve the project, fork, continue, register a model and delete") {
  ApiCluster api;
  const auto token = login(api.client, "admin", api.admin_password());
  const auto auth = bearer(token);
  const auto post = [&](const std::string& path, const nlohmann::json& json) {
    return api.client.Post(path.c_str(), auth, json.dump(), "application/json");
  };
  const auto get = [&](const std::string& path) { return body(api.client.Get(path.c_str(), auth)); };
  const auto storage = api.dir.path() / "checkpoints";
  fs::create_directories(storage);
  const auto config = native_trial_config(
      "original", "min_checkpoint_period: {batches: 20}\n"
                  "searcher: {name: single, metric: accuracy, smaller_is_better: false, max_length: {batches: 40}}\n"
                  "checkpoint_storage: {type: shared_fs, host_path: " + storage.string() + ", save_trial_latest: 2}\n");
  const auto id = created_id(upload(api.client, token, config, {{"notes.txt", "kept in the project\n"}}));
  const auto experiment = "/api/v1/experiments/" + std::to_string(id);
  REQUIRE(wait_until_ended(api.client, token, id)["state"] == "COMPLETED");

  auto metadata = post(experiment + "/metadata", {{"description", "the one to ship"}, {"labels", {"prod", "mnist"}}});
  REQUIRE(metadata);
  CHECK(metadata->status == 200);
  CHECK(get(experiment)["description"] == "the one to ship");
  CHECK(get(experiment)["labels"] == nlohmann::json::array({"prod", "mnist"}));

  auto definition = api.client.Get((experiment + "/model_def").c_str(), auth);
  REQUIRE(definition);
  REQUIRE(definition->status == 200);
  CHECK(definition->get_header_value("Content-Type") == "application/gzip");
  TempDir unpacked;
  std::ofstream(unpacked.path() / "def.tar.gz", std::ios::binary) << definition->body;
  REQUIRE(run_command({"tar", "xzf", (unpacked.path() / "def.tar.gz").string(), "-C", unpacked.path().string()})
              .exit_code == 0);
  std::string notes;
  std::getline(std::ifstream(unpacked.path() / "notes.txt"), notes);
  CHECK(notes == "kept in the project");

  auto fork = post(experiment + "/fork", {{"config", "name: forked\n"}});
  const auto forked = created_id(fork);
  CHECK(body(fork)["forked_from"] == id);
  const auto forked_summary = wait_until_ended(api.client, token, forked);
  CHECK(forked_summary["state"] == "COMPLETED");
  CHECK(forked_summary["name"] == "forked");

  auto more = post(experiment + "/continue", {{"config", "searcher:\n  max_length: {batches: 60}\n"}});
  const auto continued = created_id(more);
  CHECK(body(more)["continued_from"] == id);
  const auto continued_summary = wait_until_ended(api.client, token, continued);
  CHECK(continued_summary["state"] == "COMPLETED");
  CHECK(continued_summary["trials"][0]["batches_trained"] == 60);

  auto live = nlohmann::json::array();
  const auto saved = get(experiment + "/checkpoints")["checkpoints"];
  for (const auto& c : saved)
    if (c["state"] == "ACTIVE") live.push_back(c);
  REQUIRE(live.size() == 2);
  auto model = post("/api/v1/models", {{"name", "mlp"}, {"description", "the native example"}});
  REQUIRE(model);
  CHECK(model->status == 201);
  auto version = post("/api/v1/models/mlp/versions", {{"checkpoint_uuid", live[1]["uuid"]}});
  REQUIRE(version);
  CHECK(version->status == 201);
  CHECK(body(version)["version"] == 1);
  CHECK(get("/api/v1/models")["models"][0]["name"] == "mlp");
  const auto registered = get("/api/v1/models/mlp")["versions"];
  REQUIRE(registered.size() == 1);
  CHECK(registered[0]["checkpoint_uuid"] == live[1]["uuid"]);
  CHECK(registered[0]["experiment_id"] == id);

  const std::string doomed = live[0]["uuid"];
  auto removed = post("/api/v1/checkpoints/" + doomed + "/delete", nlohmann::json::object());
  REQUIRE(removed);
  CHECK(removed->status == 200);
  CHECK_FALSE(fs::exists(live[0]["path"].get<std::string>()));
  const auto after = get(experiment + "/checkpoints")["checkpoints"];
  REQUIRE(after.size() == 2);
  for (const auto& c : after) CHECK(c["state"] == (c["uuid"] == doomed ? "DELETED" : "ACTIVE"));

  const auto forked_path = "/api/v1/experiments/" + std::to_string(forked);
  auto deleted = post(forked_path + "/delete", nlohmann::json::object());
  REQUIRE(deleted);
  CHECK(deleted->status == 200);
  check_error(api.client.Get(forked_path.c_str(), auth), 404, "not_found");
  CHECK(get("/api/v1/experiments")["total"] == 2);  // the original and the continued one
}
