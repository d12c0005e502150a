// A small HTTP/1.1 server for the operations endpoint: GET (and HEAD) only, one response per
// connection (Connection: close), requests bounded in size and time, loopback by default. One
// thread runs a poll() loop over the listening socket and its open connections; the handler is
// called on that thread, so it must be quick and thread-safe with respect to its callers' data.
// Thread-safe: Stop() and the destructor may be called from any thread (not from the handler).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "base/result.h"

namespace weir::ops {

struct HttpRequest {
  std::string method;  // "GET" or "HEAD"
  std::string path;    // "/metrics" (percent-escapes left as they are)
  std::string query;   // after '?', without it; "" when absent
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct HttpServerOptions {
  std::string bind_address = "127.0.0.1";  // numeric IPv4 or IPv6 address
  int port = 0;                            // 0: an ephemeral port (see HttpServer::port())
  size_t max_request_bytes = 8192;         // request line + headers; larger gets 431
  int request_timeout_ms = 5000;           // a connection idle longer than this is closed
  size_t max_connections = 64;             // more wait in the listen backlog
};

class HttpServer {
 public:
  // Binds, listens and starts the serving thread. InvalidArgument for a bad address, IOError when
  // the port cannot be bound (names the address and port).
  static Result<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options,
                                                   HttpHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The bound port (the ephemeral one when options.port was 0).
  int port() const;
  // Closes the listening socket and every connection; joins the thread. Idempotent.
  void Stop();

 private:
  class Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Parses the head of a request ("GET /path?q HTTP/1.1\r\n...\r\n\r\n"). Returns the HTTP status to
// answer with when it is not acceptable: 400 malformed, 405 not GET/HEAD, 505 not HTTP/1.x.
// Exposed for tests.
Result<HttpRequest> ParseRequestHead(std::string_view head, int* error_status);

// "Not Found" for 404 and so on; "" for codes this server does not use.
const char* HttpReasonPhrase(int status);

}  // namespace weir::ops
