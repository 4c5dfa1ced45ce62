#include "runtime/config/container.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "runtime/config/field_readers.hpp"
#include "runtime/config/scalars.hpp"
#include "runtime/config/section.hpp"
#include "runtime/sandbox/container_paths.hpp"

namespace volador::config {
namespace {

constexpr std::array<std::string_view, 4> kMountKeys{"host_path", "container_path", "read_only", "propagation"};
// The propagation a rank's bind mounts have: bubblewrap makes the sandbox's
// mounts slaves of the host's (MS_SLAVE | MS_REC on its root).
constexpr std::string_view kPropagation = "rslave";
// experiment_seed: the manual lists it here too; config_parser.cpp reads it into the top-level field.
constexpr std::array<std::string_view, 5> kEnvironmentKeys{
    "image", "force_pull_image", "registry_auth", "environment_variables", "experiment_seed"};
constexpr std::array<std::string_view, 3> kAuthKeys{"username", "password", "serveraddress"};

bool is_identifier(std::string_view name) {
  const auto word = [](unsigned char c) { return std::isalnum(c) || c == '_'; };
  return !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
         std::ranges::all_of(name, word);
}

std::optional<RegistryAuth> read_registry_auth(Diagnostics& diag, const YAML::Node& node,
                                               const std::string& field) {
  RegistryAuth auth;
  const Section section(diag, node, field, kAuthKeys);
  section.read_required("username", auth.username, read_string);
  section.read_required("password", auth.password, read_string);
  section.read_required("serveraddress", auth.serveraddress, read_nonempty_string);
  return auth;
}

std::optional<std::string> read_assignment(Diagnostics& diag, const YAML::Node& node,
                                           const std::string& field) {
  auto text = read_string(diag, node, field);
  if (!text) return std::nullopt;
  const auto equals = text->find('=');
  if (equals != std::string::npos && is_identifier(std::string_view(*text).substr(0, equals))) {
    return text;
  }
  diag.report(node, field, "expected NAME=VALUE, got " + describe(node));
  return std::nullopt;
}

// Where the mount appears in the rank's sandbox (runtime/sandbox/container_paths.hpp says where it may not).
std::optional<std::string> read_container_path(Diagnostics& diag, const YAML::Node& node, const std::string& field) {
  auto path = read_string(diag, node, field);
  if (!path) return std::nullopt;
  if (auto why = sandbox::container_path_refusal(*path)) {
    diag.report(node, field, *why);
    return std::nullopt;
  }
  return path;
}

// Only the propagation the sandbox gives is accepted (not Determined's default, rprivate: bubblewrap cannot give it).
std::optional<std::string> read_propagation(Diagnostics& diag, const YAML::Node& node, const std::string& field) {
  auto propagation = read_string(diag, node, field);
  if (!propagation || *propagation == kPropagation) return propagation;
  diag.report(node, field,
              "only rslave is available, what the sandbox gives: mounts made later on the host under host_path "
              "appear inside, and none made inside leave it; remove the field or write rslave, got '" +
                  *propagation + "'");
  return std::nullopt;
}

}  // namespace

Keys bind_mount_keys() { return kMountKeys; }

Keys environment_keys() { return kEnvironmentKeys; }

Keys registry_auth_keys() { return kAuthKeys; }

std::optional<BindMount> read_bind_mount(Diagnostics& diag, const YAML::Node& node,
                                         const std::string& field) {
  BindMount mount;
  const Section section(diag, node, field, kMountKeys);
  section.read_required("host_path", mount.host_path, read_absolute_path);
  section.read_required("container_path", mount.container_path, read_container_path);
  section.read("read_only", mount.read_only, read_bool);
  std::string propagation;
  section.read("propagation", propagation, read_propagation);
  return mount;
}

Environment read_environment(Diagnostics& diag, const YAML::Node& node, const std::string& field) {
  Environment environment;
  const Section section(diag, node, field, kEnvironmentKeys);
  section.read("image", environment.image, read_nonempty_string);
  section.read("force_pull_image", environment.force_pull_image, read_bool);
  section.read("registry_auth", environment.registry_auth, read_registry_auth);
  section.read("environment_variables", environment.environment_variables,
               ReadList{read_assignment});
  return environment;
}

}  // namespace volador::config
