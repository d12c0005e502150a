// OAUTHBEARER tokens for Kafka: Entra ID access tokens for an Event Hubs namespace (scope
// https://<namespace>.servicebus.windows.net/.default), obtained the ways an Azure workload
// authenticates (OAuthClientCredentials::kind): a service principal's client secret, AKS workload
// identity (the federated token file as a client assertion, read again for every token) or the
// machine's managed identity (IMDS, or App Service's IDENTITY_ENDPOINT).
//
// A thin adapter over weir's one Entra ID token client, azure::TokenSource (azure/credentials.h),
// which the storage code uses too: this file maps the Kafka source's options onto its request,
// chooses Kafka's caching (a token is reused while less than half of its lifetime has passed:
// librdkafka refreshes at 80%) and retries (a fetch failing with Unavailable is tried twice more,
// after 0.5 s and 1 s), turns refusals into InvalidArgument (permanent for the source) and scrubs
// every message with the options' Redactor, and serves librdkafka's token-refresh callback.
// Debian's librdkafka 2.0.2 has no OIDC client, so weir makes the requests itself.
// Token sources are thread-safe: librdkafka calls them from its own threads, several clients
// share one.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "azure/credentials.h"
#include "azure/http_transport.h"
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

// The shared token client's request for `credentials`: the endpoint, scope and identity, and what
// a refusal tells the user to check (eventhubs.* options, the 'Azure Event Hubs Data Receiver'
// role).
azure::EntraTokenRequest EntraRequestFor(const OAuthClientCredentials& credentials);

// Kafka's options of the shared token client (caching for half a lifetime, 3 tries).
azure::TokenSource::Options KafkaTokenOptions();

// Fetches and caches tokens for `credentials` over `transport`. Errors name the credential
// (azure::EntraTokenRequest::Describe) and the token endpoint, scrubbed by `redactor`:
// Unavailable for what a retry may fix, InvalidArgument for refused credentials, a missing or
// empty federated token file and incomplete settings.
class EntraTokenSource : public OAuthTokenSource {
 public:
  // `options` defaults to KafkaTokenOptions(); tests replace its clock, file reader and sleep.
  EntraTokenSource(OAuthClientCredentials credentials, Redactor redactor,
                   std::unique_ptr<azure::HttpTransport> transport,
                   std::optional<azure::TokenSource::Options> options = std::nullopt);
  Result<OAuthToken> Token() override;

 private:
  const OAuthClientCredentials credentials_;
  const Redactor redactor_;
  const std::unique_ptr<azure::HttpTransport> transport_;
  azure::TokenSource tokens_;
};

// The token source for options.oauth over libcurl (azure::CurlTransport, TLS verified, each
// request limited to `timeout_ms`).
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
