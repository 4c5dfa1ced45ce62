// /api/v1/config/validate and /api/v1/preview: what the new-experiment form
// asks while the user types; the same parser and rules as `create`, no
// gateway involved.

#include <variant>

#include "http/routes.hpp"
#include "runtime/config/config_parser.hpp"
#include "runtime/search/preview.hpp"

namespace volador::http {
namespace {

struct ConfigText {
  std::string yaml;
  std::string file_name;
};

// {"config": YAML text, "file_name": optional}.
Result<ConfigText> config_text(const ApiRequest& request) {
  auto body = request.json_body();
  if (!body) return fail(body.error());
  if (!body->contains("config") || !(*body)["config"].is_string())
    return fail(Error::invalid_argument("the body needs \"config\": the distributed.yaml as a string"));
  auto file_name = body->value("file_name", std::string("distributed.yaml"));
  return ConfigText{(*body)["config"].get<std::string>(), file_name.empty() ? "distributed.yaml" : file_name};
}

nlohmann::json error_json(const config::ConfigError& e) {
  return {{"line", e.line}, {"column", e.column}, {"field", e.field}, {"message", e.message}, {"text", e.to_string()}};
}

Result<ApiReply> validate_config(const ApiRequest& request) {
  auto text = config_text(request);
  if (!text) return fail(text.error());
  auto errors = nlohmann::json::array();
  auto parsed = config::parse_experiment_config(text->yaml, text->file_name);
  if (auto* found = std::get_if<std::vector<config::ConfigError>>(&parsed))
    for (const auto& e : *found) errors.push_back(error_json(e));
  return ApiReply{.body = {{"errors", std::move(errors)}}};
}

Result<ApiReply> preview_search(const ApiRequest& request) {
  auto text = config_text(request);
  if (!text) return fail(text.error());
  auto parsed = config::parse_experiment_config(text->yaml, text->file_name);
  if (auto* errors = std::get_if<std::vector<config::ConfigError>>(&parsed)) {
    std::vector<std::string> details;
    for (const auto& e : *errors) details.push_back(e.to_string());
    return refused_reply("the config is not valid", details);
  }
  const auto& config = std::get<config::ExperimentConfig>(parsed);
  const std::uint32_t seed = config.experiment_seed.value_or(0);
  auto preview = search::preview_search(config, seed);
  if (!preview) return fail(preview.error());
  return ApiReply{.body = search::preview_json(*preview, seed)};
}

}  // namespace

void add_config_routes(ApiRouter& router) {
  router.post("/api/v1/config/validate", validate_config);
  router.post("/api/v1/preview", preview_search);
}

}  // namespace volador::http
