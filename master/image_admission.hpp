#pragma once
// Whether an experiment's container image (environment.image,
// force_pull_image, registry_auth) can run in its pool: checked when the
// experiment is submitted, against the container runtime each agent of the
// pool registered (AgentInfo.container_runtime). Where only some agents of
// the pool have one, the scheduler places such trials on those alone
// (scheduling::SlotRequest::needs_images).

#include <string>
#include <vector>

#include "runtime/config/experiment_config.hpp"
#include "runtime/core/error.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::master {

// The fields of `environment` about images that it sets, by name ("image",
// "force_pull_image", "registry_auth").
std::vector<std::string> image_fields(const config::Environment& environment);

// Whether a trial of `environment` must run on an agent with a container
// runtime: it sets an image field.
bool needs_images(const config::Environment& environment);

// invalid_argument "environment.<field>: no agent in pool <pool> can run
// images; remove environment.<field> or install podman" for the first of
// `fields` when none of `agents` (those of `pool`) registered a container
// runtime (a pool without agents refuses them too). Nothing to check when
// `fields` is empty. A pool whose agents with a runtime all leave later
// keeps such trials waiting for one to join.
Status check_image_runs(const std::string& pool, const std::vector<wire::AgentInfo>& agents,
                        const std::vector<std::string>& fields);

}  // namespace volador::master
