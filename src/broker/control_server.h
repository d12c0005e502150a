// ControlServer: serves a line protocol on a Unix-domain socket: each line a client sends is
// passed to a handler and its answer written back with a newline. Connections are served one at a
// time on the server's own thread, so the handler needs no locking of its own; it must not block
// for long. SendControlCommand is the matching client. Start/destroy from one thread.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "base/result.h"

namespace weir::broker {

class ControlServer {
 public:
  using Handler = std::function<std::string(std::string_view line)>;

  // Listens at `path`. A socket file left by a dead process is replaced; AlreadyExists when a
  // live server answers there; InvalidArgument when `path` is another kind of file or too long
  // for a socket address (about 107 bytes).
  static Result<std::unique_ptr<ControlServer>> Start(const std::string& path, Handler handler);
  // Stops serving, joins the thread and removes the socket file.
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  const std::string& path() const { return path_; }

 private:
  ControlServer() = default;
  void Serve();
  void ServeConnection(int fd);
  bool WaitReadable(int fd, int timeout_ms);  // false on timeout or shutdown

  std::string path_;
  Handler handler_;
  int listen_fd_ = -1;
  int wake_fds_[2] = {-1, -1};  // writing to [1] wakes the server thread for shutdown
  std::thread thread_;
};

// Sends one command line to the server at `path` and returns its answer line (without the
// newline), e.g. "ok" or "error: no broker 7; broker ids are 1..3 or all". Unavailable when no
// server listens at `path` or it does not answer within timeout_ms.
Result<std::string> SendControlCommand(const std::string& path, std::string_view command,
                                       int timeout_ms = 10000);

}  // namespace weir::broker
