#include "broker/control_server.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/testing.h"

namespace weir::broker {
namespace {

class ControlServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/weir-ctl-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    path_ = dir_ + "/control.sock";
  }
  void TearDown() override {
    ::unlink(path_.c_str());
    ::unlink((dir_ + "/file").c_str());
    ::rmdir(dir_.c_str());
  }
  static ControlServer::Handler Echo() {
    return [](std::string_view line) { return "ok " + std::string(line); };
  }
  static bool Exists(const std::string& path) {
    struct stat st;
    return ::lstat(path.c_str(), &st) == 0;
  }
  std::string dir_;
  std::string path_;
};

TEST_F(ControlServerTest, AnswersEachCommandThroughTheHandler) {
  std::atomic<int> calls{0};
  ASSERT_OK_AND_ASSIGN(auto server, ControlServer::Start(path_, [&](std::string_view line) {
                         ++calls;
                         return line == "ping" ? std::string("ok")
                                               : "error: no " + std::string(line);
                       }));
  EXPECT_TRUE(Exists(path_));
  ASSERT_OK_AND_ASSIGN(std::string answer, SendControlCommand(path_, "ping"));
  EXPECT_EQ(answer, "ok");
  ASSERT_OK_AND_ASSIGN(answer, SendControlCommand(path_, "jump"));
  EXPECT_EQ(answer, "error: no jump");
  EXPECT_EQ(calls.load(), 2);
}

TEST_F(ControlServerTest, RemovesItsSocketWhenDestroyed) {
  { ASSERT_OK_AND_ASSIGN(auto server, ControlServer::Start(path_, Echo())); }
  EXPECT_FALSE(Exists(path_));
  ASSERT_STATUS_CODE(kUnavailable, SendControlCommand(path_, "ping"));
}

TEST_F(ControlServerTest, RefusesAPathALiveServerUses) {
  ASSERT_OK_AND_ASSIGN(auto server, ControlServer::Start(path_, Echo()));
  ASSERT_STATUS_CODE(kAlreadyExists, ControlServer::Start(path_, Echo()));
  ASSERT_OK_AND_ASSIGN(std::string answer, SendControlCommand(path_, "still here"));
  EXPECT_EQ(answer, "ok still here");
}

TEST_F(ControlServerTest, ReplacesASocketLeftByADeadProcess) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path_.data(), path_.size());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ::close(fd);  // bound but never listening: connecting to it is refused, like a dead server's
  ASSERT_OK_AND_ASSIGN(auto server, ControlServer::Start(path_, Echo()));
  ASSERT_OK_AND_ASSIGN(std::string answer, SendControlCommand(path_, "x"));
  EXPECT_EQ(answer, "ok x");
}

TEST_F(ControlServerTest, RefusesPathsThatAreNotSockets) {
  std::string file = dir_ + "/file";
  std::FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  ASSERT_STATUS_CODE(kInvalidArgument, ControlServer::Start(file, Echo()));
  EXPECT_TRUE(Exists(file));  // left alone
  ASSERT_STATUS_CODE(kInvalidArgument,
                     ControlServer::Start(dir_ + "/" + std::string(200, 'a'), Echo()));
}

TEST_F(ControlServerTest, ServesSeveralCommandsOnOneConnection) {
  ASSERT_OK_AND_ASSIGN(auto server, ControlServer::Start(path_, Echo()));
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path_.data(), path_.size());
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  std::string request = "a\nb\n";
  ASSERT_EQ(::write(fd, request.data(), request.size()), static_cast<ssize_t>(request.size()));
  ::shutdown(fd, SHUT_WR);
  std::string answers;
  char buf[256];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof(buf))) > 0) answers.append(buf, n);
  ::close(fd);
  EXPECT_EQ(answers, "ok a\nok b\n");
}

}  // namespace
}  // namespace weir::broker
