// BootstrapRelay: a fixed bootstrap address for an EmbeddedBroker, whose brokers listen on
// ephemeral ports only (librdkafka 2.0.2 cannot choose them). Each TCP connection to
// 127.0.0.1:port is relayed byte for byte to the first broker that accepts it; clients then learn
// the brokers' own addresses from the metadata answer and connect to those directly, so only the
// bootstrap step goes through the relay. One thread serves all relayed connections.
#pragma once

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"

namespace weir::broker {

class BootstrapRelay {
 public:
  // Listens on 127.0.0.1:port (0 picks a free port) and relays to `targets`, tried in order
  // ("127.0.0.1:PORT"). AlreadyExists when the port is taken; InvalidArgument for a bad target.
  static Result<std::unique_ptr<BootstrapRelay>> Start(int port,
                                                       const std::vector<std::string>& targets);
  // Closes the listener and every relayed connection, and joins the thread.
  ~BootstrapRelay();
  BootstrapRelay(const BootstrapRelay&) = delete;
  BootstrapRelay& operator=(const BootstrapRelay&) = delete;

  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  struct Target {
    std::string host;
    int port = 0;
  };
  BootstrapRelay() = default;
  void Serve();
  int ConnectToABroker() const;  // -1 when none accepts

  std::vector<Target> targets_;
  int port_ = 0;
  int listen_fd_ = -1;
  int wake_fds_[2] = {-1, -1};  // writing to [1] stops the thread
  std::thread thread_;
};

}  // namespace weir::broker
