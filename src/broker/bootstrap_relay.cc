#include "broker/bootstrap_relay.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace weir::broker {
namespace {

constexpr size_t kMaxConnections = 256;

sockaddr_in LoopbackAddress(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

// Copies what is readable on `from` to `to`; false when either side is closed or failed.
bool Pump(int from, int to) {
  char buf[64 * 1024];
  ssize_t n = ::recv(from, buf, sizeof(buf), 0);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) return false;
  const char* data = buf;
  while (n > 0) {
    ssize_t sent = ::send(to, data, static_cast<size_t>(n), MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;  // includes the send timeout of a peer that stopped reading
    data += sent;
    n -= sent;
  }
  return true;
}

}  // namespace

Result<std::unique_ptr<BootstrapRelay>> BootstrapRelay::Start(
    int port, const std::vector<std::string>& targets) {
  if (port < 0 || port > 65535) {
    return Status::InvalidArgument("port must be 0-65535, got " + std::to_string(port));
  }
  std::unique_ptr<BootstrapRelay> relay(new BootstrapRelay());
  for (const std::string& target : targets) {
    size_t colon = target.rfind(':');
    Target t;
    t.host = target.substr(0, colon);
    const char* digits = target.data() + colon + 1;
    auto [end, ec] = std::from_chars(digits, target.data() + target.size(), t.port);
    if (colon == std::string::npos || ec != std::errc() || end != target.data() + target.size() ||
        t.host != "127.0.0.1") {
      return Status::InvalidArgument("relay target must be 127.0.0.1:PORT, got '" + target + "'");
    }
    relay->targets_.push_back(t);
  }
  if (relay->targets_.empty()) return Status::InvalidArgument("relay needs at least one target");

  if (::pipe2(relay->wake_fds_, O_CLOEXEC) != 0) {
    return Status::IOError(std::string("cannot create the relay's wake-up pipe: ") +
                           std::strerror(errno));
  }
  relay->listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (relay->listen_fd_ < 0) {
    return Status::IOError(std::string("cannot create a socket: ") + std::strerror(errno));
  }
  int on = 1;
  ::setsockopt(relay->listen_fd_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
  sockaddr_in address = LoopbackAddress(port);
  if (::bind(relay->listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    if (errno == EADDRINUSE) {
      return Status::AlreadyExists("port " + std::to_string(port) +
                                   " on 127.0.0.1 is in use; choose another --port");
    }
    return Status::IOError("cannot bind 127.0.0.1:" + std::to_string(port) + ": " +
                           std::strerror(errno));
  }
  socklen_t length = sizeof(address);
  if (::listen(relay->listen_fd_, 64) != 0 ||
      ::getsockname(relay->listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    return Status::IOError("cannot listen on 127.0.0.1:" + std::to_string(port) + ": " +
                           std::strerror(errno));
  }
  relay->port_ = ntohs(address.sin_port);
  relay->thread_ = std::thread([r = relay.get()] { r->Serve(); });
  return relay;
}

BootstrapRelay::~BootstrapRelay() {
  if (thread_.joinable()) {
    char byte = 0;
    while (::write(wake_fds_[1], &byte, 1) < 0 && errno == EINTR) {
    }
    thread_.join();
  }
  for (int fd : {listen_fd_, wake_fds_[0], wake_fds_[1]}) {
    if (fd >= 0) ::close(fd);
  }
}

int BootstrapRelay::ConnectToABroker() const {
  for (const Target& target : targets_) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    sockaddr_in address = LoopbackAddress(target.port);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) return fd;
    ::close(fd);  // that broker is down (or gone); try the next
  }
  return -1;
}

void BootstrapRelay::Serve() {
  struct Pair {
    int client;
    int broker;
  };
  std::vector<Pair> pairs;
  std::vector<pollfd> fds;
  while (true) {
    fds.clear();
    fds.push_back({wake_fds_[0], POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    for (const Pair& p : pairs) {
      fds.push_back({p.client, POLLIN, 0});
      fds.push_back({p.broker, POLLIN, 0});
    }
    int n = ::poll(fds.data(), fds.size(), -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || fds[0].revents != 0) break;

    // Relay first (indexes in `fds` match `pairs` only before any change to `pairs`).
    std::vector<Pair> open;
    for (size_t i = 0; i < pairs.size(); ++i) {
      const pollfd& client = fds[2 + 2 * i];
      const pollfd& broker = fds[3 + 2 * i];
      bool alive = true;
      if (client.revents != 0) alive = Pump(pairs[i].client, pairs[i].broker);
      if (alive && broker.revents != 0) alive = Pump(pairs[i].broker, pairs[i].client);
      if (alive) {
        open.push_back(pairs[i]);
      } else {
        ::close(pairs[i].client);
        ::close(pairs[i].broker);
      }
    }
    pairs.swap(open);

    if (fds[1].revents != 0) {
      int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      int broker = pairs.size() < kMaxConnections ? ConnectToABroker() : -1;
      if (broker < 0) {
        ::close(client);  // like a broker that is down: the client sees the connection drop
        continue;
      }
      timeval send_timeout{5, 0};
      int on = 1;
      for (int fd : {client, broker}) {
        ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout));
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
      }
      pairs.push_back({client, broker});
    }
  }
  for (const Pair& p : pairs) {
    ::close(p.client);
    ::close(p.broker);
  }
}

}  // namespace weir::broker
