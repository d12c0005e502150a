#include "kafka/oauth.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>

namespace weir::kafka {

namespace {

std::string WhatToCheck(const OAuthClientCredentials& c) {
  switch (c.kind) {
    case OAuthCredentialKind::kClientSecret:
      return "check eventhubs.tenantId, eventhubs.clientId and eventhubs.clientSecret";
    case OAuthCredentialKind::kWorkloadIdentity:
      return "check that the application's federated credential names this service account "
             "(issuer and subject) and that the token file is the pod's projected token";
    case OAuthCredentialKind::kManagedIdentity:
      return "check that the identity is assigned to this machine (a user-assigned one is "
             "chosen by eventhubs.clientId, managedIdentityObjectId or managedIdentityResourceId)";
  }
  return "";
}

azure::EntraTokenRequest::Kind KindOf(OAuthCredentialKind kind) {
  switch (kind) {
    case OAuthCredentialKind::kClientSecret:
      return azure::EntraTokenRequest::Kind::kClientSecret;
    case OAuthCredentialKind::kWorkloadIdentity:
      return azure::EntraTokenRequest::Kind::kWorkloadIdentity;
    case OAuthCredentialKind::kManagedIdentity:
      return azure::EntraTokenRequest::Kind::kManagedIdentity;
  }
  return azure::EntraTokenRequest::Kind::kClientSecret;
}

}  // namespace

azure::EntraTokenRequest EntraRequestFor(const OAuthClientCredentials& c) {
  azure::EntraTokenRequest r;
  r.kind = KindOf(c.kind);
  r.token_endpoint = c.token_endpoint_url;
  r.scope = c.scope;
  r.resource = c.Resource();
  r.tenant_id = c.tenant_id;
  r.client_id = c.client_id;
  r.client_secret = c.client_secret;
  r.federated_token_file = c.federated_token_file;
  r.managed_identity_object_id = c.managed_identity_object_id;
  r.managed_identity_resource_id = c.managed_identity_resource_id;
  r.managed_identity_endpoint = c.managed_identity_endpoint;
  r.identity_header = c.identity_header;
  r.refused_hint = WhatToCheck(c) +
                   ", and that the identity has the 'Azure Event Hubs Data Receiver' role on the "
                   "namespace or event hub";
  return r;
}

azure::TokenSource::Options KafkaTokenOptions() {
  azure::TokenSource::Options options;
  options.max_age_fraction = 0.5;
  options.attempts = 3;
  options.retry_wait_ms = 500;
  return options;
}

EntraTokenSource::EntraTokenSource(OAuthClientCredentials credentials, Redactor redactor,
                                   std::unique_ptr<azure::HttpTransport> transport,
                                   std::optional<azure::TokenSource::Options> options)
    : credentials_(std::move(credentials)),
      redactor_(std::move(redactor)),
      transport_(std::move(transport)),
      tokens_(EntraRequestFor(credentials_), transport_.get(),
              options ? std::move(*options) : KafkaTokenOptions()) {}

Result<OAuthToken> EntraTokenSource::Token() {
  auto token = tokens_.Get();
  if (!token.ok()) {
    const Status& st = token.status();
    // For the source, anything a retry cannot fix is a configuration error (permanent).
    if (st.IsUnavailable()) return redactor_.Scrub(st);
    return Status::InvalidArgument(redactor_.Scrub(st.message()));
  }
  OAuthToken out;
  out.value = std::move(token->token);
  out.expires_at_ms = token->expires_at_ms;
  out.principal = !credentials_.client_id.empty() ? credentials_.client_id
                  : credentials_.kind == OAuthCredentialKind::kManagedIdentity
                      ? "managed-identity"
                      : "weir";
  return out;
}

Result<std::shared_ptr<OAuthTokenSource>> MakeTokenSource(const OAuthClientCredentials& credentials,
                                                          const Redactor& redactor,
                                                          int timeout_ms) {
  azure::CurlTransport::Options transport_options;
  transport_options.total_timeout_ms = timeout_ms;
  transport_options.connect_timeout_ms = std::min<int64_t>(10'000, timeout_ms);
  transport_options.max_idle_handles = 2;
  return std::shared_ptr<OAuthTokenSource>(std::make_shared<EntraTokenSource>(
      credentials, redactor, std::make_unique<azure::CurlTransport>(transport_options)));
}

std::string RefreshOAuthBearerToken(rd_kafka_t* rk, OAuthTokenSource& source,
                                    const Redactor& redactor, bool* permanent) {
  if (permanent != nullptr) *permanent = false;
  auto token = source.Token();
  if (!token.ok()) {
    std::string msg = redactor.Scrub(token.status().message());
    rd_kafka_oauthbearer_set_token_failure(rk, msg.c_str());
    if (permanent != nullptr) *permanent = token.status().IsInvalidArgument();
    return "OAUTHBEARER token request failed: " + msg;
  }
  char errstr[512];
  if (rd_kafka_oauthbearer_set_token(rk, token->value.c_str(), token->expires_at_ms,
                                     token->principal.c_str(), nullptr, 0, errstr,
                                     sizeof(errstr)) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    std::string msg = redactor.Scrub(errstr);
    rd_kafka_oauthbearer_set_token_failure(rk, msg.c_str());
    if (permanent != nullptr) *permanent = true;
    return "OAUTHBEARER token rejected by librdkafka: " + msg;
  }
  return "";
}

}  // namespace weir::kafka
