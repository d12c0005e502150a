// `weir broker`: a standalone Kafka-protocol broker (librdkafka's mock cluster) for trials and
// tests, with a control socket for fault injection; `weir broker ctl` sends it commands.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "broker/bootstrap_relay.h"
#include "broker/control_protocol.h"
#include "broker/control_server.h"
#include "broker/embedded_broker.h"
#include "cli/command.h"
#include "cli/flags.h"

namespace weir::cli {
namespace {

constexpr const char* kBrokerDescription =
    "Runs a Kafka-protocol cluster in this process (librdkafka's mock cluster) until SIGINT or\n"
    "SIGTERM, then exits 0. Prints the bootstrap list (one line) to stdout and, with\n"
    "--bootstrap-file, writes it to FILE atomically (tests wait for the file). Both it and the\n"
    "control socket are removed at exit.\n"
    "\n"
    "Limits (measured on librdkafka 2.0.2; see docs/broker.md):\n"
    "  - keeps only the newest 5 MiB of record batches per partition (measured: about 21,000\n"
    "    uncompressed `weir produce` events, 97,000 with lz4, 200,000 with zstd) and at most\n"
    "    100,000 batches; older batches are dropped silently and the log start offset moves\n"
    "    up (tests can use this to simulate retention loss). Data lives in memory only.\n"
    "  - brokers listen on 127.0.0.1 ephemeral ports only: librdkafka 2.0.2 cannot choose them.\n"
    "    --port P adds a fixed bootstrap address that relays to them; clients still connect to\n"
    "    the brokers' ephemeral ports (from metadata) after bootstrapping.\n"
    "  - ListOffsets by timestamp (offsetsForTimes) answers -1 for real timestamps; only\n"
    "    earliest/latest work.\n"
    "  - no SASL, no TLS, no CreateTopics admin API (use --topic or the control socket; unknown\n"
    "    topics are auto-created with 4 partitions when a client asks for them).\n"
    "  - a consumer group's first join takes about 3 s and every later rebalance about\n"
    "    session.timeout.ms (librdkafka's default is 45 s; use 6000 in tests).\n"
    "\n"
    "Control commands (send with `weir broker ctl --control PATH COMMAND...`):\n";

// Writes `contents` to a temporary file beside `path` and renames it into place, so a reader
// never sees a partial file.
Status WriteFileAtomically(const std::string& path, const std::string& contents) {
  std::string temp = path + ".tmp." + std::to_string(::getpid());
  FILE* file = std::fopen(temp.c_str(), "w");
  if (file == nullptr) return Status::IOError("cannot create " + temp);
  bool written = std::fwrite(contents.data(), 1, contents.size(), file) == contents.size();
  if (std::fclose(file) != 0 || !written || std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return Status::IOError("cannot write " + path);
  }
  return Status::OK();
}

int RunBroker(const Flags& flags) {
  broker::EmbeddedBrokerOptions options;
  Result<long long> brokers = flags.GetInt("brokers");
  if (!brokers.ok()) return Fail(brokers.status());
  options.brokers = static_cast<int>(*brokers);
  for (const std::string& text : flags.GetAll("topic")) {
    Result<broker::TopicSpec> spec = broker::ParseTopicSpec(text);
    if (!spec.ok()) return Fail(spec.status());
    options.topics.push_back(*spec);
  }

  // Block the stop signals in every thread (librdkafka's and the control server's inherit the
  // mask) and take them synchronously below.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  Result<std::unique_ptr<broker::EmbeddedBroker>> cluster = broker::EmbeddedBroker::Open(options);
  if (!cluster.ok()) return Fail(cluster.status());
  broker::EmbeddedBroker& embedded = **cluster;

  std::unique_ptr<broker::ControlServer> control;
  if (flags.Has("control")) {
    Result<std::unique_ptr<broker::ControlServer>> server =
        broker::ControlServer::Start(flags.Get("control"), [&embedded](std::string_view line) {
          return broker::ExecuteControlCommand(embedded, line);
        });
    if (!server.ok()) return Fail(server.status());
    control = std::move(*server);
  }

  std::unique_ptr<broker::BootstrapRelay> relay;
  std::string bootstrap = embedded.bootstrap_servers();
  if (flags.Has("port")) {
    Result<long long> port = flags.GetInt("port");
    if (!port.ok()) return Fail(port.status());
    std::vector<std::string> brokers;
    for (size_t start = 0; start <= bootstrap.size();) {
      size_t comma = bootstrap.find(',', start);
      if (comma == std::string::npos) comma = bootstrap.size();
      brokers.push_back(bootstrap.substr(start, comma - start));
      start = comma + 1;
    }
    Result<std::unique_ptr<broker::BootstrapRelay>> started =
        broker::BootstrapRelay::Start(static_cast<int>(*port), brokers);
    if (!started.ok()) return Fail(started.status());
    relay = std::move(*started);
    bootstrap = relay->address();
  }

  const std::string bootstrap_file = flags.Get("bootstrap-file");
  if (!bootstrap_file.empty()) {
    Status st = WriteFileAtomically(bootstrap_file, bootstrap + "\n");
    if (!st.ok()) return Fail(st);
  }
  std::printf("%s\n", bootstrap.c_str());
  std::fflush(stdout);
  std::fprintf(stderr, "weir broker: %d brokers at %s%s%s%s%s; stop with Ctrl-C or SIGTERM\n",
               embedded.broker_count(), embedded.bootstrap_servers().c_str(),
               relay ? ", bootstrap relay " : "", relay ? bootstrap.c_str() : "",
               control ? ", control socket " : "", control ? control->path().c_str() : "");

  int signal_number = 0;
  while (sigwait(&stop_signals, &signal_number) != 0) {
  }
  if (!bootstrap_file.empty()) ::unlink(bootstrap_file.c_str());
  relay.reset();
  control.reset();
  cluster->reset();
  return 0;
}

int RunCtl(const Flags& flags) {
  if (!flags.Has("control")) {
    std::fprintf(stderr, "weir: broker ctl needs --control PATH\n(see --help)\n");
    return 2;
  }
  std::string command;
  for (const std::string& word : flags.positional()) command += (command.empty() ? "" : " ") + word;
  Result<long long> timeout = flags.GetInt("timeout-ms");
  if (!timeout.ok()) return Fail(timeout.status());
  Result<std::string> answer =
      broker::SendControlCommand(flags.Get("control"), command, static_cast<int>(*timeout));
  if (!answer.ok()) return Fail(answer.status());
  if (answer->rfind("ok", 0) == 0) {
    std::printf("%s\n", answer->c_str());
    return 0;
  }
  std::fprintf(stderr, "weir broker ctl: %s\n", answer->c_str());
  return 2;
}

int BrokerMain(const std::vector<std::string>& args) {
  Flags flags(
      "weir broker [--topic NAME:PARTITIONS ...] [--brokers N] [--port P] "
      "[--bootstrap-file FILE] [--control PATH]",
      kBrokerDescription + broker::ControlHelp());
  flags.Repeated("topic", "NAME:PARTITIONS", "create this topic at start");
  flags.Value("brokers", "N", "number of brokers (ids 1..N)", "3");
  flags.Value("port", "P",
              "fixed bootstrap address 127.0.0.1:P relayed to the brokers; printed and written "
              "instead of the brokers' own list");
  flags.Value("bootstrap-file", "FILE", "write the bootstrap list here (temp file + rename)");
  flags.Value("control", "PATH", "serve control commands on this Unix-domain socket");
  return RunWithFlags(flags, args, RunBroker);
}

int CtlMain(const std::vector<std::string>& args) {
  Flags flags(
      "weir broker ctl --control PATH COMMAND [ARGS...]",
      "Sends one control command to a running `weir broker --control PATH` and prints its\n"
      "answer. Exits 0 on \"ok\", 2 on \"error: ...\" or when the broker cannot be reached.\n"
      "Example: weir broker ctl --control /tmp/b.sock request-errors Fetch "
      "NOT_LEADER_FOR_PARTITION\n\nCommands:\n" +
          broker::ControlHelp());
  flags.Value("control", "PATH", "the broker's control socket");
  flags.Value("timeout-ms", "MS", "how long to wait for the answer", "10000");
  flags.Positional("COMMAND [ARGS...]", 1, -1);
  return RunWithFlags(flags, args, RunCtl);
}

}  // namespace

WEIR_REGISTER_COMMAND(broker_command, "broker",
                      "embedded Kafka-protocol broker for trials and tests", BrokerMain);
WEIR_REGISTER_COMMAND(broker_ctl_command, "broker ctl",
                      "send a fault-injection command to a running broker", CtlMain);

}  // namespace weir::cli
