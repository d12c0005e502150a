// HttpTransport: sends one HTTP request and returns the response, no retries, no auth. The
// libcurl implementation keeps a small pool of easy handles so connections are reused
// (keep-alive) and verifies TLS certificates (libcurl's defaults, never turned off). Failures to
// get any response (DNS, connect, timeout, reset) are Unavailable naming the method, the URL and
// its host; messages never contain the request's query string (it may hold a SAS token).
// Requests to the managed identity endpoint (169.254.169.254) and to loopback hosts never go
// through a proxy (HTTPS_PROXY / HTTP_PROXY), as in the Azure SDKs.
// Thread-safe: Send() may be called from many threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace weir::azure {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method;  // "GET", "HEAD", "PUT", "DELETE", "POST"
  std::string url;     // complete, encoded
  HttpHeaders headers;
  std::string_view body;  // borrowed: must outlive Send()
};

struct HttpResponse {
  long status = 0;
  HttpHeaders headers;  // names in lower case
  std::string body;

  // The value of the first header named `name` (lower case), or "" if absent.
  std::string Header(std::string_view name) const;
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  virtual Result<HttpResponse> Send(const HttpRequest& request) = 0;
};

class CurlTransport final : public HttpTransport {
 public:
  struct Options {
    int64_t connect_timeout_ms = 10'000;
    // A transfer slower than 1 byte/s for this long is abandoned (Unavailable).
    int64_t stall_timeout_ms = 60'000;
    // The whole request, connect to last byte (0: no limit). Token requests set one.
    int64_t total_timeout_ms = 0;
    size_t max_idle_handles = 16;
  };

  CurlTransport();
  explicit CurlTransport(Options options);
  ~CurlTransport() override;

  Result<HttpResponse> Send(const HttpRequest& request) override;

 private:
  void* Acquire();
  void Release(void* handle);

  const Options options_;
  std::mutex mutex_;
  std::vector<void*> idle_;  // CURL* handles; GUARDED_BY(mutex_)
};

}  // namespace weir::azure
