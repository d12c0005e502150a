#include "ops/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace weir::ops {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void SetNonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK); }

std::string RenderResponse(const HttpResponse& response, bool head_only) {
  std::string out = "HTTP/1.1 " + std::to_string(response.status) + " " +
                    HttpReasonPhrase(response.status) + "\r\n";
  out += "Content-Type: " + response.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  out += "Cache-Control: no-store\r\n";
  out += "X-Content-Type-Options: nosniff\r\n";
  out += "Connection: close\r\n\r\n";
  if (!head_only) out += response.body;
  return out;
}

HttpResponse ErrorResponse(int status) {
  HttpResponse r;
  r.status = status;
  r.body = std::string(HttpReasonPhrase(status)) + "\n";
  return r;
}

}  // namespace

const char* HttpReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "";
  }
}

Result<HttpRequest> ParseRequestHead(std::string_view head, int* error_status) {
  *error_status = 400;
  size_t line_end = head.find("\r\n");
  if (line_end == std::string_view::npos) return Status::InvalidArgument("no request line");
  std::string_view line = head.substr(0, line_end);
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos ||
      line.find(' ', sp2 + 1) != std::string_view::npos) {
    return Status::InvalidArgument("malformed request line");
  }
  HttpRequest request;
  request.method = std::string(line.substr(0, sp1));
  std::string target(line.substr(sp1 + 1, sp2 - sp1 - 1));
  std::string_view version = line.substr(sp2 + 1);
  if (version.substr(0, 7) != "HTTP/1.") {
    *error_status = 505;
    return Status::InvalidArgument("unsupported HTTP version");
  }
  if (target.empty() || target[0] != '/') return Status::InvalidArgument("bad request target");
  for (char c : target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return Status::InvalidArgument("bad character in request target");
    }
  }
  if (request.method != "GET" && request.method != "HEAD") {
    *error_status = 405;
    return Status::InvalidArgument("only GET and HEAD are served");
  }
  size_t q = target.find('?');
  request.path = target.substr(0, q);
  if (q != std::string::npos) request.query = target.substr(q + 1);
  *error_status = 0;
  return request;
}

class HttpServer::Impl {
 public:
  Impl(HttpServerOptions options, HttpHandler handler)
      : options_(std::move(options)), handler_(std::move(handler)) {}
  ~Impl() { Stop(); }

  Status Listen() {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
    addrinfo* result = nullptr;
    std::string port = std::to_string(options_.port);
    if (getaddrinfo(options_.bind_address.c_str(), port.c_str(), &hints, &result) != 0 ||
        result == nullptr) {
      return Status::InvalidArgument("not a numeric IP address to bind the metrics endpoint to: '" +
                                     options_.bind_address + "' (use e.g. 127.0.0.1 or ::1)");
    }
    listen_fd_ = socket(result->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (listen_fd_ >= 0) setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    bool ok = listen_fd_ >= 0 && bind(listen_fd_, result->ai_addr, result->ai_addrlen) == 0 &&
              listen(listen_fd_, 64) == 0;
    int err = errno;
    freeaddrinfo(result);
    if (!ok) {
      return Status::IOError("cannot listen on " + options_.bind_address + ":" + port + ": " +
                             std::strerror(err) + " (choose another --metrics-port)");
    }
    SetNonBlocking(listen_fd_);
    sockaddr_storage bound{};
    socklen_t len = sizeof(bound);
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len);
    port_ = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                        : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
      return Status::IOError(std::string("cannot create the metrics endpoint's wake pipe: ") +
                             std::strerror(errno));
    }
    thread_ = std::thread([this] { Serve(); });
    return Status::OK();
  }

  int port() const { return port_; }

  void Stop() {
    if (stopping_.exchange(true)) {
      if (thread_.joinable()) thread_.join();
      return;
    }
    if (wake_[1] >= 0) {
      char c = 1;
      (void)!write(wake_[1], &c, 1);
    }
    if (thread_.joinable()) thread_.join();
    for (Connection& c : connections_) close(c.fd);
    connections_.clear();
    for (int* fd : {&listen_fd_, &wake_[0], &wake_[1]}) {
      if (*fd >= 0) close(*fd);
      *fd = -1;
    }
  }

 private:
  struct Connection {
    int fd = -1;
    std::string in;
    std::string out;
    size_t written = 0;
    bool responding = false;
    int64_t deadline_ms = 0;
  };

  void Serve() {
    std::vector<pollfd> fds;
    while (!stopping_.load()) {
      fds.clear();
      fds.push_back({wake_[0], POLLIN, 0});
      bool accepting = connections_.size() < options_.max_connections;
      fds.push_back({listen_fd_, static_cast<short>(accepting ? POLLIN : 0), 0});
      for (const Connection& c : connections_) {
        fds.push_back({c.fd, static_cast<short>(c.responding ? POLLOUT : POLLIN), 0});
      }
      int ready = poll(fds.data(), fds.size(), 250);
      if (ready < 0 && errno != EINTR) break;
      if (stopping_.load()) break;
      if (ready > 0 && (fds[1].revents & POLLIN)) Accept();
      int64_t now = NowMs();
      // Connections accepted above are not in `fds`; only the first `polled` are checked.
      size_t polled = fds.size() - 2;
      std::vector<Connection> kept;
      kept.reserve(connections_.size());
      for (size_t i = 0; i < connections_.size(); ++i) {
        Connection& c = connections_[i];
        bool keep = true;
        if (i < polled && fds[i + 2].revents != 0) keep = Progress(c, fds[i + 2].revents);
        if (keep && now > c.deadline_ms) keep = false;  // too slow: drop without an answer
        if (keep) {
          kept.push_back(std::move(c));
        } else {
          close(c.fd);
        }
      }
      connections_ = std::move(kept);
    }
  }

  void Accept() {
    while (connections_.size() < options_.max_connections) {
      int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;
      Connection c;
      c.fd = fd;
      c.deadline_ms = NowMs() + options_.request_timeout_ms;
      connections_.push_back(std::move(c));
    }
  }

  // Reads or writes what the socket allows; false when the connection is finished.
  bool Progress(Connection& c, short revents) {
    if (!c.responding) {
      if (revents & (POLLERR | POLLNVAL)) return false;
      char buf[4096];
      ssize_t n = read(c.fd, buf, sizeof(buf));
      if (n == 0) return false;
      if (n < 0) return errno == EAGAIN || errno == EINTR;
      c.in.append(buf, static_cast<size_t>(n));
      size_t end = c.in.find("\r\n\r\n");
      if (end == std::string::npos) {
        if (c.in.size() > options_.max_request_bytes) Respond(c, ErrorResponse(431), false);
        return true;
      }
      if (end + 4 > options_.max_request_bytes) {
        Respond(c, ErrorResponse(431), false);
        return true;
      }
      int error_status = 0;
      auto request = ParseRequestHead(std::string_view(c.in).substr(0, end + 4), &error_status);
      if (!request.ok()) {
        Respond(c, ErrorResponse(error_status), false);
        return true;
      }
      HttpResponse response;
      try {
        response = handler_(*request);
      } catch (...) {
        response = ErrorResponse(500);
      }
      Respond(c, response, request->method == "HEAD");
      return true;
    }
    if (revents & (POLLERR | POLLHUP | POLLNVAL)) return false;
    ssize_t n = send(c.fd, c.out.data() + c.written, c.out.size() - c.written, MSG_NOSIGNAL);
    if (n < 0) return errno == EAGAIN || errno == EINTR;
    c.written += static_cast<size_t>(n);
    if (c.written < c.out.size()) return true;
    shutdown(c.fd, SHUT_WR);
    return false;
  }

  void Respond(Connection& c, const HttpResponse& response, bool head_only) {
    c.out = RenderResponse(response, head_only);
    c.responding = true;
    c.deadline_ms = NowMs() + options_.request_timeout_ms;
  }

  HttpServerOptions options_;
  HttpHandler handler_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  std::vector<Connection> connections_;  // the serving thread's only
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() { Stop(); }

Result<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options,
                                                      HttpHandler handler) {
  auto impl = std::make_unique<Impl>(options, std::move(handler));
  WEIR_RETURN_NOT_OK(impl->Listen());
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

int HttpServer::port() const { return impl_->port(); }

void HttpServer::Stop() { impl_->Stop(); }

}  // namespace weir::ops
