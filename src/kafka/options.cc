#include "kafka/options.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <initializer_list>
#include <random>
#include <set>

#include "azure/credentials.h"

namespace weir::kafka {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// The source options weir accepts besides kafka.*, by lower-case key, with Spark's spelling.
const std::vector<std::string>& KnownOptionNames() {
  static const std::vector<std::string> names = {
      "assign", "subscribe", "subscribePattern", "startingOffsets", "startingTimestamp",
      "startingOffsetsByTimestamp", "startingOffsetsByTimestampStrategy", "endingOffsets",
      "endingTimestamp", "endingOffsetsByTimestamp", "failOnDataLoss", "maxOffsetsPerTrigger",
      "minOffsetsPerTrigger", "maxTriggerDelay", "minPartitions", "maxRecordsPerPartition",
      "includeHeaders", "groupIdPrefix", "kafkaConsumer.pollTimeoutMs", "fetchOffset.numRetries",
      "fetchOffset.retryIntervalMs", "bootstrapServers", "eventhubs.connectionString",
      "eventhubs.tenantId", "eventhubs.clientId", "eventhubs.clientSecret",
      "eventhubs.credential", "eventhubs.managedIdentityObjectId",
      "eventhubs.managedIdentityResourceId", "eventhubs.federatedTokenFile",
      "eventhubs.authorityHost", "eventhubs.namespace", "weir.commitOffsetsToGroup"};
  return names;
}

std::string ValidOptionsList() {
  std::string out;
  for (const auto& n : KnownOptionNames()) out += n + ", ";
  return out + "kafka.<librdkafka or Java client property>";
}

// Spark's text for kafka.auto.offset.reset (KafkaSourceProvider.validateGeneralOptions).
constexpr const char* kAutoOffsetResetMessage =
    "Kafka option 'auto.offset.reset' is not supported. Instead set the source option "
    "'startingoffsets' to 'earliest' or 'latest' to specify where to start. Structured Streaming "
    "manages which offsets are consumed internally, rather than relying on the kafkaConsumer to do "
    "it. This will ensure that no data is missed when new topics/partitions are dynamically "
    "subscribed. Note that 'startingoffsets' only applies when a new Streaming query is started, "
    "and that resuming will always pick up from where the query left off. See the docs for more "
    "details.";

constexpr const char* kCustomGroupIdMessage =
    "Kafka option 'kafka.group.id' has been set on this query, it is not recommended to set this "
    "option. This option is unsafe to use since multiple concurrent queries or sources using the "
    "same group id will interfere with each other as they are part of the same consumer group. "
    "Restarted queries may also suffer interference from the previous run having the same group "
    "id. The user should have only one query per group id, and/or set the option "
    "'kafka.session.timeout.ms' to be very small so that the Kafka consumers from the previous "
    "query are marked dead by the Kafka group coordinator before the restarted query starts "
    "running.";

// Java client properties with a different name in librdkafka.
const std::map<std::string, std::string>& RenamedProperties() {
  static const std::map<std::string, std::string> renamed = {
      {"request.timeout.ms", "socket.timeout.ms"},
      {"receive.buffer.bytes", "socket.receive.buffer.bytes"},
      {"send.buffer.bytes", "socket.send.buffer.bytes"},
      {"fetch.max.wait.ms", "fetch.wait.max.ms"},
  };
  return renamed;
}

// Java client properties with no librdkafka equivalent and no effect on what is read.
const std::set<std::string>& IgnoredProperties() {
  static const std::set<std::string> ignored = {
      "sasl.login.callback.handler.class", "sasl.client.callback.handler.class",
      "sasl.login.class", "client.dns.lookup", "default.api.timeout.ms", "ssl.protocol",
      "exclude.internal.topics", "max.poll.records", "security.providers", "metric.reporters",
      "metrics.num.samples", "metrics.recording.level", "metrics.sample.window.ms",
      "auto.include.jmx.reporter", "retry.backoff.max.ms", "allow.auto.create.topics",
      "key.deserializer.encoding", "value.deserializer.encoding",
  };
  return ignored;
}

// Java-only properties that change behaviour: rejected with what to use instead.
const std::map<std::string, std::string>& UnsupportedProperties() {
  static const std::map<std::string, std::string> unsupported = {
      {"ssl.truststore.location",
       "Java trust stores (JKS) are not supported; use kafka.ssl.ca.location with a PEM file"},
      {"ssl.truststore.password",
       "Java trust stores (JKS) are not supported; use kafka.ssl.ca.location with a PEM file"},
      {"ssl.truststore.type",
       "Java trust stores (JKS) are not supported; use kafka.ssl.ca.location with a PEM file"},
      {"ssl.keystore.type", "only PKCS#12 key stores are supported (kafka.ssl.keystore.location)"},
  };
  return unsupported;
}

Result<int64_t> ParseLong(std::string_view name, std::string_view text) {
  std::string t = Trim(text);
  int64_t value = 0;
  const char* begin = t.data();
  if (!t.empty() && t[0] == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, t.data() + t.size(), value);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size()) {
    return Status::InvalidArgument("option " + std::string(name) + " expects an integer, got '" +
                                   std::string(text) + "'");
  }
  return value;
}

Result<bool> ParseBool(std::string_view name, std::string_view text) {
  std::string t = Lower(Trim(text));
  if (t == "true") return true;
  if (t == "false") return false;
  return Status::InvalidArgument("option " + std::string(name) +
                                 " expects true or false, got '" + std::string(text) + "'");
}

// A config being assembled: ordered (name, value) pairs, later Set() overriding in place.
class ConfigBuilder {
 public:
  void Set(const std::string& name, const std::string& value) {
    for (auto& kv : entries_) {
      if (kv.first == name) {
        kv.second = value;
        return;
      }
    }
    entries_.emplace_back(name, value);
  }
  void SetIfUnset(const std::string& name, const std::string& value) {
    if (!Has(name)) entries_.emplace_back(name, value);
  }
  bool Has(const std::string& name) const {
    for (const auto& kv : entries_) {
      if (kv.first == name) return true;
    }
    return false;
  }
  std::vector<std::pair<std::string, std::string>> Take() { return std::move(entries_); }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

// Parsed kafka.sasl.jaas.config: login module class and its key=value options.
struct JaasConfig {
  std::string module;  // class name without a "kafkashaded." prefix
  std::map<std::string, std::string> options;
};

Result<JaasConfig> ParseJaas(std::string_view text) {
  // <class> <flag> key="value" key2=value2 ;
  auto bad = [](const std::string& why) {
    return Status::InvalidArgument("kafka.sasl.jaas.config could not be parsed (" + why +
                                   "); expected '<LoginModule class> required key=\"value\" ...;' "
                                   "(value not shown)");
  };
  JaasConfig out;
  size_t i = 0;
  auto skip_space = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  auto read_word = [&] {
    size_t b = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])) &&
           text[i] != '=' && text[i] != ';') {
      ++i;
    }
    return std::string(text.substr(b, i - b));
  };
  skip_space();
  out.module = read_word();
  if (out.module.empty()) return bad("missing login module class");
  skip_space();
  std::string flag = Lower(read_word());
  if (flag != "required" && flag != "requisite" && flag != "sufficient" && flag != "optional") {
    return bad("missing control flag 'required'");
  }
  while (true) {
    skip_space();
    if (i >= text.size() || text[i] == ';') break;
    std::string key = read_word();
    skip_space();
    if (key.empty() || i >= text.size() || text[i] != '=') return bad("option without '='");
    ++i;
    skip_space();
    std::string value;
    if (i < text.size() && text[i] == '"') {
      ++i;
      bool closed = false;
      while (i < text.size()) {
        char c = text[i++];
        if (c == '\\' && i < text.size()) {
          value.push_back(text[i++]);
        } else if (c == '"') {
          closed = true;
          break;
        } else {
          value.push_back(c);
        }
      }
      if (!closed) return bad("unterminated quoted value");
    } else {
      value = read_word();
    }
    out.options[key] = value;
  }
  constexpr std::string_view kShaded = "kafkashaded.";
  if (StartsWith(out.module, kShaded)) out.module = out.module.substr(kShaded.size());
  return out;
}

std::string HostOfFirstServer(std::string_view servers) {
  std::string first = Trim(servers.substr(0, servers.find(',')));
  // Strip a scheme some users copy from connection strings ("sb://host:9093").
  if (auto p = first.find("://"); p != std::string::npos) first = first.substr(p + 3);
  if (!first.empty() && first[0] == '[') {  // [ipv6]:port
    auto close = first.find(']');
    return close == std::string::npos ? first : first.substr(1, close - 1);
  }
  auto colon = first.find(':');
  return Lower(colon == std::string::npos ? first : first.substr(0, colon));
}

constexpr std::string_view kServiceBusSuffix = ".servicebus.windows.net";

Result<OffsetSpec> ParseOffsetSpec(const std::map<std::string, std::string>& params,
                                   const std::string& global_ts_key,
                                   const std::string& by_ts_key, const std::string& offsets_key,
                                   OffsetSpec::Kind default_kind) {
  OffsetSpec spec;
  if (auto it = params.find(global_ts_key); it != params.end()) {
    std::string ts = Trim(it->second);
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(ts.data(), ts.data() + ts.size(), value);
    if (ts.empty() || ec != std::errc() || ptr != ts.data() + ts.size()) {
      return Status::InvalidArgument("Expected a single long value, got " + ts);
    }
    spec.kind = OffsetSpec::Kind::kGlobalTimestamp;
    spec.timestamp_ms = value;
    return spec;
  }
  if (auto it = params.find(by_ts_key); it != params.end()) {
    WEIR_ASSIGN_OR_RETURN(spec.timestamps, PartitionTimestampsFromJson(Trim(it->second)));
    spec.kind = OffsetSpec::Kind::kSpecificTimestamps;
    return spec;
  }
  if (auto it = params.find(offsets_key); it != params.end()) {
    std::string value = Trim(it->second);
    std::string lower = Lower(value);
    if (lower == "latest") {
      spec.kind = OffsetSpec::Kind::kLatest;
    } else if (lower == "earliest") {
      spec.kind = OffsetSpec::Kind::kEarliest;
    } else {
      WEIR_ASSIGN_OR_RETURN(spec.offsets, PartitionOffsetsFromJson(value));
      spec.kind = OffsetSpec::Kind::kSpecificOffsets;
    }
    return spec;
  }
  spec.kind = default_kind;
  return spec;
}

std::string PartitionListForMessage(const std::set<TopicPartition>& s) {
  return FormatPartitionSet(s);
}

std::optional<std::string> GetEnvironment(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

// eventhubs.credential and its companions -> how tokens are fetched (see options.h).
Result<OAuthClientCredentials> ParseEntraCredentials(const std::map<std::string, std::string>& params,
                                                     const std::string& ns_host,
                                                     const EnvironmentLookup& env) {
  auto param = [&](const char* name) -> std::optional<std::string> {
    auto it = params.find(name);
    if (it == params.end() || Trim(it->second).empty()) return std::nullopt;
    return Trim(it->second);
  };
  auto reject = [&](std::initializer_list<const char*> names,
                    const std::string& why) -> Status {
    for (const char* name : names) {
      if (params.count(name)) {
        static const std::map<std::string, std::string> spelled = {
            {"eventhubs.tenantid", "eventhubs.tenantId"},
            {"eventhubs.clientsecret", "eventhubs.clientSecret"},
            {"eventhubs.federatedtokenfile", "eventhubs.federatedTokenFile"},
            {"eventhubs.authorityhost", "eventhubs.authorityHost"},
            {"eventhubs.managedidentityobjectid", "eventhubs.managedIdentityObjectId"},
            {"eventhubs.managedidentityresourceid", "eventhubs.managedIdentityResourceId"}};
        return Status::InvalidArgument("option " + spelled.at(name) + " " + why);
      }
    }
    return Status::OK();
  };
  OAuthClientCredentials c;
  std::string kind;
  if (auto k = param("eventhubs.credential")) {
    kind = Lower(*k);
    if (kind != "clientsecret" && kind != "managedidentity" && kind != "workloadidentity") {
      return Status::InvalidArgument(
          "option eventhubs.credential must be clientSecret, managedIdentity or "
          "workloadIdentity, got '" + *k + "'");
    }
  } else if (param("eventhubs.clientsecret")) {
    kind = "clientsecret";
  } else if (param("eventhubs.managedidentityobjectid") ||
             param("eventhubs.managedidentityresourceid")) {
    kind = "managedidentity";
  } else if (param("eventhubs.federatedtokenfile")) {
    kind = "workloadidentity";
  } else {
    return Status::InvalidArgument(
        "Entra ID authentication needs eventhubs.tenantId, eventhubs.clientId and "
        "eventhubs.clientSecret (a service principal), or eventhubs.credential=managedIdentity "
        "(the machine's managed identity) or workloadIdentity (AKS workload identity)");
  }
  c.scope = "https://" + ns_host + "/.default";
  std::string authority = "https://login.microsoftonline.com";
  if (auto a = param("eventhubs.authorityhost")) {
    WEIR_ASSIGN_OR_RETURN(authority, azure::NormalizeAuthorityHost(*a, "eventhubs.authorityHost"));
  } else if (auto e = env("AZURE_AUTHORITY_HOST")) {
    WEIR_ASSIGN_OR_RETURN(authority, azure::NormalizeAuthorityHost(*e, "AZURE_AUTHORITY_HOST"));
  }
  if (kind == "clientsecret") {
    WEIR_RETURN_NOT_OK(reject({"eventhubs.federatedtokenfile", "eventhubs.managedidentityobjectid",
                               "eventhubs.managedidentityresourceid"},
                              "does not apply to eventhubs.credential=clientSecret"));
    c.kind = OAuthCredentialKind::kClientSecret;
    c.tenant_id = param("eventhubs.tenantid").value_or("");
    c.client_id = param("eventhubs.clientid").value_or("");
    c.client_secret = param("eventhubs.clientsecret").value_or("");
    if (c.tenant_id.empty() || c.client_id.empty() || c.client_secret.empty()) {
      return Status::InvalidArgument(
          "Entra ID authentication with a client secret needs all of eventhubs.tenantId, "
          "eventhubs.clientId and eventhubs.clientSecret (or set eventhubs.credential to "
          "managedIdentity or workloadIdentity)");
    }
    c.token_endpoint_url = authority + "/" + c.tenant_id + "/oauth2/v2.0/token";
    return c;
  }
  if (kind == "workloadidentity") {
    WEIR_RETURN_NOT_OK(reject({"eventhubs.clientsecret", "eventhubs.managedidentityobjectid",
                               "eventhubs.managedidentityresourceid"},
                              "does not apply to eventhubs.credential=workloadIdentity"));
    c.kind = OAuthCredentialKind::kWorkloadIdentity;
    c.tenant_id = param("eventhubs.tenantid").value_or(env("AZURE_TENANT_ID").value_or(""));
    c.client_id = param("eventhubs.clientid").value_or(env("AZURE_CLIENT_ID").value_or(""));
    c.federated_token_file =
        param("eventhubs.federatedtokenfile").value_or(env("AZURE_FEDERATED_TOKEN_FILE").value_or(""));
    std::vector<std::string> missing;
    if (c.tenant_id.empty()) missing.push_back("eventhubs.tenantId or AZURE_TENANT_ID");
    if (c.client_id.empty()) missing.push_back("eventhubs.clientId or AZURE_CLIENT_ID");
    if (c.federated_token_file.empty()) {
      missing.push_back("eventhubs.federatedTokenFile or AZURE_FEDERATED_TOKEN_FILE");
    }
    if (!missing.empty()) {
      std::string list;
      for (const auto& m : missing) list += (list.empty() ? "" : "; ") + m;
      return Status::InvalidArgument(
          "eventhubs.credential=workloadIdentity needs " + list +
          " (AKS sets the variables in pods labelled azure.workload.identity/use=true whose "
          "service account names the application)");
    }
    c.token_endpoint_url = authority + "/" + c.tenant_id + "/oauth2/v2.0/token";
    return c;
  }
  WEIR_RETURN_NOT_OK(reject({"eventhubs.tenantid", "eventhubs.clientsecret",
                             "eventhubs.federatedtokenfile", "eventhubs.authorityhost"},
                            "does not apply to eventhubs.credential=managedIdentity (tokens come "
                            "from the machine's identity endpoint)"));
  c.kind = OAuthCredentialKind::kManagedIdentity;
  c.client_id = param("eventhubs.clientid").value_or("");
  c.managed_identity_object_id = param("eventhubs.managedidentityobjectid").value_or("");
  c.managed_identity_resource_id = param("eventhubs.managedidentityresourceid").value_or("");
  int selectors = !c.client_id.empty() + !c.managed_identity_object_id.empty() +
                  !c.managed_identity_resource_id.empty();
  if (selectors > 1) {
    return Status::InvalidArgument(
        "a user-assigned managed identity is chosen by one of eventhubs.clientId, "
        "eventhubs.managedIdentityObjectId or eventhubs.managedIdentityResourceId, not several");
  }
  // App Service / Functions / Container Apps (IDENTITY_ENDPOINT), else IMDS, as for storage.
  azure::AzureCredentials endpoints = azure::AzureCredentials::ManagedIdentity();
  endpoints.ApplyManagedIdentityEnvironment(env);
  c.identity_header = endpoints.identity_header;
  c.managed_identity_endpoint =
      c.identity_header.empty() ? endpoints.imds_endpoint : endpoints.identity_endpoint;
  return c;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Redactor

bool Redactor::IsSecretName(std::string_view name) {
  std::string n = Lower(name);
  for (const char* word : {"password", "secret", "jaas", "connectionstring", "sasl", "credential",
                           "ssl.key.pem", "keystore.key", "token"}) {
    if (n.find(word) != std::string::npos) return true;
  }
  return false;
}

void Redactor::AddSecret(std::string_view value) {
  if (value.size() < 4) return;
  std::string v(value);
  if (std::find(secrets_.begin(), secrets_.end(), v) != secrets_.end()) return;
  secrets_.push_back(std::move(v));
  std::sort(secrets_.begin(), secrets_.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

std::string Redactor::Scrub(std::string_view text) const {
  std::string out(text);
  for (const auto& secret : secrets_) {
    size_t pos = 0;
    while ((pos = out.find(secret, pos)) != std::string::npos) {
      out.replace(pos, secret.size(), kMask);
      pos += kMask.size();
    }
  }
  return out;
}

Status Redactor::Scrub(const Status& status) const {
  if (status.ok()) return status;
  return Status(status.code(), Scrub(status.message()));
}

// ---------------------------------------------------------------------------------------------
// Subscription

std::string Subscription::ToString() const {
  std::string out;
  switch (kind) {
    case Kind::kSubscribe:
      out = "Subscribe[";
      for (size_t i = 0; i < topics.size(); ++i) out += (i ? ", " : "") + topics[i];
      return out + "]";
    case Kind::kSubscribePattern:
      return "SubscribePattern[" + pattern + "]";
    case Kind::kAssign:
      out = "Assign[";
      for (size_t i = 0; i < partitions.size(); ++i) {
        out += (i ? ", " : "") + partitions[i].ToString();
      }
      return out + "]";
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// OAuthClientCredentials

std::string OAuthClientCredentials::Resource() const {
  constexpr std::string_view kDefault = "/.default";
  return EndsWith(scope, kDefault) ? scope.substr(0, scope.size() - kDefault.size()) : scope;
}

std::string OAuthClientCredentials::Describe() const {
  switch (kind) {
    case OAuthCredentialKind::kClientSecret:
      return "Entra ID application " + client_id +
             (tenant_id.empty() ? "" : " in tenant " + tenant_id) + " (client secret)";
    case OAuthCredentialKind::kWorkloadIdentity:
      return "Entra ID application " + client_id + " in tenant " + tenant_id +
             " (workload identity, federated token file " + federated_token_file + ")";
    case OAuthCredentialKind::kManagedIdentity: {
      std::string which = !client_id.empty() ? "user-assigned, client id " + client_id
                          : !managed_identity_object_id.empty()
                              ? "user-assigned, object id " + managed_identity_object_id
                          : !managed_identity_resource_id.empty()
                              ? "user-assigned, resource id " + managed_identity_resource_id
                              : "system-assigned";
      return "the managed identity (" + which + ") from " +
             (identity_header.empty() ? "IMDS " : "IDENTITY_ENDPOINT ") + managed_identity_endpoint;
    }
  }
  return "Entra ID credentials";
}

// ---------------------------------------------------------------------------------------------
// Durations and connection strings

Result<int64_t> ParseDurationMs(std::string_view text) {
  constexpr const char* kTimeError =
      "Time must be specified as seconds (s), milliseconds (ms), microseconds (us), minutes (m or "
      "min), hour (h), or day (d). E.g. 50s, 100ms, or 250us.";
  std::string t = Lower(Trim(text));
  size_t i = 0;
  if (i < t.size() && t[i] == '-') ++i;
  size_t digits_begin = i;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  std::string number = t.substr(0, i);
  std::string suffix = t.substr(i);
  bool suffix_letters = std::all_of(suffix.begin(), suffix.end(),
                                    [](char c) { return c >= 'a' && c <= 'z'; });
  if (i == digits_begin || !suffix_letters) {
    return Status::InvalidArgument(std::string(kTimeError) +
                                   " Failed to parse time string: " + std::string(text));
  }
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc()) {
    return Status::InvalidArgument(std::string(kTimeError) + " Failed to parse time string: " +
                                   std::string(text));
  }
  if (suffix.empty() || suffix == "ms") return value;
  if (suffix == "us") return value / 1000;
  if (suffix == "s") return value * 1000;
  if (suffix == "m" || suffix == "min") return value * 60 * 1000;
  if (suffix == "h") return value * 60 * 60 * 1000;
  if (suffix == "d") return value * 24 * 60 * 60 * 1000;
  return Status::InvalidArgument(std::string(kTimeError) + " Invalid suffix: \"" + suffix + "\"");
}

Result<EventHubsConnectionString> EventHubsConnectionString::Parse(std::string_view text) {
  EventHubsConnectionString out;
  std::string endpoint;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view part = text.substr(start, end - start);
    start = end + 1;
    if (Trim(part).empty()) continue;
    size_t eq = part.find('=');
    if (eq == std::string_view::npos) {
      return Status::InvalidArgument(
          "eventhubs.connectionString is not an Event Hubs connection string: a part has no '=' "
          "(expected Endpoint=sb://<namespace>.servicebus.windows.net/;SharedAccessKeyName=...;"
          "SharedAccessKey=...; value not shown)");
    }
    std::string key = Lower(Trim(part.substr(0, eq)));
    std::string value = Trim(part.substr(eq + 1));
    if (key == "endpoint") {
      endpoint = value;
    } else if (key == "sharedaccesskeyname") {
      out.shared_access_key_name = value;
    } else if (key == "sharedaccesskey") {
      out.shared_access_key = value;
    } else if (key == "entitypath") {
      out.entity_path = value;
    }
  }
  std::string host = endpoint;
  if (auto p = host.find("://"); p != std::string::npos) host = host.substr(p + 3);
  while (!host.empty() && host.back() == '/') host.pop_back();
  if (auto colon = host.find(':'); colon != std::string::npos) host = host.substr(0, colon);
  if (host.empty()) {
    return Status::InvalidArgument(
        "eventhubs.connectionString has no Endpoint=sb://<namespace>.servicebus.windows.net/ "
        "(value not shown)");
  }
  if (out.shared_access_key_name.empty() || out.shared_access_key.empty()) {
    return Status::InvalidArgument(
        "eventhubs.connectionString needs SharedAccessKeyName and SharedAccessKey (copy the "
        "'Connection string-primary key' of a shared access policy with Listen rights; value not "
        "shown)");
  }
  out.endpoint_host = Lower(host);
  return out;
}

// ---------------------------------------------------------------------------------------------
// KafkaSourceOptions

std::optional<std::string> KafkaSourceOptions::ClientConfig(std::string_view name) const {
  for (const auto& [k, v] : client_config) {
    if (k == name) return v;
  }
  return std::nullopt;
}

std::string KafkaSourceOptions::BootstrapServers() const {
  return ClientConfig("bootstrap.servers").value_or("");
}

std::string KafkaSourceOptions::ToString() const {
  std::string out;
  for (const auto& [name, value] : given) {
    if (!out.empty()) out += ", ";
    out += name + "=" + (Redactor::IsSecretName(name) ? std::string(Redactor::kMask)
                                                      : redactor.Scrub(value));
  }
  return out;
}

std::string KafkaSourceOptions::MakeGroupId() const {
  if (group_id) return *group_id;
  std::random_device device;
  std::mt19937_64 rng((static_cast<uint64_t>(device()) << 32) ^ device());
  uint64_t hi = rng(), lo = rng();
  hi = (hi & ~0xF000ULL) | 0x4000ULL;                 // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // variant 10
  char uuid[37];
  std::snprintf(uuid, sizeof(uuid), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(hi >> 32), static_cast<unsigned>((hi >> 16) & 0xFFFF),
                static_cast<unsigned>(hi & 0xFFFF), static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return group_id_prefix + "-" + uuid;
}

Result<KafkaSourceOptions> KafkaSourceOptions::Parse(
    const std::map<std::string, std::string>& options, QueryKind kind,
    const EnvironmentLookup& environment) {
  const EnvironmentLookup env = environment ? environment : EnvironmentLookup(GetEnvironment);
  KafkaSourceOptions out;
  out.kind = kind;

  // Secrets first, so that every error below can be scrubbed.
  for (const auto& [name, value] : options) {
    out.given.emplace_back(name, value);
    std::string lower = Lower(name);
    if (Redactor::IsSecretName(lower) && lower.find("mechanism") == std::string::npos &&
        lower.find("protocol") == std::string::npos && lower.find("username") == std::string::npos) {
      out.redactor.AddSecret(value);
    }
  }
  const Redactor& redactor = out.redactor;
  auto fail = [&](Status st) { return redactor.Scrub(st); };

  // Case-insensitive view; kafka.* properties keyed by their lower-case client name.
  std::map<std::string, std::string> params;
  std::map<std::string, std::string> kafka_params;
  std::map<std::string, std::string> display_name;
  std::set<std::string> known;
  for (const auto& n : KnownOptionNames()) {
    known.insert(Lower(n));
    display_name[Lower(n)] = n;
  }
  for (const auto& [name, value] : options) {
    std::string lower = Lower(Trim(name));
    if (StartsWith(lower, "kafka.")) {
      kafka_params[lower.substr(6)] = value;
      continue;
    }
    if (lower == "databricks.servicecredential" || lower == "servicecredential") {
      return Status::NotImplemented(
          "option '" + name + "' (a Unity Catalog service credential) exists only on Databricks; "
          "with weir use eventhubs.tenantId, eventhubs.clientId and eventhubs.clientSecret (an "
          "Entra ID application with the 'Azure Event Hubs Data Receiver' role) or "
          "eventhubs.connectionString");
    }
    if (!known.count(lower)) {
      std::string hint;
      if (lower.find('.') != std::string::npos && !StartsWith(lower, "eventhubs.")) {
        hint = " (Kafka client properties take the 'kafka.' prefix: did you mean 'kafka." +
               lower + "'?)";
      }
      return Status::InvalidArgument("unknown Kafka source option '" + name + "'" + hint +
                                     "; valid options: " + ValidOptionsList());
    }
    params[lower] = value;
  }
  if (auto it = params.find("bootstrapservers"); it != params.end()) {
    if (kafka_params.count("bootstrap.servers") &&
        Trim(kafka_params["bootstrap.servers"]) != Trim(it->second)) {
      return Status::InvalidArgument(
          "options bootstrapServers and kafka.bootstrap.servers disagree; set one of them");
    }
    kafka_params["bootstrap.servers"] = it->second;
  }

  // --- Spark: validateStreamOptions / validateBatchOptions (ending side) ---
  if (kind == QueryKind::kStreaming) {
    if (params.count("endingoffsets")) {
      return Status::InvalidArgument("ending offset not valid in streaming queries");
    }
    if (params.count("endingoffsetsbytimestamp") || params.count("endingtimestamp")) {
      return Status::InvalidArgument("ending timestamp not valid in streaming queries");
    }
  }

  // --- Event Hubs connection string (weir): derives bootstrap and SASL PLAIN ---
  std::optional<EventHubsConnectionString> connection;
  if (auto it = params.find("eventhubs.connectionstring"); it != params.end()) {
    auto parsed = EventHubsConnectionString::Parse(Trim(it->second));
    if (!parsed.ok()) return fail(parsed.status());
    connection = std::move(*parsed);
    out.redactor.AddSecret(connection->shared_access_key);
    out.redactor.AddSecret(Trim(it->second));
  }

  // --- Spark: validateGeneralOptions ---
  const std::vector<std::string> strategy_keys = {"subscribe", "subscribepattern", "assign"};
  std::vector<std::string> specified;
  for (const auto& k : strategy_keys) {
    if (params.count(k)) specified.push_back(k);
  }
  if (specified.empty() && connection && connection->entity_path) {
    params["subscribe"] = *connection->entity_path;  // the event hub named in the string
    specified.push_back("subscribe");
    out.notes.push_back("subscribe set to the EntityPath of eventhubs.connectionString");
  }
  if (specified.empty()) {
    return Status::InvalidArgument(
        "One of the following options must be specified for Kafka source: subscribe, "
        "subscribepattern, assign. See the docs for more details.");
  }
  if (specified.size() > 1) {
    return Status::InvalidArgument(
        "Only one of the following options can be specified for Kafka source: subscribe, "
        "subscribepattern, assign. See the docs for more details.");
  }
  const std::string& strategy = specified[0];
  const std::string strategy_value = params[strategy];
  if (strategy == "assign") {
    if (!StartsWith(Trim(strategy_value), "{")) {
      return Status::InvalidArgument(
          "No topicpartitions to assign as specified value for option 'assign' is '" +
          strategy_value + "'");
    }
    out.subscription.kind = Subscription::Kind::kAssign;
    WEIR_ASSIGN_OR_RETURN(out.subscription.partitions,
                          TopicPartitionsFromJson(Trim(strategy_value)));
  } else if (strategy == "subscribe") {
    out.subscription.kind = Subscription::Kind::kSubscribe;
    size_t start = 0;
    while (start <= strategy_value.size()) {
      size_t end = strategy_value.find(',', start);
      if (end == std::string::npos) end = strategy_value.size();
      std::string topic = Trim(std::string_view(strategy_value).substr(start, end - start));
      if (!topic.empty()) out.subscription.topics.push_back(topic);
      start = end + 1;
    }
    if (out.subscription.topics.empty()) {
      return Status::InvalidArgument(
          "No topics to subscribe to as specified value for option 'subscribe' is '" +
          strategy_value + "'");
    }
  } else {
    out.subscription.kind = Subscription::Kind::kSubscribePattern;
    out.subscription.pattern = Trim(strategy_value);
    if (out.subscription.pattern.empty()) {
      return Status::InvalidArgument(
          "Pattern to subscribe is empty as specified value for option 'subscribePattern' is '" +
          strategy_value + "'");
    }
  }

  if (auto it = params.find("minpartitions"); it != params.end()) {
    WEIR_ASSIGN_OR_RETURN(int64_t p, ParseLong("minPartitions", it->second));
    if (p > INT32_MAX || p < INT32_MIN) {
      return Status::InvalidArgument("option minPartitions expects an int, got '" + it->second +
                                     "'");
    }
    if (p <= 0) return Status::InvalidArgument("minPartitions must be positive");
    out.min_partitions = static_cast<int32_t>(p);
  }
  if (auto it = params.find("maxrecordsperpartition"); it != params.end()) {
    WEIR_ASSIGN_OR_RETURN(int64_t p, ParseLong("maxRecordsPerPartition", it->second));
    if (p <= 0) return Status::InvalidArgument("maxrecordsperpartition must be positive");
    out.max_records_per_partition = p;
  }

  if (auto it = kafka_params.find("group.id"); it != kafka_params.end()) {
    out.group_id = it->second;
    out.notes.push_back(kCustomGroupIdMessage);
    if (params.count("groupidprefix")) {
      out.notes.push_back("Option groupIdPrefix will be ignored as option kafka.group.id has been "
                          "set.");
    }
  }
  if (kafka_params.count("auto.offset.reset")) {
    return Status::InvalidArgument(kAutoOffsetResetMessage);
  }
  if (kafka_params.count("key.deserializer")) {
    return Status::InvalidArgument(
        "Kafka option 'key.deserializer' is not supported as keys are deserialized as byte arrays "
        "with ByteArrayDeserializer. Use DataFrame operations to explicitly deserialize the keys.");
  }
  if (kafka_params.count("value.deserializer")) {
    return Status::InvalidArgument(
        "Kafka option 'value.deserializer' is not supported as values are deserialized as byte "
        "arrays with ByteArrayDeserializer. Use DataFrame operations to explicitly deserialize the "
        "values.");
  }
  if (kafka_params.count("key.serializer")) {
    return Status::InvalidArgument(
        "Kafka option 'key.serializer' is not supported as keys are serialized with "
        "ByteArraySerializer.");
  }
  if (kafka_params.count("value.serializer")) {
    return Status::InvalidArgument(
        "Kafka option 'value.serializer' is not supported as value are serialized with "
        "ByteArraySerializer.");
  }
  for (const char* c : {"enable.auto.commit", "interceptor.classes"}) {
    if (kafka_params.count(c)) {
      return Status::InvalidArgument(std::string("Kafka option '") + c + "' is not supported");
    }
  }
  if (!kafka_params.count("bootstrap.servers") && !connection) {
    return Status::InvalidArgument(
        "Option 'kafka.bootstrap.servers' must be specified for configuring Kafka consumer");
  }
  if (auto it = params.find("maxoffsetspertrigger"); it != params.end()) {
    WEIR_ASSIGN_OR_RETURN(int64_t v, ParseLong("maxOffsetsPerTrigger", it->second));
    if (v <= 0) {
      return Status::InvalidArgument("maxOffsetsPerTrigger must be positive, got " +
                                     std::to_string(v));
    }
    out.max_offsets_per_trigger = v;
  }
  if (auto it = params.find("minoffsetspertrigger"); it != params.end()) {
    WEIR_ASSIGN_OR_RETURN(int64_t v, ParseLong("minOffsetsPerTrigger", it->second));
    if (v < 0) {
      return Status::InvalidArgument("minOffsetsPerTrigger must not be negative, got " +
                                     std::to_string(v));
    }
    out.min_offsets_per_trigger = v;
  }
  if (out.min_offsets_per_trigger && out.max_offsets_per_trigger &&
      *out.min_offsets_per_trigger > *out.max_offsets_per_trigger) {
    return Status::InvalidArgument("The value of minOffsetPerTrigger(" +
                                   std::to_string(*out.min_offsets_per_trigger) +
                                   ") is higher than the maxOffsetsPerTrigger(" +
                                   std::to_string(*out.max_offsets_per_trigger) + ").");
  }
  if (auto it = params.find("maxtriggerdelay"); it != params.end()) {
    WEIR_ASSIGN_OR_RETURN(out.max_trigger_delay_ms, ParseDurationMs(it->second));
  }

  // --- starting / ending positions (KafkaSourceProvider.getKafkaOffsetRangeLimit) ---
  if (auto it = params.find("startingoffsetsbytimestampstrategy"); it != params.end()) {
    std::string v = Lower(Trim(it->second));
    if (v == "error") {
      out.no_match_strategy = NoMatchStrategy::kError;
    } else if (v == "latest") {
      out.no_match_strategy = NoMatchStrategy::kLatest;
    } else {
      return Status::InvalidArgument(
          "option startingOffsetsByTimestampStrategy must be 'error' or 'latest', got '" +
          it->second + "'");
    }
  }
  WEIR_ASSIGN_OR_RETURN(
      out.starting,
      ParseOffsetSpec(params, "startingtimestamp", "startingoffsetsbytimestamp", "startingoffsets",
                      kind == QueryKind::kStreaming ? OffsetSpec::Kind::kLatest
                                                    : OffsetSpec::Kind::kEarliest));
  if (kind == QueryKind::kBatch) {
    WEIR_ASSIGN_OR_RETURN(OffsetSpec ending,
                          ParseOffsetSpec(params, "endingtimestamp", "endingoffsetsbytimestamp",
                                          "endingoffsets", OffsetSpec::Kind::kLatest));
    if (out.starting.kind == OffsetSpec::Kind::kLatest) {
      return Status::InvalidArgument("starting offset can't be latest for batch queries on Kafka");
    }
    for (const auto& [tp, off] : out.starting.offsets) {
      if (off == kLatestOffset) {
        return Status::InvalidArgument("startingOffsets for " + tp.ToString() +
                                       " can't be latest for batch queries on Kafka");
      }
    }
    if (ending.kind == OffsetSpec::Kind::kEarliest) {
      return Status::InvalidArgument("ending offset can't be earliest for batch queries on Kafka");
    }
    for (const auto& [tp, off] : ending.offsets) {
      if (off == kEarliestOffset) {
        return Status::InvalidArgument("ending offset for " + tp.ToString() +
                                       " can't be earliest for batch queries on Kafka");
      }
    }
    out.ending = std::move(ending);
    for (const char* o : {"maxoffsetspertrigger", "minoffsetspertrigger", "maxtriggerdelay"}) {
      if (params.count(o)) {
        out.notes.push_back(display_name[o] + " option ignored in batch queries");
      }
    }
  }
  if (out.subscription.kind == Subscription::Kind::kAssign) {
    std::set<TopicPartition> assigned(out.subscription.partitions.begin(),
                                      out.subscription.partitions.end());
    if (out.starting.kind == OffsetSpec::Kind::kSpecificOffsets &&
        KeysOf(out.starting.offsets) != assigned) {
      return Status::InvalidArgument(
          "Partitions specified for Kafka start offsets don't match what are assigned. Maybe "
          "topic partitions are created or deleted while the query is running. Use -1 for latest, "
          "-2 for earliest. Specified: " +
          PartitionListForMessage(KeysOf(out.starting.offsets)) +
          " Assigned: " + PartitionListForMessage(assigned));
    }
    if (out.starting.kind == OffsetSpec::Kind::kSpecificTimestamps &&
        KeysOf(out.starting.timestamps) != assigned) {
      return Status::InvalidArgument(
          "Partitions specified for Kafka timestamp based start offsets don't match what are "
          "assigned. Maybe topic partitions are created or deleted while the query is running, or "
          "you didn't specify all the partitions. Specified: " +
          PartitionListForMessage(KeysOf(out.starting.timestamps)) +
          " Assigned: " + PartitionListForMessage(assigned));
    }
  }

  // --- the remaining plain options ---
  if (auto it = params.find("failondataloss"); it != params.end()) {
    WEIR_ASSIGN_OR_RETURN(out.fail_on_data_loss, ParseBool("failOnDataLoss", it->second));
  }
  if (auto it = params.find("includeheaders"); it != params.end()) {
    WEIR_ASSIGN_OR_RETURN(out.include_headers, ParseBool("includeHeaders", it->second));
  }
  if (auto it = params.find("groupidprefix"); it != params.end()) out.group_id_prefix = it->second;
  if (kind == QueryKind::kBatch && !params.count("groupidprefix")) {
    out.group_id_prefix = "spark-kafka-relation";
  }
  if (auto it = params.find("weir.commitoffsetstogroup"); it != params.end()) {
    std::string group = Trim(it->second);
    if (group.empty()) {
      return Status::InvalidArgument(
          "weir.commitOffsetsToGroup needs a consumer group id (the group lag monitors watch)");
    }
    if (kind == QueryKind::kBatch) {
      return Status::InvalidArgument(
          "weir.commitOffsetsToGroup is only valid in streaming queries (a batch read has no "
          "committed batches)");
    }
    out.commit_offsets_to_group = std::move(group);
  }
  if (auto it = params.find("kafkaconsumer.polltimeoutms"); it != params.end()) {
    WEIR_ASSIGN_OR_RETURN(out.poll_timeout_ms, ParseLong("kafkaConsumer.pollTimeoutMs", it->second));
    if (out.poll_timeout_ms <= 0) {
      return Status::InvalidArgument("kafkaConsumer.pollTimeoutMs must be positive");
    }
  }
  if (auto it = params.find("fetchoffset.numretries"); it != params.end()) {
    WEIR_ASSIGN_OR_RETURN(int64_t v, ParseLong("fetchOffset.numRetries", it->second));
    if (v < 1 || v > 1000) {
      return Status::InvalidArgument("fetchOffset.numRetries must be between 1 and 1000");
    }
    out.fetch_offset_num_retries = static_cast<int32_t>(v);
  }
  if (auto it = params.find("fetchoffset.retryintervalms"); it != params.end()) {
    WEIR_ASSIGN_OR_RETURN(out.fetch_offset_retry_interval_ms,
                          ParseLong("fetchOffset.retryIntervalMs", it->second));
  }

  // --- librdkafka configuration ---
  ConfigBuilder config;
  std::string bootstrap = kafka_params.count("bootstrap.servers")
                              ? Trim(kafka_params["bootstrap.servers"])
                              : connection->endpoint_host + ":9093";
  out.event_hubs = EndsWith(HostOfFirstServer(bootstrap), kServiceBusSuffix);
  config.Set("bootstrap.servers", bootstrap);

  bool user_sasl = kafka_params.count("sasl.jaas.config") || kafka_params.count("sasl.username") ||
                   kafka_params.count("sasl.password");
  bool entra_any = false;
  for (const char* o : {"eventhubs.tenantid", "eventhubs.clientid", "eventhubs.clientsecret",
                        "eventhubs.credential", "eventhubs.managedidentityobjectid",
                        "eventhubs.managedidentityresourceid", "eventhubs.federatedtokenfile",
                        "eventhubs.authorityhost"}) {
    if (params.count(o)) entra_any = true;
  }
  if (connection && (user_sasl || entra_any)) {
    return Status::InvalidArgument(
        "eventhubs.connectionString sets the SASL credentials itself; do not also set "
        "kafka.sasl.jaas.config, kafka.sasl.username/password or the Entra ID options "
        "(eventhubs.credential, tenantId, clientId, clientSecret, ...)");
  }
  if (entra_any && user_sasl) {
    return Status::InvalidArgument(
        "the Entra ID options (eventhubs.credential, tenantId, clientId, clientSecret, ...) set "
        "the SASL credentials themselves; do not also set kafka.sasl.jaas.config or "
        "kafka.sasl.username/password");
  }
  if (connection) {
    config.Set("security.protocol", "SASL_SSL");
    config.Set("sasl.mechanism", "PLAIN");
    config.Set("sasl.username", "$ConnectionString");
    config.Set("sasl.password", Trim(params["eventhubs.connectionstring"]));
    out.namespace_host = connection->endpoint_host;
  }
  if (auto it = params.find("eventhubs.namespace"); it != params.end()) {
    out.namespace_host = Lower(Trim(it->second));
    if (out.namespace_host.find('.') == std::string::npos) {
      out.namespace_host += std::string(kServiceBusSuffix);
    }
  } else if (out.namespace_host.empty() && out.event_hubs) {
    out.namespace_host = HostOfFirstServer(bootstrap);
  }
  if (entra_any) {
    std::string ns_host =
        out.namespace_host.empty() ? HostOfFirstServer(bootstrap) : out.namespace_host;
    WEIR_ASSIGN_OR_RETURN(OAuthClientCredentials oauth, ParseEntraCredentials(params, ns_host, env));
    out.redactor.AddSecret(oauth.client_secret);
    out.redactor.AddSecret(oauth.identity_header);
    out.oauth = std::move(oauth);
    config.Set("security.protocol", "SASL_SSL");
    config.Set("sasl.mechanism", "OAUTHBEARER");
  }
  if (out.event_hubs) {
    // Microsoft's recommended client settings for the Event Hubs Kafka endpoint; the user's
    // kafka.* options below still win.
    config.SetIfUnset("socket.keepalive.enable", "true");
    config.SetIfUnset("metadata.max.age.ms", "180000");
    config.SetIfUnset("connections.max.idle.ms", "180000");  // below Azure's 240 s idle cut-off
    config.SetIfUnset("socket.timeout.ms", "60000");         // Java request.timeout.ms 60000
    config.SetIfUnset("session.timeout.ms", "30000");
  }

  // User kafka.* properties: JAAS and OIDC translated, Java names renamed, Java-only ones dropped.
  std::optional<OAuthClientCredentials> jaas_oauth;
  for (const auto& [name, raw_value] : kafka_params) {
    const std::string& value = raw_value;
    if (name == "bootstrap.servers" || name == "group.id") continue;
    if (auto u = UnsupportedProperties().find(name); u != UnsupportedProperties().end()) {
      return Status::InvalidArgument("Kafka option 'kafka." + name + "' is not supported: " +
                                     u->second);
    }
    if (IgnoredProperties().count(name)) {
      out.notes.push_back("kafka." + name + " has no librdkafka equivalent and is ignored");
      continue;
    }
    if (name == "sasl.jaas.config") {
      auto jaas = ParseJaas(value);
      if (!jaas.ok()) return fail(jaas.status());
      const std::string& module = jaas->module;
      auto opt = [&](const char* k) {
        auto it = jaas->options.find(k);
        return it == jaas->options.end() ? std::string() : it->second;
      };
      if (EndsWith(module, "security.plain.PlainLoginModule") ||
          EndsWith(module, "security.scram.ScramLoginModule")) {
        config.Set("sasl.username", opt("username"));
        config.Set("sasl.password", opt("password"));
        out.redactor.AddSecret(opt("password"));
        if (EndsWith(module, "PlainLoginModule") && !kafka_params.count("sasl.mechanism")) {
          config.Set("sasl.mechanism", "PLAIN");
        }
        out.notes.push_back("kafka.sasl.jaas.config (" + module.substr(module.rfind('.') + 1) +
                            ") applied as librdkafka sasl.username/sasl.password");
      } else if (EndsWith(module, "security.oauthbearer.OAuthBearerLoginModule")) {
        OAuthClientCredentials oauth;
        oauth.client_id = opt("clientId");
        oauth.client_secret = opt("clientSecret");
        oauth.scope = opt("scope");
        out.redactor.AddSecret(oauth.client_secret);
        if (oauth.client_id.empty() || oauth.client_secret.empty()) {
          return Status::InvalidArgument(
              "kafka.sasl.jaas.config uses OAuthBearerLoginModule without clientId and "
              "clientSecret; weir supports the client-credentials flow only");
        }
        jaas_oauth = std::move(oauth);
      } else {
        return Status::InvalidArgument(
            "kafka.sasl.jaas.config uses login module '" + module +
            "', which weir does not support; use PlainLoginModule, ScramLoginModule or "
            "OAuthBearerLoginModule (with or without the kafkashaded. prefix)");
      }
      continue;
    }
    if (name == "sasl.oauthbearer.token.endpoint.url" || name == "sasl.oauthbearer.client.id" ||
        name == "sasl.oauthbearer.client.secret" || name == "sasl.oauthbearer.scope" ||
        name == "sasl.oauthbearer.method") {
      continue;  // collected below into weir's own OAuth client credentials
    }
    std::string target = name;
    if (auto r = RenamedProperties().find(name); r != RenamedProperties().end()) {
      target = r->second;
      out.notes.push_back("kafka." + name + " applied as librdkafka " + target);
    }
    config.Set(target, value);
  }
  // OAUTHBEARER with client credentials: from the JAAS module or librdkafka's own OIDC names.
  {
    auto get = [&](const char* k) {
      auto it = kafka_params.find(k);
      return it == kafka_params.end() ? std::string() : it->second;
    };
    bool oidc_props = !get("sasl.oauthbearer.token.endpoint.url").empty() ||
                      Lower(get("sasl.oauthbearer.method")) == "oidc";
    if (jaas_oauth || oidc_props) {
      OAuthClientCredentials oauth = jaas_oauth.value_or(OAuthClientCredentials{});
      if (!get("sasl.oauthbearer.client.id").empty()) oauth.client_id = get("sasl.oauthbearer.client.id");
      if (!get("sasl.oauthbearer.client.secret").empty()) {
        oauth.client_secret = get("sasl.oauthbearer.client.secret");
      }
      if (!get("sasl.oauthbearer.scope").empty()) oauth.scope = get("sasl.oauthbearer.scope");
      oauth.token_endpoint_url = get("sasl.oauthbearer.token.endpoint.url");
      out.redactor.AddSecret(oauth.client_secret);
      if (oauth.token_endpoint_url.empty() || oauth.client_id.empty() ||
          oauth.client_secret.empty()) {
        return Status::InvalidArgument(
            "OAUTHBEARER client credentials need kafka.sasl.oauthbearer.token.endpoint.url, a "
            "client id and a client secret");
      }
      if (out.oauth) {
        return Status::InvalidArgument(
            "set Entra ID credentials either with eventhubs.tenantId/clientId/clientSecret or "
            "with kafka.sasl.* options, not both");
      }
      out.oauth = std::move(oauth);
      config.SetIfUnset("security.protocol", "SASL_SSL");
      config.Set("sasl.mechanism", "OAUTHBEARER");
    }
  }

  // Validate every property against librdkafka now, so a typo fails before any connection.
  out.client_config = config.Take();
  rd_kafka_conf_t* probe = rd_kafka_conf_new();
  for (const auto& [name, value] : out.client_config) {
    char errstr[512];
    rd_kafka_conf_res_t res = rd_kafka_conf_set(probe, name.c_str(), value.c_str(), errstr,
                                                sizeof(errstr));
    if (res == RD_KAFKA_CONF_UNKNOWN) {
      rd_kafka_conf_destroy(probe);
      return Status::InvalidArgument(
          "Kafka option 'kafka." + name +
          "' is not a property of librdkafka, weir's Kafka client (see librdkafka's "
          "CONFIGURATION.md)");
    }
    if (res != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(probe);
      std::string shown = Redactor::IsSecretName(name) ? std::string(Redactor::kMask) : value;
      return fail(Status::InvalidArgument("invalid value '" + shown + "' for Kafka option 'kafka." +
                                          name + "': " + errstr));
    }
  }
  rd_kafka_conf_destroy(probe);
  return out;
}

}  // namespace weir::kafka
