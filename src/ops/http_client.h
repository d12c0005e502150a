// A minimal blocking HTTP/1.1 GET client for `weir status` and tests: plain http:// only, one
// request per connection, the whole response read into memory (bounded). Thread-compatible.
#pragma once

#include <string>

#include "base/result.h"
#include "ops/http_server.h"

namespace weir::ops {

struct HttpUrl {
  std::string host;  // "127.0.0.1", "localhost", "::1" (brackets removed)
  int port = 80;
  std::string path = "/";  // with the query, if any
};

// Parses "http://host[:port][/path]" (also "host:port" without the scheme). InvalidArgument
// naming the URL otherwise (https is not supported).
Result<HttpUrl> ParseHttpUrl(const std::string& url);

// GETs `url` + `path` (path replaces the URL's own path when not empty). Unavailable when the
// server cannot be reached or answers nothing within timeout_ms; Corruption for a malformed
// response. Any HTTP status is a successful result.
Result<HttpResponse> HttpGet(const HttpUrl& url, const std::string& path, int timeout_ms = 5000,
                             size_t max_response_bytes = 64 << 20);

}  // namespace weir::ops
