#pragma once
// The API's route groups, each registered on the router; the routes and
// their JSON are documented in http/openapi.yaml.

#include "http/api_router.hpp"

namespace volador::http {

void add_auth_routes(ApiRouter& router);        // login, logout, me, users
void add_experiment_routes(ApiRouter& router);  // list, create, describe, steer, metrics, checkpoints
void add_trial_routes(ApiRouter& router);       // describe, metrics, logs (paged and live), checkpoints
void add_cluster_routes(ApiRouter& router);     // agents, slots
void add_config_routes(ApiRouter& router);      // validate a config, preview its search
void add_lifecycle_routes(ApiRouter& router);   // delete, fork, set, model definitions, checkpoint delete, models

}  // namespace volador::http
