// /api/v1/agents: the agents, their slots and the trial on each slot, as the
// resource pool sees them (through the gateway).

#include "http/gateway_calls.hpp"
#include "http/routes.hpp"

namespace volador::http {
namespace {

Result<ApiReply> list_agents(const ApiRequest& request) {
  auto agents = ask_gateway<wire::AgentList>(request, kGatewayTimeout, actors::agents_atom::value);
  if (!agents) return fail(agents.error());
  return ApiReply{.body = *agents};
}

}  // namespace

void add_cluster_routes(ApiRouter& router) { router.get("/api/v1/agents", list_agents); }

}  // namespace volador::http
