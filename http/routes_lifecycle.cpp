// /api/v1/experiments/{id}/... and /api/v1/checkpoints/{uuid}/... for an
// experiment's lifecycle after its submission (delete, fork, its project
// archive, its description and labels, deleting a checkpoint), and
// /api/v1/models... for the model registry. Changes and answers go through
// the gateway on the caller's token, so the CLI's rules hold (owners and admins).

#include <fmt/format.h>

#include "http/gateway_calls.hpp"
#include "http/routes.hpp"

namespace volador::http {
namespace {

// A text field of a JSON body: its value, `fallback` when absent, invalid_argument when not a string.
Result<std::string> text_field(const nlohmann::json& body, const std::string& name, std::string fallback = {}) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_string()) return fail(Error::invalid_argument("field '" + name + "': expected a string"));
  return it->get<std::string>();
}

// The gateway's acknowledgement of (`atom`, `args`...) as an empty reply.
template <class Atom, class... Args>
Result<ApiReply> acknowledged(const ApiRequest& request, std::chrono::seconds timeout, Atom atom, Args&&... args) {
  auto done = ask_gateway<bool>(request, timeout, atom, std::forward<Args>(args)...);
  if (!done) return fail(done.error());
  return ApiReply{};
}

Result<ApiReply> delete_experiment(const ApiRequest& request) {
  auto id = request.id();
  if (!id) return fail(id.error());
  return acknowledged(request, kCreateTimeout, actors::delete_atom::value, *id);
}

// Body: {"config": the YAML changes (optional), "config_file_name": their name in errors (optional)}.
// `continuing`: the new experiment trains more the trials of this one (master/experiment_continuation.hpp).
Result<ApiReply> submit_again(const ApiRequest& request, bool continuing) {
  auto id = request.id();
  auto body = request.json_body();
  if (!id) return fail(id.error());
  if (!body) return fail(body.error());
  auto changes = text_field(*body, "config");
  auto name = text_field(*body, "config_file_name", "changes.yaml");
  if (!changes) return fail(changes.error());
  if (!name) return fail(name.error());
  wire::ForkExperimentRequest fork{.experiment_id = *id, .changes_yaml = *changes, .changes_file_name = *name};
  auto reply = continuing ? ask_gateway<wire::CreateExperimentReply>(request, kCreateTimeout,
                                                                     actors::continue_atom::value, wire::encode(fork))
                          : ask_gateway<wire::CreateExperimentReply>(request, kCreateTimeout, actors::fork_atom::value,
                                                                     wire::encode(fork));
  if (!reply) return fail(reply.error());
  if (reply->experiment_id == 0) return refused_reply("the experiment was refused", reply->errors);
  return ApiReply{.status = 201, .body = {{"id", reply->experiment_id}, {continuing ? "continued_from" : "forked_from", *id}}};
}

// Body: {"description": text (optional), "labels": [text] (optional)}.
Result<ApiReply> set_metadata(const ApiRequest& request) {
  auto id = request.id();
  auto body = request.json_body();
  if (!id) return fail(id.error());
  if (!body) return fail(body.error());
  wire::ExperimentMetadataChange change{.experiment_id = *id, .description = std::nullopt, .labels = {}, .set_labels = false};
  if (body->contains("description")) {
    auto description = text_field(*body, "description");
    if (!description) return fail(description.error());
    change.description = *description;
  }
  if (auto labels = body->find("labels"); labels != body->end()) {
    if (!labels->is_array() || !std::ranges::all_of(*labels, [](const auto& l) { return l.is_string(); }))
      return fail(Error::invalid_argument("field 'labels': expected an array of strings"));
    change.labels = labels->get<std::vector<std::string>>();
    change.set_labels = true;
  }
  return acknowledged(request, kGatewayTimeout, actors::set_metadata_atom::value, wire::encode(change));
}

// The project archive the experiment was submitted with, as a gzip tar.
Status download_model_definition(const ApiRequest& request, httplib::Response& response) {
  auto id = request.id();
  if (!id) return fail(id.error());
  auto definition = ask_gateway<wire::ModelDefinition>(request, kCreateTimeout, actors::model_def_atom::value, *id);
  if (!definition) return fail(definition.error());
  response.set_header("Content-Disposition", fmt::format("attachment; filename=\"experiment-{}-model-def.tar.gz\"", *id));
  response.set_content(definition->archive, "application/gzip");
  response.status = 200;
  return {};
}

Result<ApiReply> delete_checkpoint(const ApiRequest& request) {
  return acknowledged(request, kCreateTimeout, actors::delete_checkpoint_atom::value, request.http.matches[1].str());
}

Result<ApiReply> list_models(const ApiRequest& request) {
  auto list = ask_gateway<wire::ModelList>(request, kGatewayTimeout, actors::models_atom::value);
  if (!list) return fail(list.error());
  return ApiReply{.body = {{"models", list->models}}};
}

// Body: {"name": text, "description": text (optional)}.
Result<ApiReply> create_model(const ApiRequest& request) {
  auto body = request.json_body();
  if (!body) return fail(body.error());
  auto name = text_field(*body, "name");
  auto description = text_field(*body, "description");
  if (!name) return fail(name.error());
  if (!description) return fail(description.error());
  auto model = ask_gateway<wire::ModelSummary>(request, kGatewayTimeout, actors::create_model_atom::value, *name, *description);
  if (!model) return fail(model.error());
  return ApiReply{.status = 201, .body = *model};
}

Result<ApiReply> describe_model(const ApiRequest& request) {
  auto detail = ask_gateway<wire::ModelDetail>(request, kGatewayTimeout, actors::model_atom::value,
                                               request.http.matches[1].str());
  if (!detail) return fail(detail.error());
  return ApiReply{.body = *detail};
}

// Body: {"checkpoint_uuid": text}.
Result<ApiReply> register_model_version(const ApiRequest& request) {
  auto body = request.json_body();
  if (!body) return fail(body.error());
  auto uuid = text_field(*body, "checkpoint_uuid");
  if (!uuid) return fail(uuid.error());
  auto version = ask_gateway<wire::ModelVersion>(request, kGatewayTimeout, actors::register_model_atom::value,
                                                 request.http.matches[1].str(), *uuid);
  if (!version) return fail(version.error());
  return ApiReply{.status = 201, .body = *version};
}

}  // namespace

void add_lifecycle_routes(ApiRouter& router) {
  router.post(R"(/api/v1/experiments/(\d+)/delete)", delete_experiment);
  router.post(R"(/api/v1/experiments/(\d+)/fork)", [](const ApiRequest& request) { return submit_again(request, false); });
  router.post(R"(/api/v1/experiments/(\d+)/continue)", [](const ApiRequest& request) { return submit_again(request, true); });
  router.post(R"(/api/v1/experiments/(\d+)/metadata)", set_metadata);
  router.get_raw(R"(/api/v1/experiments/(\d+)/model_def)", download_model_definition);
  router.post(R"(/api/v1/checkpoints/([0-9a-fA-F-]{1,64})/delete)", delete_checkpoint);
  router.get("/api/v1/models", list_models);
  router.post("/api/v1/models", create_model);
  router.get(R"(/api/v1/models/([A-Za-z0-9_.-]{1,64}))", describe_model);
  router.post(R"(/api/v1/models/([A-Za-z0-9_.-]{1,64})/versions)", register_model_version);
}

}  // namespace volador::http
