#pragma once
// The API's routes on the HTTP server. Each route is a plain function of an
// ApiRequest; the router authenticates the caller first (every route but
// the public ones needs a token: `Authorization: Bearer TOKEN` or the
// `volador_token` cookie the login sets), turns a returned Error into its JSON
// error reply and counts the request for /metrics. A GET answers from what the
// journal has written, not waiting behind its queued writes.

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "http/api_context.hpp"
#include "http/api_reply.hpp"
#include "http/query_params.hpp"
#include "master/users/user_directory.hpp"

namespace volador::http {

// Who sent a request, as its token says.
struct Caller {
  master::User user;
  std::string token;
};

struct ApiRequest {
  const httplib::Request& http;
  Caller caller;
  ApiContext& context;

  // The `group`-th number captured by the route's pattern; invalid_argument
  // when it does not fit 64 bits.
  [[nodiscard]] Result<std::uint64_t> id(std::size_t group = 1) const;
  // The query string, read strictly (QueryParams::read).
  [[nodiscard]] Result<QueryParams> query(const std::set<std::string>& allowed) const;
  // The body as a JSON object; invalid_argument saying why not.
  [[nodiscard]] Result<nlohmann::json> json_body() const;
};

using JsonRoute = std::function<Result<ApiReply>(const ApiRequest&)>;
// A route that writes its own response (a stream, a download); it may fail
// before writing anything by returning an Error.
using RawRoute = std::function<Status(const ApiRequest&, httplib::Response&)>;

// The token a request carries (header first, then cookie); empty when none.
std::string request_token(const httplib::Request& request);

class ApiRouter {
 public:
  ApiRouter(httplib::Server& server, std::shared_ptr<ApiContext> context);

  // `pattern` is a regular expression over the path; its groups are the ids.
  void get(const std::string& pattern, JsonRoute route);
  void post(const std::string& pattern, JsonRoute route);
  void get_raw(const std::string& pattern, RawRoute route);
  // Routes that need no token (logging in).
  void post_public(const std::string& pattern, JsonRoute route);

  // Every route registered: (method, path with "{id}" for each pattern group).
  [[nodiscard]] const std::vector<std::pair<std::string, std::string>>& routes() const { return routes_; }

  // Refuses, before its body is read, a request the API would refuse anyway:
  // a body without a valid token for a route that needs one (401), over the
  // limit (413) or of unknown length (411). True when it answered.
  bool refuse_early(const httplib::Request& request, httplib::Response& response) const;

 private:
  httplib::Server::Handler wrap(const std::string& pattern, JsonRoute route, bool needs_token) const;
  httplib::Server::Handler wrap_raw(const std::string& pattern, RawRoute route) const;
  // The caller of `request`, or unauthenticated.
  Result<Caller> caller_of(const httplib::Request& request) const;

  httplib::Server& server_;
  std::shared_ptr<ApiContext> context_;
  std::set<std::string> public_paths_;
  std::vector<std::pair<std::string, std::string>> routes_;
};

// Writes `reply` (status, JSON body, headers) into `response`.
void write_reply(const ApiReply& reply, httplib::Response& response);

}  // namespace volador::http
