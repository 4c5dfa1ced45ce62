#include "http/http_server.hpp"

#include <httplib.h>
#include <spdlog/spdlog.h>

#include "actors/atoms.hpp"
#include "actors/blocking_request.hpp"
#include "http/api_context.hpp"
#include "http/cluster_metrics.hpp"
#include "http/routes.hpp"
#include "runtime/net/node_link_guards.hpp"

namespace volador::http {
namespace {

constexpr auto kPoolTimeout = std::chrono::seconds(5);

std::unique_ptr<httplib::Server> make_server(const HttpOptions& options) {
  if (!options.tls) return std::make_unique<httplib::Server>();
  auto server =
      std::make_unique<httplib::SSLServer>(options.tls->certificate.c_str(), options.tls->private_key.c_str());
  // HTTPS is not a node link: no BASP frame guard nor handshake deadline on its sessions.
  if (server->is_valid()) net::exempt_from_node_link_guards(server->ssl_context());
  return server;
}

void apply_limits(httplib::Server& server, const HttpLimits& limits) {
  server.new_task_queue = [threads = limits.threads] { return new httplib::ThreadPool(threads); };
  server.set_payload_max_length(limits.max_body_bytes);
  server.set_read_timeout(limits.read_timeout);
  server.set_write_timeout(limits.write_timeout);
  server.set_keep_alive_max_count(limits.keep_alive_max_requests);
  // A reply's headers and body are two writes: with Nagle's algorithm the
  // body waits for the client's delayed ACK, 40 ms per request (bench/web).
  server.set_tcp_nodelay(true);
  server.set_default_headers({{"X-Content-Type-Options", "nosniff"}, {"X-Frame-Options", "DENY"},
                              {"Referrer-Policy", "no-referrer"}});
  // Not compressed (as the JSON replies, api_router.cpp): brotli at quality 11
  // took 1.2 s for the 120 KB bundle on every page load here.
  server.set_file_extension_and_mimetype_mapping("js", "application/javascript; charset=utf-8");
}

// /metrics, in Prometheus' text format; no token (it names no user data).
void add_metrics_route(httplib::Server& server, const std::shared_ptr<ApiContext>& context) {
  server.Get("/metrics", [context](const httplib::Request&, httplib::Response& response) {
    auto families = run_state_families(*context->services.journal);
    if (!families) {
      response.status = 500;
      response.set_content(families.error().message + "\n", "text/plain");
      return;
    }
    auto agents = actors::blocking_request<wire::AgentList>(*context->services.system, context->services.pool,
                                                            kPoolTimeout, actors::agents_atom::value);
    if (agents) families->push_back(slot_family(*agents));
    for (auto& family : journal_families(context->services.journal->stats())) families->push_back(std::move(family));
    for (auto& family : context->requests.families()) families->push_back(std::move(family));
    response.set_content(exposition(*families), "text/plain; version=0.0.4");
  });
}

// Errors of unknown /api paths and methods come back as JSON too.
void add_error_replies(httplib::Server& server) {
  server.set_error_handler([](const httplib::Request& request, httplib::Response& response) {
    if (!request.path.starts_with("/api/") || !response.body.empty()) return;
    write_reply({response.status,
                 error_body(response.status, Error::not_found(request.method + " " + request.path + " is not an API route")),
                 {}},
                response);
  });
  server.set_exception_handler([](const httplib::Request& request, httplib::Response& response, std::exception_ptr) {
    spdlog::error("http: {} {} threw", request.method, request.path);
    write_reply(error_reply(Error::internal("an exception")), response);
  });
}

}  // namespace

Result<std::unique_ptr<HttpServer>> HttpServer::start(const HttpOptions& options, ApiServices services) {
  std::unique_ptr<HttpServer> out(new HttpServer());
  out->server_ = make_server(options);
  if (!out->server_->is_valid())
    return fail(Error::invalid_argument("the HTTPS server cannot use the certificate " +
                                        options.tls->certificate.string() + " and its key"));
  out->https_ = options.tls.has_value();
  out->context_ = std::make_shared<ApiContext>();
  out->context_->services = std::move(services);
  out->context_->limits = options.limits;
  auto& server = *out->server_;
  apply_limits(server, options.limits);
  auto router = std::make_shared<ApiRouter>(server, out->context_);
  server.set_pre_routing_handler([router](const httplib::Request& request, httplib::Response& response) {
    return router->refuse_early(request, response) ? httplib::Server::HandlerResponse::Handled
                                                   : httplib::Server::HandlerResponse::Unhandled;
  });
  add_auth_routes(*router);
  add_experiment_routes(*router);
  add_trial_routes(*router);
  add_cluster_routes(*router);
  add_config_routes(*router);
  add_lifecycle_routes(*router);
  add_metrics_route(server, out->context_);
  add_error_replies(server);
  out->router_ = router;
  if (!options.web_dir.empty() && !server.set_mount_point("/", options.web_dir.string()))
    return fail(Error::not_found("the web UI's folder " + options.web_dir.string() + " does not exist"));

  const int port = options.listen.port == 0 ? server.bind_to_any_port(options.listen.host)
                                            : (server.bind_to_port(options.listen.host, options.listen.port) ? options.listen.port : -1);
  if (port <= 0) return fail(Error::unavailable("cannot listen for HTTP on " + options.listen.to_string()));
  out->bound_ = {options.listen.host, static_cast<std::uint16_t>(port)};
  out->thread_ = std::thread([server = out->server_.get()] { server->listen_after_bind(); });
  return out;
}

HttpServer::~HttpServer() {
  if (context_) context_->stopping = true;
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

std::string HttpServer::url() const { return (https_ ? "https://" : "http://") + bound_.to_string() + "/"; }

}  // namespace volador::http
