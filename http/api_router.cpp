#include "http/api_router.hpp"

#include <charconv>
#include <chrono>
#include <regex>
#include <utility>

#include "storage/journal/durable_reads.hpp"

namespace volador::http {
namespace {

constexpr std::string_view kCookie = "volador_token=";
// With the charset, cpp-httplib (0.11) does not compress the reply: it would
// compress "application/json" with brotli at quality 11 for any browser,
// about 1 MB/s here (an experiment page's 14.5 MB of curves: over 110 s; gzip
// 9.7 s; sent as it is, 0.5 s). bench/web measures it.
constexpr const char* kJsonType = "application/json; charset=utf-8";

// "/api/v1/trials/(\d+)/logs" -> "/api/v1/trials/{id}/logs": the route label in /metrics.
std::string route_label(const std::string& pattern) {
  static const std::regex group(R"(\([^)]*\))");
  return std::regex_replace(pattern, group, "{id}");
}

Error unauthenticated() { return Error::unauthenticated("a valid token is needed: log in (POST /api/v1/auth/login)"); }

// `route` (a GET's: it only reads) with its journal reads answering from what
// is written, never waiting behind queued writes (storage/journal/durable_reads.hpp).
template <class Route>
Route answered_from_written(Route route) {
  return [route = std::move(route)](auto&&... args) {
    const storage::DurableReads written_only;
    return route(std::forward<decltype(args)>(args)...);
  };
}

}  // namespace

Result<std::uint64_t> ApiRequest::id(std::size_t group) const {
  const auto text = http.matches[static_cast<int>(group)].str();
  std::uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size())
    return fail(Error::invalid_argument("'" + text + "' is not an id"));
  return value;
}

Result<QueryParams> ApiRequest::query(const std::set<std::string>& allowed) const {
  return QueryParams::read(http.params, allowed);
}

Result<nlohmann::json> ApiRequest::json_body() const {
  auto body = nlohmann::json::parse(http.body, nullptr, false);
  if (body.is_discarded()) return fail(Error::invalid_argument("the request body is not valid JSON"));
  if (!body.is_object()) return fail(Error::invalid_argument("the request body must be a JSON object"));
  return body;
}

std::string request_token(const httplib::Request& request) {
  const auto authorization = request.get_header_value("Authorization");
  if (authorization.starts_with("Bearer ")) return authorization.substr(7);
  const auto cookies = request.get_header_value("Cookie");
  for (std::size_t at = cookies.find(kCookie); at != std::string::npos; at = cookies.find(kCookie, at + 1)) {
    if (at != 0 && cookies[at - 1] != ' ' && cookies[at - 1] != ';') continue;
    const auto begin = at + kCookie.size();
    return cookies.substr(begin, cookies.find(';', begin) - begin);
  }
  return "";
}

void write_reply(const ApiReply& reply, httplib::Response& response) {
  response.status = reply.status;
  for (const auto& [name, value] : reply.headers) response.set_header(name, value);
  if (reply.status != 204) response.set_content(reply.text ? *reply.text : reply.body.dump(), kJsonType);
}

ApiRouter::ApiRouter(httplib::Server& server, std::shared_ptr<ApiContext> context)
    : server_(server), context_(std::move(context)) {}

Result<Caller> ApiRouter::caller_of(const httplib::Request& request) const {
  auto token = request_token(request);
  if (token.empty()) return fail(unauthenticated());
  auto user = context_->services.users->authenticate(token);
  if (!user) return fail(user.error().code == ErrorCode::unauthenticated ? unauthenticated() : user.error());
  return Caller{std::move(*user), std::move(token)};
}

bool ApiRouter::refuse_early(const httplib::Request& request, httplib::Response& response) const {
  if (!request.path.starts_with("/api/")) return false;
  const auto length = request.get_header_value<std::uint64_t>("Content-Length");
  if (length > context_->limits.max_body_bytes) {
    write_reply(error_reply(Error::resource_exhausted(
                    "the request body is larger than the server's limit of " +
                    std::to_string(context_->limits.max_body_bytes >> 20) + " MiB")),
                response);
    return true;
  }
  if (request.get_header_value("Transfer-Encoding").find("chunked") != std::string::npos) {
    write_reply({411, error_body(411, Error::invalid_argument("send the body with a Content-Length, not chunked")), {}},
                response);
    return true;
  }
  // Without a body the route's own check (wrap) comes as early: checking here too would do it twice.
  if (length == 0 || public_paths_.contains(request.path)) return false;
  auto caller = caller_of(request);
  if (caller) return false;
  write_reply(error_reply(caller.error()), response);
  context_->requests.record("unauthenticated", response.status, std::chrono::duration<double>(0));
  return true;
}

httplib::Server::Handler ApiRouter::wrap(const std::string& pattern, JsonRoute route, bool needs_token) const {
  return [this, label = route_label(pattern), route = std::move(route), needs_token](const httplib::Request& request,
                                                                                     httplib::Response& response) {
    const auto started = std::chrono::steady_clock::now();
    auto caller = needs_token ? caller_of(request) : Result<Caller>(Caller{});
    auto reply = caller ? route(ApiRequest{request, *caller, *context_}) : fail(caller.error());
    write_reply(reply ? *reply : error_reply(reply.error()), response);
    context_->requests.record(label, response.status, std::chrono::steady_clock::now() - started);
  };
}

httplib::Server::Handler ApiRouter::wrap_raw(const std::string& pattern, RawRoute route) const {
  return [this, label = route_label(pattern), route = std::move(route)](const httplib::Request& request,
                                                                        httplib::Response& response) {
    const auto started = std::chrono::steady_clock::now();
    auto caller = caller_of(request);
    auto written = caller ? route(ApiRequest{request, *caller, *context_}, response) : fail(caller.error());
    if (!written) write_reply(error_reply(written.error()), response);
    context_->requests.record(label, response.status, std::chrono::steady_clock::now() - started);
  };
}

void ApiRouter::get(const std::string& pattern, JsonRoute route) {
  routes_.emplace_back("GET", route_label(pattern));
  server_.Get(pattern, wrap(pattern, answered_from_written(std::move(route)), true));
}

void ApiRouter::post(const std::string& pattern, JsonRoute route) {
  routes_.emplace_back("POST", route_label(pattern));
  server_.Post(pattern, wrap(pattern, std::move(route), true));
}

void ApiRouter::get_raw(const std::string& pattern, RawRoute route) {
  routes_.emplace_back("GET", route_label(pattern));
  server_.Get(pattern, wrap_raw(pattern, answered_from_written(std::move(route))));
}

void ApiRouter::post_public(const std::string& pattern, JsonRoute route) {
  routes_.emplace_back("POST", route_label(pattern));
  public_paths_.insert(pattern);
  server_.Post(pattern, wrap(pattern, std::move(route), false));
}

}  // namespace volador::http
