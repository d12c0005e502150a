#include "kafka/oauth.h"

#include <gtest/gtest.h>

#include <deque>

#include "base/testing.h"

namespace weir::kafka {
namespace {

OAuthClientCredentials Credentials() {
  OAuthClientCredentials c;
  c.token_endpoint_url = "https://login.microsoftonline.com/tenant-1/oauth2/v2.0/token";
  c.client_id = "app-1";
  c.client_secret = "s3cr3t+/=&value";
  c.tenant_id = "tenant-1";
  c.scope = "https://ns.servicebus.windows.net/.default";
  return c;
}

OAuthClientCredentials ManagedIdentity() {
  OAuthClientCredentials c;
  c.kind = OAuthCredentialKind::kManagedIdentity;
  c.scope = "https://ns.servicebus.windows.net/.default";
  c.managed_identity_endpoint = "http://169.254.169.254/metadata/identity/oauth2/token";
  return c;
}

OAuthClientCredentials WorkloadIdentity() {
  OAuthClientCredentials c;
  c.kind = OAuthCredentialKind::kWorkloadIdentity;
  c.token_endpoint_url = "https://login.microsoftonline.com/tenant-2/oauth2/v2.0/token";
  c.client_id = "app-2";
  c.tenant_id = "tenant-2";
  c.federated_token_file = "/var/run/secrets/azure/tokens/azure-identity-token";
  c.scope = "https://ns.servicebus.windows.net/.default";
  return c;
}

TEST(OAuthTest, ClientCredentialsBodyIsFormEncoded) {
  EXPECT_EQ(ClientCredentialsRequestBody(Credentials()),
            "grant_type=client_credentials&client_id=app-1&client_secret=s3cr3t%2B%2F%3D%26value"
            "&scope=https%3A%2F%2Fns.servicebus.windows.net%2F.default");
}

TEST(OAuthTest, WorkloadIdentitySendsTheFederatedTokenAsClientAssertion) {
  TokenHttpRequest r = BuildTokenRequest(WorkloadIdentity(), "eyJhbGciOi.x.y");
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.url, "https://login.microsoftonline.com/tenant-2/oauth2/v2.0/token");
  EXPECT_EQ(r.body,
            "grant_type=client_credentials&client_id=app-2"
            "&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer"
            "&client_assertion=eyJhbGciOi.x.y"
            "&scope=https%3A%2F%2Fns.servicebus.windows.net%2F.default");
}

TEST(OAuthTest, ManagedIdentityAsksImdsWithTheMetadataHeader) {
  TokenHttpRequest r = BuildTokenRequest(ManagedIdentity());
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.url,
            "http://169.254.169.254/metadata/identity/oauth2/token?api-version=2018-02-01"
            "&resource=https%3A%2F%2Fns.servicebus.windows.net");
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers[0], std::make_pair(std::string("Metadata"), std::string("true")));
  // A user-assigned identity, by client id, object id or ARM resource id.
  OAuthClientCredentials c = ManagedIdentity();
  c.client_id = "uami-1";
  EXPECT_NE(BuildTokenRequest(c).url.find("&client_id=uami-1"), std::string::npos);
  c.client_id.clear();
  c.managed_identity_object_id = "oid-1";
  EXPECT_NE(BuildTokenRequest(c).url.find("&object_id=oid-1"), std::string::npos);
  c.managed_identity_object_id.clear();
  c.managed_identity_resource_id = "/subscriptions/s/rg/x";
  EXPECT_NE(BuildTokenRequest(c).url.find("&msi_res_id=%2Fsubscriptions%2Fs%2Frg%2Fx"),
            std::string::npos);
}

TEST(OAuthTest, AppServiceUsesItsEndpointAndHeader) {
  OAuthClientCredentials c = ManagedIdentity();
  c.managed_identity_endpoint = "http://localhost:8081/msi/token";
  c.identity_header = "hdr-secret";
  c.managed_identity_object_id = "oid-1";
  TokenHttpRequest r = BuildTokenRequest(c);
  EXPECT_EQ(r.url,
            "http://localhost:8081/msi/token?api-version=2019-08-01"
            "&resource=https%3A%2F%2Fns.servicebus.windows.net&principal_id=oid-1");
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers[0].first, "X-IDENTITY-HEADER");
}

TEST(OAuthTest, ParsesTokensAndErrors) {
  Redactor redactor;
  redactor.AddSecret("s3cr3t+/=&value");
  ASSERT_OK_AND_ASSIGN(OAuthToken token,
                       ParseTokenResponse(200,
                                          R"({"token_type":"Bearer","expires_in":3599,)"
                                          R"("access_token":"eyJ0.abc.def"})",
                                          1000, Credentials(), redactor));
  EXPECT_EQ(token.value, "eyJ0.abc.def");
  EXPECT_EQ(token.expires_at_ms, 1000 + 3599 * 1000);
  EXPECT_EQ(token.principal, "app-1");

  auto refused = ParseTokenResponse(
      401,
      R"({"error":"invalid_client","error_description":"AADSTS7000215: Invalid client secret provided: s3cr3t+/=&value"})",
      0, Credentials(), redactor);
  ASSERT_STATUS_CODE(kInvalidArgument, refused);
  EXPECT_NE(refused.status().message().find("invalid_client: AADSTS7000215"), std::string::npos);
  EXPECT_NE(refused.status().message().find("application app-1 in tenant tenant-1"),
            std::string::npos);
  EXPECT_EQ(refused.status().message().find("s3cr3t"), std::string::npos);
  ASSERT_STATUS_CODE(kUnavailable, ParseTokenResponse(503, "busy", 0, Credentials(), redactor));
  ASSERT_STATUS_CODE(kUnavailable, ParseTokenResponse(429, "", 0, Credentials(), redactor));
  ASSERT_STATUS_CODE(kUnavailable, ParseTokenResponse(200, "{}", 0, Credentials(), redactor));
  // IMDS answers 404 and 410 while it updates: transient for managed identity only.
  ASSERT_STATUS_CODE(kUnavailable, ParseTokenResponse(410, "", 0, ManagedIdentity(), redactor));
  ASSERT_STATUS_CODE(kInvalidArgument, ParseTokenResponse(404, "", 0, Credentials(), redactor));
  auto unknown = ParseTokenResponse(
      400, R"({"error":"invalid_request","error_description":"Identity not found"})", 0,
      ManagedIdentity(), redactor);
  ASSERT_STATUS_CODE(kInvalidArgument, unknown);
  EXPECT_NE(unknown.status().message().find("managed identity (system-assigned)"),
            std::string::npos)
      << unknown.status().message();
}

TEST(OAuthTest, ExpiryFromExpiresInStringOrExpiresOn) {
  Redactor redactor;
  ASSERT_OK_AND_ASSIGN(OAuthToken imds,
                       ParseTokenResponse(200, R"({"access_token":"t","expires_in":"120"})", 5000,
                                          ManagedIdentity(), redactor));
  EXPECT_EQ(imds.expires_at_ms, 5000 + 120 * 1000);
  EXPECT_EQ(imds.principal, "managed-identity");
  ASSERT_OK_AND_ASSIGN(OAuthToken app_service,
                       ParseTokenResponse(200, R"({"access_token":"t","expires_on":"1700000000"})",
                                          5000, ManagedIdentity(), redactor));
  EXPECT_EQ(app_service.expires_at_ms, 1700000000LL * 1000);
}

class FakeClient : public TokenHttpClient {
 public:
  std::vector<TokenHttpRequest> requests;
  std::deque<TokenHttpResponse> answers;
  Result<TokenHttpResponse> Send(const TokenHttpRequest& request) override {
    requests.push_back(request);
    if (answers.empty()) {
      return TokenHttpResponse{200, R"({"access_token":"tok","expires_in":"60"})"};
    }
    TokenHttpResponse r = answers.front();
    answers.pop_front();
    return r;
  }
};

TEST(OAuthTest, TokenSourcePostsToTheTokenEndpointAndCachesForHalfTheLifetime) {
  auto client = std::make_unique<FakeClient>();
  FakeClient* raw = client.get();
  int64_t now = 1000000;
  EntraTokenSource source(Credentials(), Redactor(), std::move(client), [&] { return now; });
  ASSERT_OK_AND_ASSIGN(OAuthToken token, source.Token());
  EXPECT_EQ(token.value, "tok");
  ASSERT_EQ(raw->requests.size(), 1u);
  EXPECT_EQ(raw->requests[0].url, "https://login.microsoftonline.com/tenant-1/oauth2/v2.0/token");
  EXPECT_NE(raw->requests[0].body.find("grant_type=client_credentials"), std::string::npos);
  EXPECT_EQ(token.expires_at_ms, now + 60 * 1000);
  now += 29 * 1000;  // another client of the same source: the token is shared
  ASSERT_OK(source.Token().status());
  EXPECT_EQ(raw->requests.size(), 1u);
  now += 2 * 1000;  // past half its lifetime (librdkafka refreshes at 80%): a new one
  ASSERT_OK(source.Token().status());
  EXPECT_EQ(raw->requests.size(), 2u);
}

TEST(OAuthTest, TransientFailuresAreRetriedRefusalsAreNot) {
  auto client = std::make_unique<FakeClient>();
  FakeClient* raw = client.get();
  raw->answers.push_back({503, R"({"error":"temporarily_unavailable"})"});
  EntraTokenSource source(ManagedIdentity(), Redactor(), std::move(client));
  ASSERT_OK(source.Token().status());
  EXPECT_EQ(raw->requests.size(), 2u);

  auto refusing = std::make_unique<FakeClient>();
  FakeClient* refusing_raw = refusing.get();
  refusing->answers.push_back({401, R"({"error":"invalid_client"})"});
  EntraTokenSource refused(Credentials(), Redactor(), std::move(refusing));
  ASSERT_STATUS_CODE(kInvalidArgument, refused.Token());
  EXPECT_EQ(refusing_raw->requests.size(), 1u);
}

TEST(OAuthTest, WorkloadIdentityReadsTheTokenFileForEveryToken) {
  auto client = std::make_unique<FakeClient>();
  FakeClient* raw = client.get();
  int64_t now = 0;
  int reads = 0;
  EntraTokenSource source(
      WorkloadIdentity(), Redactor(), std::move(client), [&] { return now; },
      [&](const std::string& path) -> Result<std::string> {
        EXPECT_EQ(path, "/var/run/secrets/azure/tokens/azure-identity-token");
        return std::string("assertion-" + std::to_string(++reads) + "\n");
      });
  ASSERT_OK(source.Token().status());
  now += 40 * 1000;
  ASSERT_OK(source.Token().status());
  ASSERT_EQ(raw->requests.size(), 2u);
  EXPECT_NE(raw->requests[0].body.find("client_assertion=assertion-1&"), std::string::npos);
  EXPECT_NE(raw->requests[1].body.find("client_assertion=assertion-2&"), std::string::npos);

  EntraTokenSource empty(WorkloadIdentity(), Redactor(), std::make_unique<FakeClient>(), nullptr,
                         [](const std::string&) -> Result<std::string> { return std::string("  \n"); });
  auto st = empty.Token();
  ASSERT_STATUS_CODE(kInvalidArgument, st);
  EXPECT_NE(st.status().message().find("azure-identity-token is empty"), std::string::npos);
}

TEST(OAuthTest, CurlClientReportsUnreachableEndpoints) {
  auto client = MakeCurlTokenHttpClient(2000);
  if (!client.ok()) GTEST_SKIP() << client.status().ToString();
  TokenHttpRequest request{"POST", "https://127.0.0.1:1/token?x=secret-query", {}, "a=b"};
  auto r = (*client)->Send(request);
  ASSERT_STATUS_CODE(kUnavailable, r);
  EXPECT_NE(r.status().message().find("https://127.0.0.1:1/token"), std::string::npos);
  EXPECT_EQ(r.status().message().find("secret-query"), std::string::npos);
}

}  // namespace
}  // namespace weir::kafka
