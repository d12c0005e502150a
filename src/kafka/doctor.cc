#include "kafka/doctor.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "kafka/consumer.h"

namespace weir::kafka {

namespace {

struct HostPort {
  std::string host;
  std::string port;
};

std::vector<HostPort> SplitServers(const std::string& servers) {
  std::vector<HostPort> out;
  size_t start = 0;
  while (start <= servers.size()) {
    size_t end = servers.find(',', start);
    if (end == std::string::npos) end = servers.size();
    std::string item = servers.substr(start, end - start);
    start = end + 1;
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) continue;
    if (auto p = item.find("://"); p != std::string::npos) item = item.substr(p + 3);
    HostPort hp;
    if (!item.empty() && item[0] == '[') {
      auto close = item.find(']');
      hp.host = item.substr(1, close - 1);
      hp.port = close + 1 < item.size() && item[close + 1] == ':' ? item.substr(close + 2) : "9092";
    } else {
      auto colon = item.rfind(':');
      hp.host = colon == std::string::npos ? item : item.substr(0, colon);
      hp.port = colon == std::string::npos ? "9092" : item.substr(colon + 1);
    }
    out.push_back(hp);
  }
  return out;
}

bool Contains(const std::string& haystack, const char* needle) {
  std::string h = haystack, n = needle;
  std::transform(h.begin(), h.end(), h.begin(), ::tolower);
  std::transform(n.begin(), n.end(), n.begin(), ::tolower);
  return h.find(n) != std::string::npos;
}

// Non-blocking connect with a deadline. Returns "" on success, else the reason.
std::string TryConnect(const addrinfo* ai, int timeout_ms) {
  int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
  if (fd < 0) return std::strerror(errno);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  std::string error;
  if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
    if (errno != EINPROGRESS) {
      error = std::strerror(errno);
    } else {
      pollfd p{fd, POLLOUT, 0};
      int r = poll(&p, 1, timeout_ms);
      if (r == 0) {
        error = "no answer within " + std::to_string(timeout_ms) + " ms";
      } else if (r < 0) {
        error = std::strerror(errno);
      } else {
        int so_error = 0;
        socklen_t len = sizeof(so_error);
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
        if (so_error != 0) error = std::strerror(so_error);
      }
    }
  }
  close(fd);
  return error;
}

std::string AddressText(const addrinfo* ai) {
  char buf[INET6_ADDRSTRLEN] = {0};
  const void* addr = ai->ai_family == AF_INET
                         ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(ai->ai_addr)->sin_addr)
                         : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(ai->ai_addr)->sin6_addr);
  inet_ntop(ai->ai_family, addr, buf, sizeof(buf));
  return buf;
}

std::string MetadataHint(const KafkaSourceOptions& options, const std::string& evidence) {
  const std::string protocol = options.ClientConfig("security.protocol").value_or("plaintext");
  if (Contains(evidence, "token endpoint")) {
    return "no Entra ID token: the token endpoint (login.microsoftonline.com, or the managed "
           "identity endpoint) is unreachable or refused the credentials; check outbound HTTPS, "
           "eventhubs.credential and its settings (tenantId, clientId, clientSecret, the "
           "federated token file, or the identity assigned to this machine)";
  }
  if (Contains(evidence, "ssl_handshake") || Contains(evidence, "ssl handshake") ||
      Contains(evidence, "certificate")) {
    return "the TLS handshake failed: the broker does not speak TLS on this port, or its "
           "certificate is not trusted. Event Hubs needs kafka.security.protocol=SASL_SSL on port "
           "9093; for other brokers check the port and kafka.ssl.ca.location";
  }
  if (Contains(evidence, "authentication") || Contains(evidence, "authenticate")) {
    if (options.oauth) {
      return "authentication failed: the Entra ID token was refused or could not be obtained. "
             "Check eventhubs.credential and its settings (tenantId / clientId / clientSecret, "
             "the managed or workload identity) and that the identity has the 'Azure Event Hubs "
             "Data Receiver' role on the namespace or event hub";
    }
    return "authentication failed: check the connection string or SAS key (the shared access "
           "policy needs Listen), that the SASL username is $ConnectionString for Event Hubs, and "
           "that you have not mixed eventhubs.connectionString with kafka.sasl.* options";
  }
  if (options.event_hubs && !Contains(protocol, "ssl")) {
    return "Event Hubs accepts only TLS: set kafka.security.protocol=SASL_SSL with "
           "kafka.sasl.mechanism=PLAIN (or use eventhubs.connectionString)";
  }
  if (Contains(evidence, "disconnected") || Contains(evidence, "apiversion")) {
    return "the broker closed the connection during the handshake: usually a security.protocol "
           "mismatch (PLAINTEXT client on a TLS/SASL port or the other way round)";
  }
  return "usually a wrong server name or authentication setting (Spark reports this as 'Failed to "
         "create a new KafkaAdminClient'). Check the bootstrap server (<namespace>."
         "servicebus.windows.net:9093 for Event Hubs) and that SASL options are not mixed";
}

}  // namespace

bool CheckReport::ok() const {
  return !steps.empty() && std::all_of(steps.begin(), steps.end(),
                                       [](const CheckStep& s) { return s.ok; });
}

CheckReport RunConnectionCheck(const KafkaSourceOptions& options, int timeout_ms) {
  CheckReport report;
  const Redactor& redactor = options.redactor;
  auto add = [&](CheckStep step) {
    step.detail = redactor.Scrub(step.detail);
    step.hint = redactor.Scrub(step.hint);
    report.steps.push_back(std::move(step));
    return report.steps.back().ok;
  };

  // 1. DNS.
  std::vector<HostPort> servers = SplitServers(options.BootstrapServers());
  std::vector<std::pair<HostPort, addrinfo*>> resolved;
  {
    CheckStep step{"resolve", false, "", ""};
    std::string failures;
    for (const auto& hp : servers) {
      addrinfo hints{};
      hints.ai_socktype = SOCK_STREAM;
      addrinfo* result = nullptr;
      int rc = getaddrinfo(hp.host.c_str(), hp.port.c_str(), &hints, &result);
      if (rc != 0) {
        failures += (failures.empty() ? "" : "; ") + hp.host + ": " + gai_strerror(rc);
        continue;
      }
      step.detail += (step.detail.empty() ? "" : ", ") + hp.host + " -> " + AddressText(result);
      resolved.emplace_back(hp, result);
    }
    step.ok = !resolved.empty();
    if (!step.ok) {
      step.detail = "cannot resolve " + options.BootstrapServers() + " (" + failures + ")";
      step.hint = options.event_hubs || Contains(options.BootstrapServers(), "servicebus")
                      ? "check the namespace name: the Kafka endpoint is "
                        "<namespace>.servicebus.windows.net:9093"
                      : "check kafka.bootstrap.servers (host:port, comma separated) and DNS";
    }
    if (!add(step)) return report;
  }

  // 2. TCP.
  {
    CheckStep step{"connect", false, "", ""};
    std::string failures;
    for (auto& [hp, ai] : resolved) {
      std::string error = TryConnect(ai, std::min(timeout_ms, 5000));
      if (error.empty()) {
        step.detail += (step.detail.empty() ? "" : ", ") + hp.host + ":" + hp.port + " accepts TCP";
        step.ok = true;
      } else {
        failures += (failures.empty() ? "" : "; ") + hp.host + ":" + hp.port + ": " + error;
      }
      freeaddrinfo(ai);
    }
    resolved.clear();
    if (!step.ok) {
      step.detail = "cannot open a TCP connection (" + failures + ")";
      step.hint = options.event_hubs
                      ? "port 9093 is blocked by a firewall / network security group, or the "
                        "namespace is on the Basic tier, which has no Kafka endpoint"
                      : "the broker is down, the port is wrong, or a firewall blocks it";
    } else if (!failures.empty()) {
      step.detail += " (unreachable: " + failures + ")";
    }
    if (!add(step)) return report;
  }

  // 3. Metadata: TLS, SASL and the first Kafka request.
  KafkaSourceConfig config;
  config.request_timeout_ms = timeout_ms;
  auto opened = KafkaSource::Open(options, config);
  if (!opened.ok()) {
    add({"metadata", false, opened.status().ToString(),
         "the client could not be created from these options"});
    return report;
  }
  std::unique_ptr<KafkaSource> source = std::move(*opened);
  {
    auto topics = source->ListTopics();
    report.client_log = source->TakeClientLog();
    if (!topics.ok()) {
      std::string evidence = topics.status().message() + " " + source->LastClientError();
      for (const auto& line : report.client_log) evidence += " " + line;
      add({"metadata", false, topics.status().ToString(), MetadataHint(options, evidence)});
      return report;
    }
    report.topics = *topics;
    std::string protocol = options.ClientConfig("security.protocol").value_or("plaintext");
    add({"metadata", true,
         "connected and authenticated (security.protocol " + protocol + "); " +
             std::to_string(topics->size()) + " topic(s) visible",
         ""});
  }

  // 4. The subscription's partitions.
  std::set<TopicPartition> partitions;
  {
    auto listed = source->ListPartitions();
    if (!listed.ok()) {
      add({"topics", false, listed.status().ToString(),
           "wrong topic name, or the credentials may not read it (Event Hubs: the SAS policy or "
           "role must cover this event hub)"});
      return report;
    }
    partitions = *listed;
    if (partitions.empty()) {
      add({"topics", false, "the subscription " + options.subscription.ToString() +
                                " selects no partition",
           "check subscribe / subscribePattern / assign against the topics listed"});
      return report;
    }
    add({"topics", true,
         options.subscription.ToString() + ": " + std::to_string(partitions.size()) +
             " partition(s)",
         ""});
  }

  // 5. Offsets.
  auto earliest = source->EarliestOffsets(partitions);
  auto latest = earliest.ok() ? source->LatestOffsets(partitions) : earliest;
  if (!earliest.ok() || !latest.ok()) {
    const Status& st = !earliest.ok() ? earliest.status() : latest.status();
    add({"offsets", false, st.ToString(),
         "listing offsets needs 'Describe' / Listen rights on the topic; retry if the broker is "
         "busy"});
    return report;
  }
  int64_t available = 0;
  for (const auto& tp : partitions) {
    PartitionCheck pc{tp, earliest->at(tp), latest->at(tp)};
    available += pc.latest - pc.earliest;
    report.partitions.push_back(pc);
  }
  CheckStep step{"offsets", true, std::to_string(available) + " record offset(s) retained", ""};
  if (available == 0) {
    step.hint = "the topic holds no records now";
  }
  if (options.starting.kind == OffsetSpec::Kind::kLatest) {
    step.hint += std::string(step.hint.empty() ? "" : "; ") +
                 "note: startingOffsets is latest (the streaming default): a new query returns "
                 "rows only for events sent after it starts";
  }
  add(step);
  report.client_log = source->TakeClientLog();
  return report;
}

}  // namespace weir::kafka
