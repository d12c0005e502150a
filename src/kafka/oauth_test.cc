#include "kafka/oauth.h"

#include <gtest/gtest.h>

#include <deque>

#include "azure/fake_transport.h"
#include "base/testing.h"

namespace weir::kafka {
namespace {

using azure::FakeTransport;
using azure::RecordedRequest;

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

// A transport answering from a queue of (status, body), then 200 with a 60-second token.
class Answers {
 public:
  std::deque<std::pair<long, std::string>> queue;
  FakeTransport* transport = nullptr;

  std::unique_ptr<FakeTransport> Make() {
    auto t = std::make_unique<FakeTransport>([this](const RecordedRequest&) {
      if (queue.empty()) {
        return FakeTransport::Response(200, {}, R"({"access_token":"tok","expires_in":"60"})");
      }
      auto [status, body] = queue.front();
      queue.pop_front();
      return FakeTransport::Response(status, {}, body);
    });
    transport = t.get();
    return t;
  }
};

// Kafka's options with a fake clock and no real sleeping.
azure::TokenSource::Options TestOptions(int64_t* now, std::vector<int64_t>* sleeps = nullptr) {
  azure::TokenSource::Options options = KafkaTokenOptions();
  options.now_ms = [now] { return *now; };
  options.sleep_ms = [sleeps](int64_t ms) {
    if (sleeps != nullptr) sleeps->push_back(ms);
  };
  return options;
}

TEST(OAuthTest, ClientCredentialsBodyIsFormEncoded) {
  std::string body;
  azure::HttpRequest r = azure::BuildTokenHttpRequest(EntraRequestFor(Credentials()), "", &body);
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.url, "https://login.microsoftonline.com/tenant-1/oauth2/v2.0/token");
  EXPECT_EQ(r.body,
            "grant_type=client_credentials&client_id=app-1&client_secret=s3cr3t%2B%2F%3D%26value"
            "&scope=https%3A%2F%2Fns.servicebus.windows.net%2F.default");
}

TEST(OAuthTest, WorkloadIdentitySendsTheFederatedTokenAsClientAssertion) {
  std::string body;
  azure::HttpRequest r =
      azure::BuildTokenHttpRequest(EntraRequestFor(WorkloadIdentity()), "eyJhbGciOi.x.y", &body);
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.url, "https://login.microsoftonline.com/tenant-2/oauth2/v2.0/token");
  EXPECT_EQ(r.body,
            "grant_type=client_credentials&client_id=app-2"
            "&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer"
            "&client_assertion=eyJhbGciOi.x.y"
            "&scope=https%3A%2F%2Fns.servicebus.windows.net%2F.default");
}

TEST(OAuthTest, ManagedIdentityAsksImdsWithTheMetadataHeader) {
  std::string body;
  auto url = [&](const OAuthClientCredentials& c) {
    return azure::BuildTokenHttpRequest(EntraRequestFor(c), "", &body).url;
  };
  azure::HttpRequest r =
      azure::BuildTokenHttpRequest(EntraRequestFor(ManagedIdentity()), "", &body);
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.url,
            "http://169.254.169.254/metadata/identity/oauth2/token?api-version=2018-02-01"
            "&resource=https%3A%2F%2Fns.servicebus.windows.net");
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers[0], std::make_pair(std::string("Metadata"), std::string("true")));
  // A user-assigned identity, by client id, object id or ARM resource id.
  OAuthClientCredentials c = ManagedIdentity();
  c.client_id = "uami-1";
  EXPECT_NE(url(c).find("&client_id=uami-1"), std::string::npos);
  c.client_id.clear();
  c.managed_identity_object_id = "oid-1";
  EXPECT_NE(url(c).find("&object_id=oid-1"), std::string::npos);
  c.managed_identity_object_id.clear();
  c.managed_identity_resource_id = "/subscriptions/s/rg/x";
  EXPECT_NE(url(c).find("&msi_res_id=%2Fsubscriptions%2Fs%2Frg%2Fx"), std::string::npos);
}

TEST(OAuthTest, AppServiceUsesItsEndpointAndHeader) {
  OAuthClientCredentials c = ManagedIdentity();
  c.managed_identity_endpoint = "http://localhost:8081/msi/token";
  c.identity_header = "hdr-secret";
  c.managed_identity_object_id = "oid-1";
  std::string body;
  azure::HttpRequest r = azure::BuildTokenHttpRequest(EntraRequestFor(c), "", &body);
  EXPECT_EQ(r.url,
            "http://localhost:8081/msi/token?api-version=2019-08-01"
            "&resource=https%3A%2F%2Fns.servicebus.windows.net&principal_id=oid-1");
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers[0].first, "X-IDENTITY-HEADER");
}

TEST(OAuthTest, ParsesTokensAndErrors) {
  Redactor redactor;
  redactor.AddSecret("s3cr3t+/=&value");
  int64_t now = 1000;
  auto source = [&](const OAuthClientCredentials& c, long status, const std::string& body) {
    auto answers = std::make_shared<Answers>();
    answers->queue.emplace_back(status, body);
    answers->queue.emplace_back(status, body);
    answers->queue.emplace_back(status, body);
    return std::make_pair(answers, std::make_unique<EntraTokenSource>(
                                       c, redactor, answers->Make(), TestOptions(&now)));
  };
  {
    auto [answers, s] = source(Credentials(), 200,
                               R"({"token_type":"Bearer","expires_in":3599,)"
                               R"("access_token":"eyJ0.abc.def"})");
    ASSERT_OK_AND_ASSIGN(OAuthToken token, s->Token());
    EXPECT_EQ(token.value, "eyJ0.abc.def");
    EXPECT_EQ(token.expires_at_ms, 1000 + 3599 * 1000);
    EXPECT_EQ(token.principal, "app-1");
  }
  {
    auto [answers, s] = source(
        Credentials(), 401,
        R"({"error":"invalid_client","error_description":"AADSTS7000215: Invalid client secret provided: s3cr3t+/=&value"})");
    auto refused = s->Token();
    ASSERT_STATUS_CODE(kInvalidArgument, refused);
    const std::string& m = refused.status().message();
    EXPECT_NE(m.find("invalid_client: AADSTS7000215"), std::string::npos) << m;
    EXPECT_NE(m.find("application app-1 in tenant tenant-1"), std::string::npos) << m;
    EXPECT_NE(m.find("https://login.microsoftonline.com/tenant-1/oauth2/v2.0/token"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("eventhubs.clientSecret"), std::string::npos) << m;
    EXPECT_NE(m.find("Azure Event Hubs Data Receiver"), std::string::npos) << m;
    EXPECT_EQ(m.find("s3cr3t"), std::string::npos) << m;
    EXPECT_EQ(answers->transport->requests().size(), 1u);  // a refusal is not retried
  }
  ASSERT_STATUS_CODE(kUnavailable, source(Credentials(), 503, "busy").second->Token());
  ASSERT_STATUS_CODE(kUnavailable, source(Credentials(), 429, "").second->Token());
  ASSERT_STATUS_CODE(kUnavailable, source(Credentials(), 200, "{}").second->Token());
  // IMDS answers 404 and 410 while it updates: transient for managed identity only.
  ASSERT_STATUS_CODE(kUnavailable, source(ManagedIdentity(), 410, "").second->Token());
  ASSERT_STATUS_CODE(kInvalidArgument, source(Credentials(), 404, "").second->Token());
  auto unknown = source(ManagedIdentity(), 400,
                        R"({"error":"invalid_request","error_description":"Identity not found"})")
                     .second->Token();
  ASSERT_STATUS_CODE(kInvalidArgument, unknown);
  EXPECT_NE(unknown.status().message().find("managed identity (system-assigned)"),
            std::string::npos)
      << unknown.status().message();
  EXPECT_NE(unknown.status().message().find("Identity not found"), std::string::npos);
}

TEST(OAuthTest, ExpiryFromExpiresInStringOrExpiresOn) {
  int64_t now = 5000;
  Answers answers;
  answers.queue.emplace_back(200, R"({"access_token":"t","expires_in":"120"})");
  EntraTokenSource imds(ManagedIdentity(), Redactor(), answers.Make(), TestOptions(&now));
  ASSERT_OK_AND_ASSIGN(OAuthToken token, imds.Token());
  EXPECT_EQ(token.expires_at_ms, 5000 + 120 * 1000);
  EXPECT_EQ(token.principal, "managed-identity");
  Answers app;
  app.queue.emplace_back(200, R"({"access_token":"t","expires_on":"1700000000"})");
  EntraTokenSource app_service(ManagedIdentity(), Redactor(), app.Make(), TestOptions(&now));
  ASSERT_OK_AND_ASSIGN(OAuthToken as, app_service.Token());
  EXPECT_EQ(as.expires_at_ms, 1700000000LL * 1000);
}

TEST(OAuthTest, TokenSourcePostsToTheTokenEndpointAndCachesForHalfTheLifetime) {
  int64_t now = 1000000;
  Answers answers;
  EntraTokenSource source(Credentials(), Redactor(), answers.Make(), TestOptions(&now));
  ASSERT_OK_AND_ASSIGN(OAuthToken token, source.Token());
  EXPECT_EQ(token.value, "tok");
  auto requests = answers.transport->requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].url, "https://login.microsoftonline.com/tenant-1/oauth2/v2.0/token");
  EXPECT_NE(requests[0].body.find("grant_type=client_credentials"), std::string::npos);
  EXPECT_EQ(token.expires_at_ms, now + 60 * 1000);
  now += 29 * 1000;  // another client of the same source: the token is shared
  ASSERT_OK(source.Token().status());
  EXPECT_EQ(answers.transport->requests().size(), 1u);
  now += 2 * 1000;  // past half its lifetime (librdkafka refreshes at 80%): a new one
  ASSERT_OK(source.Token().status());
  EXPECT_EQ(answers.transport->requests().size(), 2u);
}

TEST(OAuthTest, TransientFailuresAreRetriedRefusalsAreNot) {
  int64_t now = 0;
  std::vector<int64_t> sleeps;
  Answers answers;
  answers.queue.emplace_back(503, R"({"error":"temporarily_unavailable"})");
  answers.queue.emplace_back(503, R"({"error":"temporarily_unavailable"})");
  EntraTokenSource source(ManagedIdentity(), Redactor(), answers.Make(),
                          TestOptions(&now, &sleeps));
  ASSERT_OK(source.Token().status());
  EXPECT_EQ(answers.transport->requests().size(), 3u);
  EXPECT_EQ(sleeps, (std::vector<int64_t>{500, 1000}));

  Answers refusing;
  refusing.queue.emplace_back(401, R"({"error":"invalid_client"})");
  EntraTokenSource refused(Credentials(), Redactor(), refusing.Make(), TestOptions(&now));
  ASSERT_STATUS_CODE(kInvalidArgument, refused.Token());
  EXPECT_EQ(refusing.transport->requests().size(), 1u);
}

TEST(OAuthTest, WorkloadIdentityReadsTheTokenFileForEveryToken) {
  int64_t now = 0;
  int reads = 0;
  Answers answers;
  azure::TokenSource::Options options = TestOptions(&now);
  options.read_file = [&](const std::string& path) -> Result<std::string> {
    EXPECT_EQ(path, "/var/run/secrets/azure/tokens/azure-identity-token");
    return std::string("assertion-" + std::to_string(++reads) + "\n");
  };
  EntraTokenSource source(WorkloadIdentity(), Redactor(), answers.Make(), options);
  ASSERT_OK(source.Token().status());
  now += 40 * 1000;
  ASSERT_OK(source.Token().status());
  auto requests = answers.transport->requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_NE(requests[0].body.find("client_assertion=assertion-1&"), std::string::npos);
  EXPECT_NE(requests[1].body.find("client_assertion=assertion-2&"), std::string::npos);

  Answers unused;
  options.read_file = [](const std::string&) -> Result<std::string> { return std::string("  \n"); };
  EntraTokenSource empty(WorkloadIdentity(), Redactor(), unused.Make(), options);
  auto st = empty.Token();
  ASSERT_STATUS_CODE(kInvalidArgument, st);
  EXPECT_NE(st.status().message().find("azure-identity-token is empty"), std::string::npos);
  EXPECT_TRUE(unused.transport->requests().empty());
}

TEST(OAuthTest, CurlTransportReportsUnreachableEndpoints) {
  OAuthClientCredentials c = Credentials();
  c.token_endpoint_url = "https://127.0.0.1:1/token?x=secret-query";
  int64_t now = 0;
  azure::TokenSource::Options options = TestOptions(&now);
  options.now_ms = nullptr;  // the real clock
  azure::CurlTransport::Options transport_options;
  transport_options.total_timeout_ms = 2000;
  EntraTokenSource source(c, Redactor(), std::make_unique<azure::CurlTransport>(transport_options),
                          options);
  auto r = source.Token();
  ASSERT_STATUS_CODE(kUnavailable, r);
  EXPECT_NE(r.status().message().find("token endpoint https://127.0.0.1:1/token"),
            std::string::npos)
      << r.status().message();
  EXPECT_EQ(r.status().message().find("secret-query"), std::string::npos);
  EXPECT_EQ(r.status().message().find("s3cr3t"), std::string::npos);
}

}  // namespace
}  // namespace weir::kafka
