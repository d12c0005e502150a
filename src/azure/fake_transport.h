// FakeTransport: an HttpTransport for unit tests that records every request and answers with a
// handler the test supplies (or Unavailable, as a network fault would). Test-only.
// Thread-safe: requests are recorded and answered under one mutex.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "azure/http_transport.h"

namespace weir::azure {

struct RecordedRequest {
  std::string method;
  std::string url;
  HttpHeaders headers;
  std::string body;

  std::string Header(std::string_view name) const {
    for (const auto& [key, value] : headers) {
      if (key == name) return value;
    }
    return "";
  }
};

class FakeTransport final : public HttpTransport {
 public:
  using Handler = std::function<Result<HttpResponse>(const RecordedRequest&)>;

  explicit FakeTransport(Handler handler) : handler_(std::move(handler)) {}

  Result<HttpResponse> Send(const HttpRequest& request) override {
    std::lock_guard<std::mutex> lock(mutex_);
    RecordedRequest recorded{request.method, request.url, request.headers,
                             std::string(request.body)};
    requests_.push_back(recorded);
    return handler_(recorded);
  }

  std::vector<RecordedRequest> requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }

  static HttpResponse Response(long status, HttpHeaders headers = {}, std::string body = "") {
    HttpResponse response;
    response.status = status;
    response.headers = std::move(headers);
    response.body = std::move(body);
    return response;
  }

 private:
  std::mutex mutex_;
  Handler handler_;
  std::vector<RecordedRequest> requests_;
};

}  // namespace weir::azure
