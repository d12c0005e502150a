#include "ops/http_client.h"

#include <netdb.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace weir::ops {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Closes a socket when it goes out of scope.
struct SocketCloser {
  int fd;
  ~SocketCloser() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

Result<HttpUrl> ParseHttpUrl(const std::string& url) {
  std::string rest = url;
  if (rest.rfind("https://", 0) == 0) {
    return Status::InvalidArgument("https is not supported for " + url +
                                   " (the metrics endpoint serves plain http)");
  }
  if (rest.rfind("http://", 0) == 0) rest = rest.substr(7);
  HttpUrl out;
  size_t slash = rest.find('/');
  if (slash != std::string::npos) {
    out.path = rest.substr(slash);
    rest = rest.substr(0, slash);
  }
  std::string port;
  if (!rest.empty() && rest[0] == '[') {
    size_t close = rest.find(']');
    if (close == std::string::npos) return Status::InvalidArgument("bad IPv6 address in " + url);
    out.host = rest.substr(1, close - 1);
    if (close + 1 < rest.size()) {
      if (rest[close + 1] != ':') return Status::InvalidArgument("bad address in " + url);
      port = rest.substr(close + 2);
    }
  } else {
    size_t colon = rest.rfind(':');
    out.host = rest.substr(0, colon);
    if (colon != std::string::npos) port = rest.substr(colon + 1);
  }
  if (out.host.empty()) return Status::InvalidArgument("no host in URL " + url);
  if (!port.empty()) {
    char* end = nullptr;
    long p = std::strtol(port.c_str(), &end, 10);
    if (*end != '\0' || p <= 0 || p > 65535) {
      return Status::InvalidArgument("bad port in URL " + url);
    }
    out.port = static_cast<int>(p);
  }
  return out;
}

Result<HttpResponse> HttpGet(const HttpUrl& url, const std::string& path, int timeout_ms,
                             size_t max_response_bytes) {
  const std::string target = path.empty() ? url.path : path;
  const std::string where = url.host + ":" + std::to_string(url.port) + target;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* result = nullptr;
  if (getaddrinfo(url.host.c_str(), std::to_string(url.port).c_str(), &hints, &result) != 0 ||
      result == nullptr) {
    return Status::Unavailable("cannot resolve " + url.host + " (for " + where + ")");
  }
  SocketCloser sock{socket(result->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)};
  int rc = sock.fd < 0 ? -1 : connect(sock.fd, result->ai_addr, result->ai_addrlen);
  freeaddrinfo(result);
  if (rc != 0 && errno != EINPROGRESS) {
    return Status::Unavailable("cannot connect to " + where + ": " + std::strerror(errno) +
                               " (is `weir run --metrics-port` running?)");
  }
  const int64_t deadline = NowMs() + timeout_ms;
  auto wait = [&](short events) -> Status {
    while (true) {
      int64_t left = deadline - NowMs();
      if (left <= 0) return Status::Unavailable("no answer from " + where + " in time");
      pollfd p{sock.fd, events, 0};
      int n = poll(&p, 1, static_cast<int>(left));
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) return Status::OK();
      if (n < 0) return Status::Unavailable("poll failed for " + where);
    }
  };
  WEIR_RETURN_NOT_OK(wait(POLLOUT));
  int err = 0;
  socklen_t len = sizeof(err);
  getsockopt(sock.fd, SOL_SOCKET, SO_ERROR, &err, &len);
  if (err != 0) {
    return Status::Unavailable("cannot connect to " + where + ": " + std::strerror(err) +
                               " (is `weir run --metrics-port` running?)");
  }
  std::string request = "GET " + target + " HTTP/1.1\r\nHost: " + url.host +
                        "\r\nConnection: close\r\nAccept: */*\r\n\r\n";
  size_t sent = 0;
  while (sent < request.size()) {
    WEIR_RETURN_NOT_OK(wait(POLLOUT));
    ssize_t n = send(sock.fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      return Status::Unavailable("cannot send to " + where + ": " + std::strerror(errno));
    }
    if (n > 0) sent += static_cast<size_t>(n);
  }
  std::string raw;
  char buf[16384];
  while (true) {
    WEIR_RETURN_NOT_OK(wait(POLLIN));
    ssize_t n = read(sock.fd, buf, sizeof(buf));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return Status::Unavailable("cannot read from " + where + ": " + std::strerror(errno));
    }
    raw.append(buf, static_cast<size_t>(n));
    if (raw.size() > max_response_bytes) {
      return Status::Corruption("response from " + where + " is larger than " +
                                std::to_string(max_response_bytes) + " bytes");
    }
  }
  size_t head_end = raw.find("\r\n\r\n");
  if (raw.rfind("HTTP/1.", 0) != 0 || head_end == std::string::npos || raw.size() < 12) {
    return Status::Corruption("not an HTTP response from " + where);
  }
  HttpResponse response;
  response.status = std::atoi(raw.c_str() + 9);
  std::string head = raw.substr(0, head_end);
  for (size_t pos = head.find("\r\n"); pos != std::string::npos;) {
    size_t next = head.find("\r\n", pos + 2);
    std::string line = head.substr(pos + 2, next == std::string::npos ? next : next - pos - 2);
    size_t colon = line.find(':');
    if (colon != std::string::npos && strncasecmp(line.c_str(), "content-type", colon) == 0 &&
        colon == 12) {
      size_t v = line.find_first_not_of(' ', colon + 1);
      response.content_type = v == std::string::npos ? "" : line.substr(v);
    }
    pos = next;
  }
  response.body = raw.substr(head_end + 4);
  return response;
}

}  // namespace weir::ops
