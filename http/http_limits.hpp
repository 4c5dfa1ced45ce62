#pragma once
// How much the HTTP server lets clients make it hold.

#include <chrono>
#include <cstddef>

namespace volador::http {

// Bounds on what one client can make the server hold.
struct HttpLimits {
  std::size_t max_body_bytes = 128u << 20;  // an upload: a 96 MiB project and its config
  std::size_t threads = 32;                 // requests served at once; more connections wait
  std::size_t max_event_streams = 16;       // live log streams at once (each holds a thread); more get 503
  std::chrono::seconds read_timeout{10};    // a request's headers and body must arrive within this
  std::chrono::seconds write_timeout{10};
  std::size_t keep_alive_max_requests = 1000;
};

}  // namespace volador::http
