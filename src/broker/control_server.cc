#include "broker/control_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace weir::broker {
namespace {

constexpr size_t kMaxLine = 64 * 1024;
constexpr int kIdleConnectionMs = 10000;  // a silent client is dropped so others get a turn

Result<sockaddr_un> SocketAddress(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address.sun_path)) {
    return Status::InvalidArgument("control socket path must be 1-" +
                                   std::to_string(sizeof(address.sun_path) - 1) +
                                   " bytes; choose a shorter path than " + path);
  }
  std::memcpy(address.sun_path, path.data(), path.size());
  return address;
}

std::string ErrnoText() { return std::strerror(errno); }

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Connects to `path`; -1 with errno set on failure.
int Connect(const sockaddr_un& address) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    int saved = errno;
    ::close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

}  // namespace

Result<std::unique_ptr<ControlServer>> ControlServer::Start(const std::string& path,
                                                            Handler handler) {
  WEIR_ASSIGN_OR_RETURN(sockaddr_un address, SocketAddress(path));
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      return Status::InvalidArgument("control path " + path +
                                     " exists and is not a socket; choose another path");
    }
    int probe = Connect(address);
    if (probe >= 0) {
      ::close(probe);
      return Status::AlreadyExists("another broker serves the control socket " + path +
                                   "; stop it or choose another path");
    }
    ::unlink(path.c_str());  // left behind by a process that died
  }

  std::unique_ptr<ControlServer> server(new ControlServer());
  server->path_ = path;
  server->handler_ = std::move(handler);
  if (::pipe2(server->wake_fds_, O_CLOEXEC) != 0) {
    return Status::IOError("cannot create the control server's wake-up pipe: " + ErrnoText());
  }
  server->listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (server->listen_fd_ < 0) {
    return Status::IOError("cannot create control socket " + path + ": " + ErrnoText());
  }
  if (::bind(server->listen_fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) !=
          0 ||
      ::listen(server->listen_fd_, 16) != 0) {
    Status st = Status::IOError("cannot listen on control socket " + path + ": " + ErrnoText());
    server->path_.clear();  // not ours to unlink
    return st;
  }
  server->thread_ = std::thread([s = server.get()] { s->Serve(); });
  return server;
}

ControlServer::~ControlServer() {
  if (thread_.joinable()) {
    char byte = 0;
    while (::write(wake_fds_[1], &byte, 1) < 0 && errno == EINTR) {
    }
    thread_.join();
  }
  if (listen_fd_ >= 0) {
    ::close(listen_fd_);
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  for (int fd : wake_fds_) {
    if (fd >= 0) ::close(fd);
  }
}

bool ControlServer::WaitReadable(int fd, int timeout_ms) {
  pollfd fds[2] = {{fd, POLLIN, 0}, {wake_fds_[0], POLLIN, 0}};
  while (true) {
    int n = ::poll(fds, 2, timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if (fds[1].revents != 0) return false;  // shutting down
    return true;
  }
}

void ControlServer::Serve() {
  while (WaitReadable(listen_fd_, -1)) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    ServeConnection(fd);
    ::close(fd);
  }
}

void ControlServer::ServeConnection(int fd) {
  std::string pending;
  char buf[4096];
  while (WaitReadable(fd, kIdleConnectionMs)) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    pending.append(buf, static_cast<size_t>(n));
    size_t newline;
    while ((newline = pending.find('\n')) != std::string::npos) {
      std::string answer = handler_(std::string_view(pending).substr(0, newline));
      pending.erase(0, newline + 1);
      if (!WriteAll(fd, answer + "\n")) return;
    }
    if (pending.size() > kMaxLine) {
      WriteAll(fd, "error: command longer than 64 KiB\n");
      return;
    }
  }
}

Result<std::string> SendControlCommand(const std::string& path, std::string_view command,
                                       int timeout_ms) {
  WEIR_ASSIGN_OR_RETURN(sockaddr_un address, SocketAddress(path));
  int fd = Connect(address);
  if (fd < 0) {
    return Status::Unavailable("cannot reach the broker's control socket " + path + ": " +
                               ErrnoText() + "; is `weir broker --control " + path + "` running?");
  }
  std::string line(command);
  line.push_back('\n');
  std::string answer;
  bool sent = WriteAll(fd, line);
  char buf[4096];
  while (sent && answer.find('\n') == std::string::npos) {
    pollfd pfd{fd, POLLIN, 0};
    int n = ::poll(&pfd, 1, timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    ssize_t got = ::recv(fd, buf, sizeof(buf), 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    answer.append(buf, static_cast<size_t>(got));
  }
  ::close(fd);
  size_t newline = answer.find('\n');
  if (newline == std::string::npos) {
    return Status::Unavailable("the broker at control socket " + path + " did not answer within " +
                               std::to_string(timeout_ms) + " ms");
  }
  answer.resize(newline);
  return answer;
}

}  // namespace weir::broker
