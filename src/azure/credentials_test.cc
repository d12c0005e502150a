#include "azure/credentials.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <future>
#include <map>
#include <thread>
#include <vector>

#include "azure/azure_url.h"
#include "azure/blob_client.h"
#include "azure/fake_transport.h"
#include "base/testing.h"

namespace weir::azure {
namespace {

HttpResponse TokenResponse(const std::string& token, const std::string& expires_in_json) {
  return FakeTransport::Response(
      200, {}, "{\"token_type\":\"Bearer\",\"expires_in\":" + expires_in_json +
                   ",\"access_token\":\"" + token + "\"}");
}

TEST(TokenSourceTest, ClientCredentialsRequestCachingAndRefresh) {
  int issued = 0;
  FakeTransport transport([&](const RecordedRequest&) {
    return TokenResponse("token-" + std::to_string(++issued), "3600");
  });
  int64_t now = 1'000'000;
  AzureCredentials credentials =
      AzureCredentials::ClientSecret("my-tenant", "my-client", "s3cr&t=");
  credentials.authority_host = "http://127.0.0.1:9";
  TokenSource source(credentials, &transport, [&] { return now; });

  ASSERT_OK_AND_ASSIGN(std::string token, source.Token());
  EXPECT_EQ(token, "token-1");
  auto requests = transport.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].url, "http://127.0.0.1:9/my-tenant/oauth2/v2.0/token");
  EXPECT_EQ(requests[0].Header("Content-Type"), "application/x-www-form-urlencoded");
  EXPECT_EQ(requests[0].body,
            "grant_type=client_credentials&client_id=my-client&client_secret=s3cr%26t%3D"
            "&scope=https%3A%2F%2Fstorage.azure.com%2F.default");

  now += 54 * 60 * 1000;  // 54 minutes later: still more than five minutes left
  ASSERT_OK_AND_ASSIGN(token, source.Token());
  EXPECT_EQ(token, "token-1");
  EXPECT_EQ(transport.requests().size(), 1u);

  now += 2 * 60 * 1000;  // 56 minutes: within five minutes of expiry, refreshed
  ASSERT_OK_AND_ASSIGN(token, source.Token());
  EXPECT_EQ(token, "token-2");
  EXPECT_EQ(transport.requests().size(), 2u);
}

TEST(TokenSourceTest, ManagedIdentityUsesImdsWithStringExpiry) {
  FakeTransport transport([](const RecordedRequest&) { return TokenResponse("mi", "\"86399\""); });
  AzureCredentials credentials = AzureCredentials::ManagedIdentity("user-assigned-id");
  credentials.imds_endpoint = "http://127.0.0.1:9/metadata/identity/oauth2/token";
  int64_t now = 0;
  TokenSource source(credentials, &transport, [&] { return now; });
  ASSERT_OK_AND_ASSIGN(std::string token, source.Token());
  EXPECT_EQ(token, "mi");
  auto requests = transport.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].Header("Metadata"), "true");
  EXPECT_EQ(requests[0].url,
            "http://127.0.0.1:9/metadata/identity/oauth2/token?api-version=2018-02-01"
            "&resource=https%3A%2F%2Fstorage.azure.com%2F&client_id=user-assigned-id");
  now += 23 * 3600 * 1000;  // the string "86399" was read as a day
  ASSERT_OK(source.Token().status());
  EXPECT_EQ(transport.requests().size(), 1u);
}

TEST(TokenSourceTest, WorkloadIdentityReadsTheFederatedTokenForEveryToken) {
  FakeTransport transport([](const RecordedRequest&) { return TokenResponse("wi", "600"); });
  int64_t now = 1'000'000;
  int reads = 0;
  AzureCredentials credentials =
      AzureCredentials::WorkloadIdentity("tenant-wi", "app-wi", "/var/run/secrets/token");
  credentials.authority_host = "http://127.0.0.1:9";
  TokenSource source(credentials, &transport, [&] { return now; },
                     [&](const std::string& path) -> Result<std::string> {
                       EXPECT_EQ(path, "/var/run/secrets/token");
                       return std::string("assertion-" + std::to_string(++reads) + "\n");
                     });
  ASSERT_OK_AND_ASSIGN(std::string token, source.Token());
  EXPECT_EQ(token, "wi");
  now += 6 * 60 * 1000;  // within five minutes of the 10-minute expiry: refreshed
  ASSERT_OK(source.Token().status());
  auto requests = transport.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].url, "http://127.0.0.1:9/tenant-wi/oauth2/v2.0/token");
  EXPECT_EQ(requests[0].body,
            "grant_type=client_credentials&client_id=app-wi"
            "&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer"
            "&client_assertion=assertion-1&scope=https%3A%2F%2Fstorage.azure.com%2F.default");
  EXPECT_NE(requests[1].body.find("client_assertion=assertion-2&"), std::string::npos);
}

TEST(TokenSourceTest, ManagedIdentitySelectorsAndAppService) {
  FakeTransport transport([](const RecordedRequest&) {
    return FakeTransport::Response(200, {}, R"({"access_token":"as","expires_on":"4102444800"})");
  });
  AzureCredentials by_object = AzureCredentials::ManagedIdentity();
  by_object.managed_identity_object_id = "oid-1";
  ASSERT_OK(TokenSource(by_object, &transport).Token().status());
  AzureCredentials app_service = AzureCredentials::ManagedIdentity();
  app_service.managed_identity_resource_id = "/subscriptions/s/uami";
  app_service.ApplyManagedIdentityEnvironment([](const std::string& name) -> std::optional<std::string> {
    if (name == "IDENTITY_ENDPOINT") return "http://localhost:8081/msi/token";
    if (name == "IDENTITY_HEADER") return "hdr-value";
    return std::nullopt;
  });
  TokenSource app_source(app_service, &transport);
  ASSERT_OK_AND_ASSIGN(AccessToken token, app_source.Get());
  EXPECT_EQ(token.expires_at_ms, 4102444800LL * 1000);  // expires_on: seconds since the epoch
  auto requests = transport.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].url,
            "http://169.254.169.254/metadata/identity/oauth2/token?api-version=2018-02-01"
            "&resource=https%3A%2F%2Fstorage.azure.com%2F&object_id=oid-1");
  EXPECT_EQ(requests[0].Header("Metadata"), "true");
  EXPECT_EQ(requests[1].url,
            "http://localhost:8081/msi/token?api-version=2019-08-01"
            "&resource=https%3A%2F%2Fstorage.azure.com%2F&mi_res_id=%2Fsubscriptions%2Fs%2Fuami");
  EXPECT_EQ(requests[1].Header("X-IDENTITY-HEADER"), "hdr-value");
  AzureCredentials pod = AzureCredentials::ManagedIdentity();
  pod.ApplyManagedIdentityEnvironment([](const std::string& name) -> std::optional<std::string> {
    if (name == "AZURE_POD_IDENTITY_AUTHORITY_HOST") return "http://127.0.0.1:2/";
    return std::nullopt;
  });
  EXPECT_EQ(pod.imds_endpoint, "http://127.0.0.1:2/metadata/identity/oauth2/token");
  // Two selectors at once: InvalidArgument before any request.
  AzureCredentials both = AzureCredentials::ManagedIdentity("c");
  both.managed_identity_object_id = "o";
  ASSERT_STATUS_CODE(kInvalidArgument, TokenSource(both, &transport).Token());
  EXPECT_EQ(transport.requests().size(), 2u);
}

using Vars = std::map<std::string, std::string>;
AzureCredentials::Environment EnvOf(const Vars& vars) {
  return [&vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

TEST(AzureCredentialsTest, EnvironmentChainAsTheAzureSdks) {
  Vars vars = {{"AZURE_TENANT_ID", "t"},
               {"AZURE_CLIENT_ID", "c"},
               {"AZURE_FEDERATED_TOKEN_FILE", "/f"},
               {"AZURE_AUTHORITY_HOST", "https://login.microsoftonline.us/"}};
  ASSERT_OK_AND_ASSIGN(auto c, AzureCredentials::FromEnvironment(EnvOf(vars)));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->kind, AzureCredentials::Kind::kWorkloadIdentity);
  EXPECT_EQ(c->federated_token_file, "/f");
  EXPECT_EQ(c->authority_host, "https://login.microsoftonline.us");
  vars["AZURE_CLIENT_SECRET"] = "s";  // a client secret comes first
  ASSERT_OK_AND_ASSIGN(c, AzureCredentials::FromEnvironment(EnvOf(vars)));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->kind, AzureCredentials::Kind::kClientSecret);
  // AZURE_TOKEN_CREDENTIALS naming one credential limits the chain to it.
  vars["AZURE_TOKEN_CREDENTIALS"] = "WorkloadIdentityCredential";
  ASSERT_OK_AND_ASSIGN(c, AzureCredentials::FromEnvironment(EnvOf(vars)));
  EXPECT_EQ(c->kind, AzureCredentials::Kind::kWorkloadIdentity);
  vars["AZURE_TOKEN_CREDENTIALS"] = "managedidentitycredential";  // case-insensitive
  ASSERT_OK_AND_ASSIGN(c, AzureCredentials::FromEnvironment(EnvOf(vars)));
  EXPECT_EQ(c->kind, AzureCredentials::Kind::kManagedIdentity);
  EXPECT_EQ(c->managed_identity_client_id, "c");  // AZURE_CLIENT_ID picks a user-assigned one
  vars.erase("AZURE_TOKEN_CREDENTIALS");
  // A sovereign cloud's host without a scheme; http only to loopback.
  vars["AZURE_AUTHORITY_HOST"] = "login.chinacloudapi.cn";
  ASSERT_OK_AND_ASSIGN(c, AzureCredentials::FromEnvironment(EnvOf(vars)));
  EXPECT_EQ(c->authority_host, "https://login.chinacloudapi.cn");
  vars["AZURE_AUTHORITY_HOST"] = "http://login.example.com";
  auto insecure = AzureCredentials::FromEnvironment(EnvOf(vars));
  ASSERT_STATUS_CODE(kInvalidArgument, insecure);
  EXPECT_NE(insecure.status().message().find("AZURE_AUTHORITY_HOST must use https://"),
            std::string::npos);
  vars["AZURE_AUTHORITY_HOST"] = "http://127.0.0.1:8080/";
  ASSERT_OK_AND_ASSIGN(c, AzureCredentials::FromEnvironment(EnvOf(vars)));
  EXPECT_EQ(c->authority_host, "http://127.0.0.1:8080");
  vars.erase("AZURE_TENANT_ID");
  ASSERT_OK_AND_ASSIGN(c, AzureCredentials::FromEnvironment(EnvOf(vars)));
  EXPECT_FALSE(c.has_value());
}

TEST(AzureCredentialsTest, ManagedIdentityOnlyWhenAskedFor) {
  Vars vars = {{"IDENTITY_ENDPOINT", "http://127.0.0.1:7/msi/token"}, {"IDENTITY_HEADER", "h"}};
  ASSERT_OK_AND_ASSIGN(auto c, AzureCredentials::FromEnvironment(EnvOf(vars)));
  EXPECT_FALSE(c.has_value());  // cannot be detected without a request: opt-in
  for (const char* value : {"prod", "ManagedIdentityCredential"}) {
    SCOPED_TRACE(value);
    vars["AZURE_TOKEN_CREDENTIALS"] = value;
    ASSERT_OK_AND_ASSIGN(c, AzureCredentials::FromEnvironment(EnvOf(vars)));
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->kind, AzureCredentials::Kind::kManagedIdentity);
    EXPECT_EQ(c->managed_identity_client_id, "");
    EXPECT_EQ(c->identity_endpoint, "http://127.0.0.1:7/msi/token");
  }
  vars["AZURE_TOKEN_CREDENTIALS"] = "dev";
  auto dev = AzureCredentials::FromEnvironment(EnvOf(vars));
  ASSERT_STATUS_CODE(kInvalidArgument, dev);
  EXPECT_NE(dev.status().message().find("AZURE_TOKEN_CREDENTIALS='dev'"), std::string::npos);
}

TEST(AzureCredentialsTest, StorageEnvironmentOrder) {
  Vars vars = {{"AZURE_STORAGE_KEY", "k"},         {"AZURE_STORAGE_SAS_TOKEN", "sv=1"},
               {"AZURE_TENANT_ID", "t"},           {"AZURE_CLIENT_ID", "c"},
               {"AZURE_CLIENT_SECRET", "s"},       {"AZURE_FEDERATED_TOKEN_FILE", "/f"},
               {"AZURE_TOKEN_CREDENTIALS", "prod"}};
  // Each source wins over the ones after it.
  const std::vector<std::pair<std::string, AzureCredentials::Kind>> order = {
      {"AZURE_STORAGE_KEY", AzureCredentials::Kind::kSharedKey},
      {"AZURE_STORAGE_SAS_TOKEN", AzureCredentials::Kind::kSas},
      {"AZURE_CLIENT_SECRET", AzureCredentials::Kind::kClientSecret},
      {"AZURE_FEDERATED_TOKEN_FILE", AzureCredentials::Kind::kWorkloadIdentity},
      {"AZURE_TOKEN_CREDENTIALS", AzureCredentials::Kind::kManagedIdentity}};
  for (const auto& [variable, kind] : order) {
    SCOPED_TRACE(variable);
    ASSERT_OK_AND_ASSIGN(auto c, AzureCredentials::FromStorageEnvironment("acct", EnvOf(vars)));
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->kind, kind);
    vars.erase(variable);
  }
  ASSERT_OK_AND_ASSIGN(auto none, AzureCredentials::FromStorageEnvironment("acct", EnvOf(vars)));
  EXPECT_FALSE(none.has_value());
  // A key or SAS belongs to AZURE_STORAGE_ACCOUNT when that is set; Entra ID ones to any account.
  vars = {{"AZURE_STORAGE_ACCOUNT", "other"}, {"AZURE_STORAGE_ACCOUNT_KEY", "k"},
          {"AZURE_TENANT_ID", "t"}, {"AZURE_CLIENT_ID", "c"}, {"AZURE_CLIENT_SECRET", "s"}};
  ASSERT_OK_AND_ASSIGN(auto other, AzureCredentials::FromStorageEnvironment("acct", EnvOf(vars)));
  EXPECT_EQ(other->kind, AzureCredentials::Kind::kClientSecret);
  ASSERT_OK_AND_ASSIGN(auto own, AzureCredentials::FromStorageEnvironment("other", EnvOf(vars)));
  EXPECT_EQ(own->kind, AzureCredentials::Kind::kSharedKey);
  EXPECT_EQ(own->account_key, "k");
}

TEST(TokenSourceTest, FailuresNameTheEndpointAndClientButNotTheSecret) {
  FakeTransport transport([](const RecordedRequest&) {
    return FakeTransport::Response(
        401, {},
        "{\"error\":\"invalid_client\",\"error_description\":\"AADSTS7000215: Invalid client "
        "secret provided: SUPERSECRET\"}");
  });
  AzureCredentials credentials = AzureCredentials::ClientSecret("t1", "c1", "SUPERSECRET");
  credentials.authority_host = "http://127.0.0.1:9";
  TokenSource source(credentials, &transport);
  auto token = source.Token();
  ASSERT_STATUS_CODE(kIOError, token);
  const std::string& message = token.status().message();
  EXPECT_NE(message.find("http://127.0.0.1:9/t1/oauth2/v2.0/token"), std::string::npos) << message;
  EXPECT_NE(message.find("application c1 in tenant t1"), std::string::npos) << message;
  EXPECT_NE(message.find("HTTP 401 invalid_client: AADSTS7000215"), std::string::npos) << message;
  EXPECT_EQ(message.find("SUPERSECRET"), std::string::npos) << message;

  FakeTransport busy([](const RecordedRequest&) { return FakeTransport::Response(503); });
  TokenSource busy_source(AzureCredentials::ClientSecret("t1", "c1", "x"), &busy);
  ASSERT_STATUS_CODE(kUnavailable, busy_source.Token());
  EXPECT_EQ(busy.requests().size(), 1u);  // storage: the blob client retries the whole request

  TokenSource incomplete(AzureCredentials::ClientSecret("t1", "", ""), &busy);
  ASSERT_STATUS_CODE(kInvalidArgument, incomplete.Token());
  EXPECT_EQ(busy.requests().size(), 1u);

  // No answer at all: Unavailable naming the token endpoint, not the App Service header.
  FakeTransport down([](const RecordedRequest& r) -> Result<HttpResponse> {
    return Status::Unavailable("HTTP GET " + RedactUrl(r.url) + " failed: Connection refused");
  });
  AzureCredentials app = AzureCredentials::ManagedIdentity();
  app.identity_endpoint = "http://127.0.0.1:8/msi/token";
  app.identity_header = "HEADERSECRET";
  auto unreachable = TokenSource(app, &down).Token();
  ASSERT_STATUS_CODE(kUnavailable, unreachable);
  EXPECT_NE(unreachable.status().message().find("token endpoint"), std::string::npos);
  EXPECT_NE(unreachable.status().message().find("http://127.0.0.1:8/msi/token"), std::string::npos);
  EXPECT_EQ(unreachable.status().message().find("HEADERSECRET"), std::string::npos);
  EXPECT_EQ(down.requests()[0].Header("X-IDENTITY-HEADER"), "HEADERSECRET");

  // A federated token file that cannot be read, or is empty.
  AzureCredentials wi = AzureCredentials::WorkloadIdentity("t", "c", "/nonexistent/token");
  auto unreadable = TokenSource(wi, &transport).Token();
  ASSERT_STATUS_CODE(kIOError, unreadable);
  EXPECT_NE(unreadable.status().message().find(
                "cannot read the federated token file /nonexistent/token"),
            std::string::npos)
      << unreadable.status().message();
  TokenSource empty(wi, &transport, nullptr,
                    [](const std::string&) -> Result<std::string> { return std::string(" \n"); });
  auto empty_token = empty.Token();
  ASSERT_STATUS_CODE(kIOError, empty_token);
  EXPECT_NE(empty_token.status().message().find("/nonexistent/token is empty"), std::string::npos);
}

TEST(TokenSourceTest, ShortLivedTokensAreRefreshedAtHalfTheirLifetime) {
  int issued = 0;
  FakeTransport transport([&](const RecordedRequest&) {
    return TokenResponse("t" + std::to_string(++issued), "60");
  });
  int64_t now = 0;
  TokenSource source(AzureCredentials::ClientSecret("t", "c", "s"), &transport,
                     [&] { return now; });
  ASSERT_OK(source.Token().status());
  now = 29'000;
  ASSERT_OK(source.Token().status());
  EXPECT_EQ(transport.requests().size(), 1u);
  now = 31'000;
  ASSERT_OK_AND_ASSIGN(std::string token, source.Token());
  EXPECT_EQ(token, "t2");
}

TEST(TokenSourceTest, KafkaStylePolicyRetriesAndRefreshesAtHalfTheLifetime) {
  int calls = 0;
  FakeTransport transport([&](const RecordedRequest&) {
    if (++calls == 1) return FakeTransport::Response(429);
    return TokenResponse("tok", "3600");
  });
  EntraTokenRequest request;
  request.token_endpoint = "https://login.microsoftonline.com/t/oauth2/v2.0/token";
  request.client_id = "c";
  request.client_secret = "s";
  request.scope = "https://ns.servicebus.windows.net/.default";
  TokenSource::Options options;
  int64_t now = 0;
  std::vector<int64_t> sleeps;
  options.now_ms = [&] { return now; };
  options.sleep_ms = [&](int64_t ms) { sleeps.push_back(ms); };
  options.max_age_fraction = 0.5;
  options.attempts = 3;
  TokenSource source(request, &transport, options);
  ASSERT_OK(source.Token().status());
  EXPECT_EQ(sleeps, std::vector<int64_t>{500});
  now = 29 * 60 * 1000;
  ASSERT_OK(source.Token().status());
  EXPECT_EQ(calls, 2);
  now = 31 * 60 * 1000;  // past half of the hour, long before the five-minute margin
  ASSERT_OK(source.Token().status());
  EXPECT_EQ(calls, 3);
  auto body = transport.requests()[0].body;
  EXPECT_NE(body.find("&scope=https%3A%2F%2Fns.servicebus.windows.net%2F.default"),
            std::string::npos);
}

// Concurrent callers share one refresh: one token request, every caller gets its token.
TEST(TokenSourceTest, ConcurrentCallersShareOneRefresh) {
  std::atomic<int> calls{0};
  FakeTransport transport([&](const RecordedRequest&) {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return TokenResponse("shared", "3600");
  });
  TokenSource source(AzureCredentials::ClientSecret("t", "c", "s"), &transport);
  std::vector<std::thread> threads;
  std::vector<std::string> tokens(8);
  for (size_t i = 0; i < tokens.size(); ++i) {
    threads.emplace_back([&, i] { tokens[i] = source.Token().ValueOrDie(); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(calls.load(), 1);
  for (const std::string& token : tokens) EXPECT_EQ(token, "shared");

  // A failed refresh is shared too: the waiting callers get its error, not a request each.
  calls = 0;
  FakeTransport refusing([&](const RecordedRequest&) {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return FakeTransport::Response(400, {}, R"({"error":"invalid_request"})");
  });
  TokenSource failing(AzureCredentials::ManagedIdentity(), &refusing);
  std::atomic<int> failures{0};
  threads.clear();
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      if (failing.Token().status().IsIOError()) ++failures;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 4);
  EXPECT_LE(calls.load(), 4);
  EXPECT_GE(calls.load(), 1);
}

// While one caller refreshes a token that is due, others keep using it if it is still valid.
TEST(TokenSourceTest, AValidTokenIsServedWhileAnotherCallerRefreshes) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> calls{0};
  FakeTransport transport([&](const RecordedRequest&) {
    if (++calls == 2) released.wait();  // the refresh hangs until the test lets it go
    return TokenResponse("token-" + std::to_string(calls.load()), "3600");
  });
  std::atomic<int64_t> now{0};
  TokenSource source(AzureCredentials::ClientSecret("t", "c", "s"), &transport,
                     [&] { return now.load(); });
  ASSERT_OK(source.Token().status());
  now = 56 * 60 * 1000;  // four minutes left: due for a refresh, still valid
  std::thread refresher([&] { EXPECT_EQ(source.Token().ValueOrDie(), "token-2"); });
  while (calls.load() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_OK_AND_ASSIGN(std::string during, source.Token());
  EXPECT_EQ(during, "token-1");
  release.set_value();
  refresher.join();
  ASSERT_OK_AND_ASSIGN(std::string after, source.Token());
  EXPECT_EQ(after, "token-2");
  EXPECT_EQ(calls.load(), 2);
}

// A blob request with Entra ID credentials carries the cached bearer token; the token endpoint is
// asked once for many requests.
TEST(TokenSourceTest, BlobClientSendsBearerTokens) {
  for (const bool workload : {false, true}) {
    SCOPED_TRACE(workload);
    FakeTransport transport([](const RecordedRequest& r) {
      if (r.url.find("/oauth2/") != std::string::npos) return TokenResponse("abc", "3600");
      return FakeTransport::Response(202);
    });
    char token_file[] = "/tmp/weir-federated-XXXXXX";
    int fd = mkstemp(token_file);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, "eyJ.federated.token\n", 20), 20);
    ::close(fd);
    AzureCredentials credentials =
        workload ? AzureCredentials::WorkloadIdentity("t", "c", token_file)
                 : AzureCredentials::ClientSecret("t", "c", "s");
    credentials.authority_host = "http://127.0.0.1:9";
    BlobClient client("https://acct.blob.core.windows.net", "acct", credentials, &transport,
                      BlobClient::Options());
    ASSERT_OK(client.DeleteBlob("c", "a"));
    ASSERT_OK(client.DeleteBlob("c", "b"));
    ::unlink(token_file);
    auto requests = transport.requests();
    ASSERT_EQ(requests.size(), 3u);
    EXPECT_EQ(requests[0].url, "http://127.0.0.1:9/t/oauth2/v2.0/token");
    EXPECT_NE(requests[0].body.find(workload ? "client_assertion=eyJ.federated.token&"
                                             : "client_secret=s&"),
              std::string::npos)
        << requests[0].body;
    EXPECT_EQ(requests[1].url, "https://acct.blob.core.windows.net/c/a");
    EXPECT_EQ(requests[1].Header("Authorization"), "Bearer abc");
    EXPECT_EQ(requests[2].Header("Authorization"), "Bearer abc");
  }
}

// A one-connection-at-a-time HTTP/1.1 server on 127.0.0.1 answering from a script of canned
// responses, recording each request ("METHOD target\nheaders\n\nbody"). Enough to exercise
// CurlTransport and TokenSource over a real socket, as a fake Entra ID / IMDS endpoint.
class LoopbackHttpServer {
 public:
  explicit LoopbackHttpServer(std::deque<std::string> responses)
      : responses_(std::move(responses)) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        ::listen(listener_, 4) != 0) {
      ADD_FAILURE() << "cannot listen on 127.0.0.1";
    }
    socklen_t length = sizeof(address);
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~LoopbackHttpServer() {
    ::shutdown(listener_, SHUT_RDWR);  // wakes accept() if a failed test left responses unused
    thread_.join();
    ::close(listener_);
  }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<std::string> requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }

 private:
  void Serve() {
    while (true) {
      std::string response;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (responses_.empty()) return;
        response = responses_.front();
        responses_.pop_front();
      }
      int connection = ::accept(listener_, nullptr, nullptr);
      if (connection < 0) return;
      std::string request;
      char buffer[4096];
      size_t header_end = std::string::npos;
      size_t content_length = 0;
      while (true) {
        ssize_t n = ::read(connection, buffer, sizeof(buffer));
        if (n <= 0) break;
        request.append(buffer, static_cast<size_t>(n));
        if (header_end == std::string::npos) {
          header_end = request.find("\r\n\r\n");
          if (header_end == std::string::npos) continue;
          size_t at = request.find("Content-Length: ");
          if (at != std::string::npos && at < header_end) {
            content_length = std::stoul(request.substr(at + 16));
          }
        }
        if (request.size() >= header_end + 4 + content_length) break;
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        requests_.push_back(request);
      }
      std::string full = response + "Connection: close\r\nContent-Length: " +
                         std::to_string(BodyOf(response).size()) + "\r\n\r\n" +
                         BodyOf(response);
      full.erase(full.find("\x01"), 1);  // the marker between head and body
      ssize_t written = ::write(connection, full.data(), full.size());
      (void)written;  // a client that went away is the test's failure to report, not ours
      ::close(connection);
    }
  }
  // Canned responses are "HTTP/1.1 200 OK\r\n<headers>\x01<body>".
  static std::string BodyOf(const std::string& response) {
    return response.substr(response.find('\x01') + 1);
  }

  int listener_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::mutex mutex_;
  std::deque<std::string> responses_;
  std::vector<std::string> requests_;
};

std::string Canned(const std::string& status_line, const std::string& body) {
  return "HTTP/1.1 " + status_line + "\r\nContent-Type: application/json\r\n\x01" + body;
}

TEST(TokenSourceOverHttpTest, ClientCredentialsAgainstALocalFakeEndpoint) {
  LoopbackHttpServer server({Canned("200 OK", R"({"access_token":"tok-1","expires_in":3599})")});
  CurlTransport transport;
  AzureCredentials credentials = AzureCredentials::ClientSecret("tenant-a", "client-b", "p@ss");
  credentials.authority_host = server.base_url();
  TokenSource source(credentials, &transport);
  ASSERT_OK_AND_ASSIGN(std::string token, source.Token());
  EXPECT_EQ(token, "tok-1");
  ASSERT_OK_AND_ASSIGN(token, source.Token());  // cached: no second request
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_TRUE(requests[0].starts_with("POST /tenant-a/oauth2/v2.0/token HTTP/1.1\r\n"))
      << requests[0];
  EXPECT_NE(requests[0].find("Content-Type: application/x-www-form-urlencoded\r\n"),
            std::string::npos);
  EXPECT_NE(requests[0].find("\r\n\r\ngrant_type=client_credentials&client_id=client-b"
                             "&client_secret=p%40ss&scope=https%3A%2F%2Fstorage.azure.com%2F.default"),
            std::string::npos)
      << requests[0];
}

TEST(TokenSourceOverHttpTest, ManagedIdentityErrorsAndRetryableFailures) {
  LoopbackHttpServer server(
      {Canned("400 Bad Request", R"({"error":"invalid_request","error_description":"Identity not found"})"),
       Canned("503 Service Unavailable", "{}"),
       Canned("200 OK", R"({"access_token":"mi-tok","expires_in":"86399","token_type":"Bearer"})")});
  CurlTransport transport;
  AzureCredentials credentials = AzureCredentials::ManagedIdentity();
  credentials.imds_endpoint = server.base_url() + "/metadata/identity/oauth2/token";
  TokenSource source(credentials, &transport);
  auto first = source.Token();
  ASSERT_STATUS_CODE(kIOError, first);
  EXPECT_NE(first.status().message().find("HTTP 400 invalid_request"), std::string::npos);
  ASSERT_STATUS_CODE(kUnavailable, source.Token());
  ASSERT_OK_AND_ASSIGN(std::string token, source.Token());
  EXPECT_EQ(token, "mi-tok");
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_TRUE(requests[2].starts_with("GET /metadata/identity/oauth2/token?api-version=2018-02-01"
                                      "&resource=https%3A%2F%2Fstorage.azure.com%2F HTTP/1.1"))
      << requests[2];
  EXPECT_NE(requests[2].find("Metadata: true\r\n"), std::string::npos);
}

}  // namespace
}  // namespace weir::azure
