#pragma once
// The master's HTTP server: the JSON API under /api/v1 (http/openapi.yaml),
// Prometheus metrics at /metrics and the web UI's files at /. It runs on its
// own threads beside the actor system and stops when destroyed.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "http/api_services.hpp"
#include "http/http_limits.hpp"
#include "runtime/core/error.hpp"
#include "runtime/net/endpoint.hpp"
#include "runtime/tls/identity_files.hpp"

namespace httplib {
class Server;
}

namespace volador::http {

struct HttpOptions {
  net::Endpoint listen;             // port 0 picks a free one
  std::filesystem::path web_dir;    // the web UI's files (index.html ...); empty: no UI
  std::optional<tls::IdentityFiles> tls;  // HTTPS with this certificate and key; nullopt: plain HTTP
  HttpLimits limits;
};

class HttpServer {
 public:
  // Binds `options.listen` and serves until destroyed. unavailable when the
  // address cannot be bound, invalid_argument for a bad TLS identity.
  static Result<std::unique_ptr<HttpServer>> start(const HttpOptions& options, ApiServices services);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The address actually bound and the UI's URL on it ("https://HOST:PORT/").
  [[nodiscard]] const net::Endpoint& bound() const { return bound_; }
  [[nodiscard]] std::string url() const;

 private:
  HttpServer() = default;
  std::unique_ptr<httplib::Server> server_;
  std::shared_ptr<struct ApiContext> context_;
  std::shared_ptr<class ApiRouter> router_;  // its handlers are the server's routes
  std::thread thread_;
  net::Endpoint bound_;
  bool https_ = false;
};

}  // namespace volador::http
