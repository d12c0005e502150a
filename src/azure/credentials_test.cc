#include "azure/credentials.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <deque>
#include <map>
#include <thread>

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
  ASSERT_OK(TokenSource(app_service, &transport).Token().status());
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
}

TEST(AzureCredentialsTest, EnvironmentChainAsTheAzureSdks) {
  std::map<std::string, std::string> vars = {{"AZURE_TENANT_ID", "t"},
                                             {"AZURE_CLIENT_ID", "c"},
                                             {"AZURE_FEDERATED_TOKEN_FILE", "/f"},
                                             {"AZURE_AUTHORITY_HOST", "https://login.microsoftonline.us/"}};
  auto env = [&](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  auto c = AzureCredentials::FromEnvironment(env);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->kind, AzureCredentials::Kind::kWorkloadIdentity);
  EXPECT_EQ(c->federated_token_file, "/f");
  EXPECT_EQ(c->authority_host, "https://login.microsoftonline.us");
  vars["AZURE_CLIENT_SECRET"] = "s";  // a client secret comes first
  c = AzureCredentials::FromEnvironment(env);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->kind, AzureCredentials::Kind::kClientSecret);
  vars.erase("AZURE_TENANT_ID");
  EXPECT_FALSE(AzureCredentials::FromEnvironment(env).has_value());
}

TEST(TokenSourceTest, FailuresNameTheClientButNotTheSecret) {
  FakeTransport transport([](const RecordedRequest&) {
    return FakeTransport::Response(
        401, {}, "{\"error\":\"invalid_client\",\"error_description\":\"AADSTS7000215\"}");
  });
  TokenSource source(AzureCredentials::ClientSecret("t1", "c1", "SUPERSECRET"), &transport);
  auto token = source.Token();
  ASSERT_STATUS_CODE(kIOError, token);
  const std::string& message = token.status().message();
  EXPECT_NE(message.find("client c1 in tenant t1"), std::string::npos) << message;
  EXPECT_NE(message.find("HTTP 401 invalid_client"), std::string::npos) << message;
  EXPECT_EQ(message.find("SUPERSECRET"), std::string::npos);

  FakeTransport busy([](const RecordedRequest&) { return FakeTransport::Response(503); });
  TokenSource busy_source(AzureCredentials::ClientSecret("t1", "c1", "x"), &busy);
  ASSERT_STATUS_CODE(kUnavailable, busy_source.Token());

  TokenSource incomplete(AzureCredentials::ClientSecret("t1", "", ""), &busy);
  ASSERT_STATUS_CODE(kInvalidArgument, incomplete.Token());
}

// A blob request with Entra ID credentials carries the cached bearer token; the token endpoint is
// asked once for many requests.
TEST(TokenSourceTest, BlobClientSendsBearerTokens) {
  FakeTransport transport([](const RecordedRequest& r) {
    if (r.url.find("/oauth2/") != std::string::npos) return TokenResponse("abc", "3600");
    return FakeTransport::Response(202);
  });
  AzureCredentials credentials = AzureCredentials::ClientSecret("t", "c", "s");
  credentials.authority_host = "http://127.0.0.1:9";
  BlobClient client("https://acct.blob.core.windows.net", "acct", credentials, &transport,
                    BlobClient::Options());
  ASSERT_OK(client.DeleteBlob("c", "a"));
  ASSERT_OK(client.DeleteBlob("c", "b"));
  auto requests = transport.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[1].url, "https://acct.blob.core.windows.net/c/a");
  EXPECT_EQ(requests[1].Header("Authorization"), "Bearer abc");
  EXPECT_EQ(requests[2].Header("Authorization"), "Bearer abc");
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
