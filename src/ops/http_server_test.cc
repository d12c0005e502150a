#include "ops/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>

#include "base/testing.h"
#include "ops/http_client.h"

namespace weir::ops {
namespace {

// Sends raw bytes to the server and returns everything it answers.
std::string RawExchange(int port, const std::string& bytes) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return "";
  }
  (void)!send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  close(fd);
  return out;
}

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HttpServerOptions options;
    options.max_request_bytes = 1024;
    auto server = HttpServer::Start(options, [this](const HttpRequest& r) {
      ++requests_;
      HttpResponse response;
      if (r.path == "/hello") {
        response.body = "hello " + r.query;
      } else {
        response.status = 404;
        response.body = "nope";
      }
      return response;
    });
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
    ASSERT_GT(server_->port(), 0);
  }

  HttpUrl Url() const { return HttpUrl{"127.0.0.1", server_->port(), "/"}; }

  std::atomic<int> requests_{0};
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerTest, AnswersGetWithTheHandlersResponse) {
  ASSERT_OK_AND_ASSIGN(HttpResponse r, HttpGet(Url(), "/hello?x=1"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "hello x=1");
  EXPECT_EQ(r.content_type, "text/plain; charset=utf-8");
  ASSERT_OK_AND_ASSIGN(HttpResponse missing, HttpGet(Url(), "/other"));
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, "nope");
  EXPECT_EQ(requests_.load(), 2);
}

TEST_F(HttpServerTest, ManySequentialRequests) {
  for (int i = 0; i < 50; ++i) {
    ASSERT_OK_AND_ASSIGN(HttpResponse r, HttpGet(Url(), "/hello?i=" + std::to_string(i)));
    ASSERT_EQ(r.body, "hello i=" + std::to_string(i));
  }
}

TEST_F(HttpServerTest, RejectsOtherMethodsAndOversizedRequests) {
  std::string post = RawExchange(server_->port(), "POST /hello HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(post.rfind("HTTP/1.1 405 ", 0), 0u) << post;
  std::string big = "GET /hello HTTP/1.1\r\nX-Fill: " + std::string(2000, 'a') + "\r\n\r\n";
  std::string answer = RawExchange(server_->port(), big);
  EXPECT_EQ(answer.rfind("HTTP/1.1 431 ", 0), 0u) << answer;
  std::string garbage = RawExchange(server_->port(), "hello\r\n\r\n");
  EXPECT_EQ(garbage.rfind("HTTP/1.1 400 ", 0), 0u) << garbage;
  EXPECT_EQ(requests_.load(), 0);  // none of them reached the handler
}

TEST_F(HttpServerTest, ASilentClientDoesNotBlockOthers) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(server_->port()));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  (void)!send(fd, "GET /hel", 8, MSG_NOSIGNAL);  // and then nothing
  ASSERT_OK_AND_ASSIGN(HttpResponse r, HttpGet(Url(), "/hello?other", 2000));
  EXPECT_EQ(r.body, "hello other");
  close(fd);
}

TEST_F(HttpServerTest, HeadAnswersWithoutABody) {
  std::string head = RawExchange(server_->port(), "HEAD /hello HTTP/1.1\r\n\r\n");
  EXPECT_NE(head.find("Content-Length: 6\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("Connection: close"), std::string::npos);
  EXPECT_EQ(head.substr(head.size() - 4), "\r\n\r\n");
}

TEST_F(HttpServerTest, StopClosesThePortAndIsIdempotent) {
  int port = server_->port();
  server_->Stop();
  server_->Stop();
  auto r = HttpGet(HttpUrl{"127.0.0.1", port, "/"}, "/hello", 1000);
  ASSERT_STATUS_CODE(kUnavailable, r);
}

TEST(HttpServer, BadBindAddressIsInvalidArgument) {
  HttpServerOptions options;
  options.bind_address = "not-an-address";
  auto server = HttpServer::Start(options, [](const HttpRequest&) { return HttpResponse{}; });
  ASSERT_STATUS_CODE(kInvalidArgument, server);
}

TEST(HttpServer, PortInUseIsIOError) {
  auto first = HttpServer::Start({}, [](const HttpRequest&) { return HttpResponse{}; });
  ASSERT_TRUE(first.ok());
  HttpServerOptions options;
  options.port = (*first)->port();
  auto second = HttpServer::Start(options, [](const HttpRequest&) { return HttpResponse{}; });
  ASSERT_STATUS_CODE(kIOError, second);
  EXPECT_NE(second.status().message().find(std::to_string(options.port)), std::string::npos);
}

TEST(ParseRequestHead, SplitsPathAndQuery) {
  int error = 0;
  ASSERT_OK_AND_ASSIGN(HttpRequest r,
                       ParseRequestHead("GET /a/b?c=d HTTP/1.1\r\nHost: x\r\n\r\n", &error));
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.path, "/a/b");
  EXPECT_EQ(r.query, "c=d");
  EXPECT_EQ(error, 0);
}

TEST(ParseRequestHead, RejectsBadRequests) {
  int error = 0;
  EXPECT_FALSE(ParseRequestHead("GET /a HTTP/2.0\r\n\r\n", &error).ok());
  EXPECT_EQ(error, 505);
  EXPECT_FALSE(ParseRequestHead("DELETE /a HTTP/1.1\r\n\r\n", &error).ok());
  EXPECT_EQ(error, 405);
  EXPECT_FALSE(ParseRequestHead("GET a HTTP/1.1\r\n\r\n", &error).ok());
  EXPECT_EQ(error, 400);
  EXPECT_FALSE(ParseRequestHead("GET  /a HTTP/1.1\r\n\r\n", &error).ok());
  EXPECT_EQ(error, 400);
  EXPECT_FALSE(ParseRequestHead("GET /a\x01 HTTP/1.1\r\n\r\n", &error).ok());
  EXPECT_EQ(error, 400);
}

TEST(ParseHttpUrl, Forms) {
  ASSERT_OK_AND_ASSIGN(HttpUrl a, ParseHttpUrl("http://127.0.0.1:9108/metrics"));
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 9108);
  EXPECT_EQ(a.path, "/metrics");
  ASSERT_OK_AND_ASSIGN(HttpUrl b, ParseHttpUrl("localhost:80"));
  EXPECT_EQ(b.host, "localhost");
  EXPECT_EQ(b.path, "/");
  ASSERT_OK_AND_ASSIGN(HttpUrl c, ParseHttpUrl("http://[::1]:9/"));
  EXPECT_EQ(c.host, "::1");
  EXPECT_EQ(c.port, 9);
  ASSERT_STATUS_CODE(kInvalidArgument, ParseHttpUrl("https://x:1/"));
  ASSERT_STATUS_CODE(kInvalidArgument, ParseHttpUrl("http://x:99999/"));
  ASSERT_STATUS_CODE(kInvalidArgument, ParseHttpUrl("http://:80/"));
}

}  // namespace
}  // namespace weir::ops
