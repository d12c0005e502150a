// KafkaSourceOptions: the Kafka source's options exactly as Spark names and validates them
// (KafkaSourceProvider), parsed from a case-insensitive string map, plus weir's Event Hubs
// options. `kafka.*` options become librdkafka properties (prefix removed, Java client names
// translated where librdkafka differs). Secrets are tracked by a Redactor so that no
// description, error or log line built from these options can contain them.
// Value type; thread-compatible. Parsing does no I/O.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "kafka/offsets.h"

namespace weir::kafka {

// Replaces secret values inside text with "***". Knows secrets by value (the password, the
// connection string, the client secret...) so it also cleans librdkafka's own messages.
class Redactor {
 public:
  static constexpr std::string_view kMask = "***";

  // True for option names whose values are never shown: names containing password, secret,
  // jaas, connectionstring, sasl, credential, or naming a private key (case-insensitive).
  static bool IsSecretName(std::string_view name);

  // Registers a secret value; empty and very short values (< 4 bytes) are ignored.
  void AddSecret(std::string_view value);
  // `text` with every registered secret replaced by kMask.
  std::string Scrub(std::string_view text) const;
  // Scrub(status.message()) with the same code.
  Status Scrub(const Status& status) const;

 private:
  std::vector<std::string> secrets_;  // longest first, so a secret containing another is masked whole
};

enum class QueryKind { kStreaming, kBatch };

// Which topic-partitions the source reads (Spark's ConsumerStrategy).
struct Subscription {
  enum class Kind { kSubscribe, kSubscribePattern, kAssign };
  Kind kind = Kind::kSubscribe;
  std::vector<std::string> topics;         // kSubscribe
  std::string pattern;                     // kSubscribePattern: unanchored regex (find, not match)
  std::vector<TopicPartition> partitions;  // kAssign, sorted

  // Spark's toString: "Subscribe[a, b]", "SubscribePattern[p]", "Assign[t-0, t-1]".
  std::string ToString() const;
};

// Where a query (or a batch read) starts or ends (Spark's KafkaOffsetRangeLimit).
struct OffsetSpec {
  enum class Kind { kEarliest, kLatest, kSpecificOffsets, kSpecificTimestamps, kGlobalTimestamp };
  Kind kind = Kind::kLatest;
  PartitionOffsets offsets;        // kSpecificOffsets; values may be kEarliestOffset/kLatestOffset
  PartitionTimestamps timestamps;  // kSpecificTimestamps
  int64_t timestamp_ms = 0;        // kGlobalTimestamp
};

// startingOffsetsByTimestampStrategy: what to do when no offset has a timestamp >= the one asked.
enum class NoMatchStrategy { kError, kLatest };

// How weir gets Entra ID tokens for OAUTHBEARER (kafka/oauth.h). librdkafka 2.0.2 from Debian
// has no OIDC support built in, so weir fetches the tokens itself.
enum class OAuthCredentialKind {
  kClientSecret,      // a service principal (eventhubs.clientSecret, or a JAAS
                      // OAuthBearerLoginModule with clientId/clientSecret)
  kWorkloadIdentity,  // AKS workload identity: a federated token file as the client assertion
  kManagedIdentity,   // the machine's managed identity (IMDS, or App Service's endpoint)
};

struct OAuthClientCredentials {
  OAuthCredentialKind kind = OAuthCredentialKind::kClientSecret;
  // kClientSecret, kWorkloadIdentity: https://login.microsoftonline.com/<tenant>/oauth2/v2.0/token
  std::string token_endpoint_url;
  // The application (client) id; kManagedIdentity: a user-assigned identity's client id, or empty.
  std::string client_id;
  std::string client_secret;  // secret; kClientSecret only
  std::string scope;          // https://<namespace>.servicebus.windows.net/.default
  std::string tenant_id;      // for messages
  std::string federated_token_file;  // kWorkloadIdentity: read again for every token
  // kManagedIdentity: a user-assigned identity by object (principal) id or ARM resource id.
  std::string managed_identity_object_id;
  std::string managed_identity_resource_id;
  // kManagedIdentity: IMDS' token URL (http://169.254.169.254/metadata/identity/oauth2/token), or
  // App Service's IDENTITY_ENDPOINT when identity_header is set.
  std::string managed_identity_endpoint;
  std::string identity_header;  // secret; App Service's IDENTITY_HEADER

  // The resource the token is for: the scope without "/.default".
  std::string Resource() const;
  // For messages, secret-free: "Entra ID application app-1 in tenant t (client secret)",
  // "the managed identity (user-assigned, client id ...)", ...
  std::string Describe() const;
};

// Looks up an environment variable (nullopt: unset or empty). Replaceable in tests.
using EnvironmentLookup = std::function<std::optional<std::string>(const std::string&)>;

struct KafkaSourceOptions {
  // Parses and validates. Errors are InvalidArgument with Spark's text where Spark has one
  // (NotImplemented for Databricks-only options), never containing a secret value.
  // The Entra ID credentials also read the Azure SDKs' environment variables (AZURE_CLIENT_ID,
  // AZURE_TENANT_ID, AZURE_FEDERATED_TOKEN_FILE, AZURE_AUTHORITY_HOST, IDENTITY_ENDPOINT,
  // IDENTITY_HEADER, AZURE_POD_IDENTITY_AUTHORITY_HOST) through `environment` (default: getenv).
  static Result<KafkaSourceOptions> Parse(const std::map<std::string, std::string>& options,
                                          QueryKind kind = QueryKind::kStreaming,
                                          const EnvironmentLookup& environment = nullptr);

  QueryKind kind = QueryKind::kStreaming;
  Subscription subscription;
  OffsetSpec starting;               // default: latest (streaming), earliest (batch)
  std::optional<OffsetSpec> ending;  // batch only; default latest
  NoMatchStrategy no_match_strategy = NoMatchStrategy::kError;
  bool fail_on_data_loss = true;
  std::optional<int64_t> max_offsets_per_trigger;
  std::optional<int64_t> min_offsets_per_trigger;
  int64_t max_trigger_delay_ms = 15 * 60 * 1000;
  std::optional<int32_t> min_partitions;
  std::optional<int64_t> max_records_per_partition;
  bool include_headers = false;
  std::string group_id_prefix = "spark-kafka-source";
  std::optional<std::string> group_id;  // kafka.group.id (overrides groupIdPrefix)
  int64_t poll_timeout_ms = 120000;     // kafkaConsumer.pollTimeoutMs (spark.network.timeout)
  int32_t fetch_offset_num_retries = 3;
  int64_t fetch_offset_retry_interval_ms = 1000;
  std::optional<OAuthClientCredentials> oauth;  // Entra ID / OAUTHBEARER credentials
  bool event_hubs = false;                      // bootstrap host is *.servicebus.windows.net
  // The Event Hubs namespace host errors name ("ns.servicebus.windows.net"): the connection
  // string's endpoint, eventhubs.namespace, or the bootstrap host; empty when none is known.
  std::string namespace_host;
  // weir.commitOffsetsToGroup: after each committed batch its end offsets are also committed to
  // this consumer group (best effort, for external lag monitors; never read back).
  std::optional<std::string> commit_offsets_to_group;

  // librdkafka properties in the order they must be applied (defaults first, user's last).
  std::vector<std::pair<std::string, std::string>> client_config;
  // Human-readable notes on translations and ignored options (secret-free), e.g.
  // "kafka.request.timeout.ms applied as librdkafka socket.timeout.ms".
  std::vector<std::string> notes;
  Redactor redactor;

  // The librdkafka value of `name`, if set.
  std::optional<std::string> ClientConfig(std::string_view name) const;
  std::string BootstrapServers() const;
  // All options as given, secrets masked: "failOnDataLoss=false, kafka.sasl.jaas.config=***".
  std::string ToString() const;
  // A consumer group id: kafka.group.id, else "<groupIdPrefix>-<random uuid>".
  std::string MakeGroupId() const;

  std::vector<std::pair<std::string, std::string>> given;  // original (name, value) pairs
};

// Spark's duration strings (JavaUtils.timeStringAs): "15m", "10s", "100ms", "250us", "1h",
// "2d", "5min"; a bare number is milliseconds.
Result<int64_t> ParseDurationMs(std::string_view text);

// Event Hubs connection string fields. Parse errors never echo the value.
struct EventHubsConnectionString {
  std::string endpoint_host;  // "ns.servicebus.windows.net"
  std::string shared_access_key_name;
  std::string shared_access_key;
  std::optional<std::string> entity_path;
  static Result<EventHubsConnectionString> Parse(std::string_view text);
};

}  // namespace weir::kafka
