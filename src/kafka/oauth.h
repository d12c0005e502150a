// OAUTHBEARER tokens for Kafka: Entra ID access tokens for an Event Hubs namespace, obtained
// the ways an Azure workload authenticates (OAuthClientCredentials::kind):
//   - kClientSecret: a service principal's client-credentials grant at
//     <authority>/<tenant>/oauth2/v2.0/token;
//   - kWorkloadIdentity (AKS): the same grant with the federated token file as a
//     client_assertion, the file read again for every token (the kubelet rotates it);
//   - kManagedIdentity: the machine's identity endpoint, IMDS (system- or user-assigned) or App
//     Service's IDENTITY_ENDPOINT.
// Debian's librdkafka 2.0.2 has no OIDC client, so weir makes these requests itself (libcurl,
// loaded at run time) and hands the token to librdkafka from its token-refresh callback.
// Token sources are thread-safe: librdkafka calls them from its own threads, several clients
// share one, and a token is reused while more than half of its lifetime is left.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// One HTTP(S) request to a token endpoint and its answer.
struct TokenHttpRequest {
  std::string method;  // "GET" or "POST"
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // POST: application/x-www-form-urlencoded
};
struct TokenHttpResponse {
  int status = 0;
  std::string body;
};

class TokenHttpClient {
 public:
  virtual ~TokenHttpClient() = default;
  // Unavailable when no response arrived (DNS, connect, TLS, timeout); never echoes the body.
  virtual Result<TokenHttpResponse> Send(const TokenHttpRequest& request) = 0;
};

// libcurl's easy API, loaded at run time (libcurl.so.4); Unavailable when libcurl is missing.
// TLS verification stays on (libcurl's defaults).
Result<std::unique_ptr<TokenHttpClient>> MakeCurlTokenHttpClient(int timeout_ms = 30000);

// application/x-www-form-urlencoded body of a client-credentials token request: the client
// secret, or (`federated_token` not empty) the federated token as a JWT-bearer client assertion.
std::string ClientCredentialsRequestBody(const OAuthClientCredentials& credentials,
                                         std::string_view federated_token = {});

// The request that gets a token for `credentials`. REQUIRES: for kWorkloadIdentity,
// `federated_token` is the content of credentials.federated_token_file.
TokenHttpRequest BuildTokenRequest(const OAuthClientCredentials& credentials,
                                   std::string_view federated_token = {});

// Parses a token endpoint's answer ({"access_token":..,"expires_in":..} from Entra ID and IMDS,
// "expires_on" from App Service). Errors name the credential (credentials.Describe()) and the
// service's error code and description, scrubbed by `redactor`: Unavailable for what a retry may
// fix (429, 5xx; for managed identity also 404 and 410, which IMDS answers while it updates),
// InvalidArgument for refused credentials.
Result<OAuthToken> ParseTokenResponse(int http_status, std::string_view body, int64_t now_ms,
                                      const OAuthClientCredentials& credentials,
                                      const Redactor& redactor);

// Fetches and caches tokens for `credentials`. A fetch that fails with Unavailable is tried
// twice more (after 0.5 s and 1 s) before the failure is returned.
class EntraTokenSource : public OAuthTokenSource {
 public:
  // `now_ms` (wall clock, ms) and `read_file` (the federated token file) are replaceable in
  // tests; `client` must not be null.
  EntraTokenSource(OAuthClientCredentials credentials, Redactor redactor,
                   std::unique_ptr<TokenHttpClient> client,
                   std::function<int64_t()> now_ms = nullptr,
                   std::function<Result<std::string>(const std::string&)> read_file = nullptr);
  Result<OAuthToken> Token() override;

 private:
  Result<OAuthToken> Fetch();

  const OAuthClientCredentials credentials_;
  const Redactor redactor_;
  const std::function<int64_t()> now_ms_;
  const std::function<Result<std::string>(const std::string&)> read_file_;
  std::mutex mutex_;
  std::unique_ptr<TokenHttpClient> client_;  // GUARDED_BY(mutex_)
  OAuthToken cached_;                        // GUARDED_BY(mutex_)
  int64_t cached_at_ms_ = 0;                 // GUARDED_BY(mutex_)
};

// The token source for options.oauth over libcurl.
Result<std::shared_ptr<OAuthTokenSource>> MakeTokenSource(const OAuthClientCredentials& credentials,
                                                          const Redactor& redactor,
                                                          int timeout_ms = 30000);

// Serves librdkafka's OAUTHBEARER token-refresh callback for client `rk`: a token from `source`,
// or the failure reported to librdkafka. Returns the failure's text scrubbed by `redactor` ("" on
// success) for the client's own error reporting; `*permanent` (if given) tells whether a retry
// cannot help (the credentials were refused).
std::string RefreshOAuthBearerToken(rd_kafka_t* rk, OAuthTokenSource& source,
                                    const Redactor& redactor, bool* permanent = nullptr);

}  // namespace weir::kafka
