// /api/v1/agents: the agents, their pools, labels, slots and the trial on
// each slot; /api/v1/pools: the resource pools, their use and queues; as the
// resource pool actor sees them (through the gateway).

#include "http/gateway_calls.hpp"
#include "http/routes.hpp"

namespace volador::http {
namespace {

Result<ApiReply> list_agents(const ApiRequest& request) {
  auto agents = ask_gateway<wire::AgentList>(request, kGatewayTimeout, actors::agents_atom::value);
  if (!agents) return fail(agents.error());
  return ApiReply{.body = *agents};
}

Result<ApiReply> list_pools(const ApiRequest& request) {
  auto pools = ask_gateway<wire::PoolList>(request, kGatewayTimeout, actors::pools_atom::value);
  if (!pools) return fail(pools.error());
  return ApiReply{.body = *pools};
}

}  // namespace

void add_cluster_routes(ApiRouter& router) {
  router.get("/api/v1/agents", list_agents);
  router.get("/api/v1/pools", list_pools);
}

}  // namespace volador::http
