// OAUTHBEARER tokens for Kafka (Entra ID for Event Hubs). Debian's librdkafka 2.0.2 is built
// without its OIDC client, so weir runs the OAuth 2.0 client-credentials grant itself and hands
// the token to librdkafka from the token-refresh callback.
// ClientCredentialsTokenSource is thread-safe (librdkafka calls it from its own thread).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "base/result.h"
#include "kafka/options.h"

typedef struct rd_kafka_s rd_kafka_t;

namespace weir::kafka {

struct OAuthToken {
  std::string value;  // secret
  int64_t expires_at_ms = 0;  // ms since the epoch
  std::string principal;
};

class OAuthTokenSource {
 public:
  virtual ~OAuthTokenSource() = default;
  virtual Result<OAuthToken> Token() = 0;
};

// An HTTPS POST of a form body; returns (HTTP status, response body).
class HttpsPoster {
 public:
  virtual ~HttpsPoster() = default;
  virtual Result<std::pair<int, std::string>> PostForm(const std::string& url,
                                                       const std::string& body) = 0;
};

// libcurl's easy API, loaded at run time (libcurl.so.4); Unavailable when libcurl is missing.
// TLS verification stays on (libcurl's defaults).
Result<std::unique_ptr<HttpsPoster>> MakeCurlHttpsPoster(int timeout_ms = 30000);

// application/x-www-form-urlencoded body of a client-credentials token request.
std::string ClientCredentialsRequestBody(const OAuthClientCredentials& credentials);

// Parses a token endpoint response ({"access_token":..,"expires_in":..}). Error responses
// become InvalidArgument (4xx: the credentials are wrong) or Unavailable (5xx), with the
// server's error_description; `redactor` scrubs secrets from anything echoed.
Result<OAuthToken> ParseTokenResponse(int http_status, std::string_view body, int64_t now_ms,
                                      const std::string& principal, const Redactor& redactor);

class ClientCredentialsTokenSource : public OAuthTokenSource {
 public:
  ClientCredentialsTokenSource(OAuthClientCredentials credentials, Redactor redactor,
                               std::unique_ptr<HttpsPoster> poster);
  Result<OAuthToken> Token() override;

 private:
  std::mutex mutex_;
  const OAuthClientCredentials credentials_;
  const Redactor redactor_;
  std::unique_ptr<HttpsPoster> poster_;  // GUARDED_BY(mutex_)
};

// Serves librdkafka's OAUTHBEARER token-refresh callback for client `rk`: a token from `source`,
// or the failure reported to librdkafka. Returns the failure's text scrubbed by `redactor` ("" on
// success) for the client's own error reporting.
std::string RefreshOAuthBearerToken(rd_kafka_t* rk, OAuthTokenSource& source,
                                    const Redactor& redactor);

}  // namespace weir::kafka
