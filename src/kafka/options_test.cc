#include "kafka/options.h"

#include <gtest/gtest.h>

#include "base/testing.h"

namespace weir::kafka {
namespace {

using Map = std::map<std::string, std::string>;

Map Base(Map extra = {}) {
  Map m = {{"kafka.bootstrap.servers", "localhost:9092"}, {"subscribe", "orders"}};
  for (auto& [k, v] : extra) m[k] = v;
  return m;
}

Status ParseError(const Map& m, QueryKind kind = QueryKind::kStreaming) {
  auto r = KafkaSourceOptions::Parse(m, kind);
  return r.ok() ? Status::OK() : r.status();
}

TEST(OptionsTest, DefaultsAreSparks) {
  ASSERT_OK_AND_ASSIGN(auto o, KafkaSourceOptions::Parse(Base()));
  EXPECT_EQ(o.subscription.kind, Subscription::Kind::kSubscribe);
  EXPECT_EQ(o.subscription.topics, std::vector<std::string>{"orders"});
  EXPECT_EQ(o.starting.kind, OffsetSpec::Kind::kLatest);
  EXPECT_FALSE(o.ending.has_value());
  EXPECT_TRUE(o.fail_on_data_loss);
  EXPECT_FALSE(o.max_offsets_per_trigger.has_value());
  EXPECT_EQ(o.max_trigger_delay_ms, 15 * 60 * 1000);
  EXPECT_FALSE(o.include_headers);
  EXPECT_EQ(o.group_id_prefix, "spark-kafka-source");
  EXPECT_EQ(o.poll_timeout_ms, 120000);
  EXPECT_EQ(o.no_match_strategy, NoMatchStrategy::kError);
  EXPECT_EQ(o.BootstrapServers(), "localhost:9092");
  EXPECT_FALSE(o.event_hubs);
  EXPECT_EQ(o.MakeGroupId().rfind("spark-kafka-source-", 0), 0u);
  EXPECT_EQ(o.MakeGroupId().size(), std::string("spark-kafka-source-").size() + 36);
  ASSERT_OK_AND_ASSIGN(auto batch, KafkaSourceOptions::Parse(Base(), QueryKind::kBatch));
  EXPECT_EQ(batch.starting.kind, OffsetSpec::Kind::kEarliest);
  EXPECT_EQ(batch.ending->kind, OffsetSpec::Kind::kLatest);
}

TEST(OptionsTest, KeysAreCaseInsensitive) {
  ASSERT_OK_AND_ASSIGN(auto o, KafkaSourceOptions::Parse(
                                   {{"KAFKA.Bootstrap.Servers", "h:1"},
                                    {"SubscribePattern", "ord.*"},
                                    {"FAILONDATALOSS", "False"},
                                    {"maxoffsetspertrigger", "500000"},
                                    {"StartingOffsets", "EARLIEST"},
                                    {"includeheaders", "TRUE"}}));
  EXPECT_EQ(o.subscription.kind, Subscription::Kind::kSubscribePattern);
  EXPECT_EQ(o.subscription.pattern, "ord.*");
  EXPECT_FALSE(o.fail_on_data_loss);
  EXPECT_EQ(*o.max_offsets_per_trigger, 500000);
  EXPECT_EQ(o.starting.kind, OffsetSpec::Kind::kEarliest);
  EXPECT_TRUE(o.include_headers);
  EXPECT_EQ(o.BootstrapServers(), "h:1");
}

TEST(OptionsTest, ExactlyOneSubscriptionStrategy) {
  auto st = ParseError({{"kafka.bootstrap.servers", "h:1"}});
  EXPECT_EQ(st.message(),
            "One of the following options must be specified for Kafka source: subscribe, "
            "subscribepattern, assign. See the docs for more details.");
  st = ParseError(Base({{"assign", R"({"t":[0]})"}}));
  EXPECT_EQ(st.message(),
            "Only one of the following options can be specified for Kafka source: subscribe, "
            "subscribepattern, assign. See the docs for more details.");
  st = ParseError({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", " , "}});
  EXPECT_EQ(st.message(),
            "No topics to subscribe to as specified value for option 'subscribe' is ' , '");
  st = ParseError({{"kafka.bootstrap.servers", "h:1"}, {"subscribePattern", "  "}});
  EXPECT_EQ(st.message(), "Pattern to subscribe is empty as specified value for option "
                          "'subscribePattern' is '  '");
  st = ParseError({{"kafka.bootstrap.servers", "h:1"}, {"assign", "t:0"}});
  EXPECT_EQ(st.message(),
            "No topicpartitions to assign as specified value for option 'assign' is 't:0'");
  ASSERT_OK_AND_ASSIGN(auto o, KafkaSourceOptions::Parse(
                                   {{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "a, b,,c"}}));
  EXPECT_EQ(o.subscription.topics, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(o.subscription.ToString(), "Subscribe[a, b, c]");
}

TEST(OptionsTest, AssignWithStartingOffsetsMustListEveryPartition) {
  Map m = {{"kafka.bootstrap.servers", "h:1"}, {"assign", R"({"t":[0,1]})"}};
  ASSERT_OK_AND_ASSIGN(auto o, KafkaSourceOptions::Parse(m));
  EXPECT_EQ(o.subscription.ToString(), "Assign[t-0, t-1]");
  m["startingOffsets"] = R"({"t":{"0":23,"1":-2}})";
  ASSERT_OK_AND_ASSIGN(o, KafkaSourceOptions::Parse(m));
  EXPECT_EQ(o.starting.kind, OffsetSpec::Kind::kSpecificOffsets);
  EXPECT_EQ(o.starting.offsets.at(TopicPartition{"t", 1}), kEarliestOffset);
  m["startingOffsets"] = R"({"t":{"0":23}})";
  auto st = ParseError(m);
  ASSERT_TRUE(st.IsInvalidArgument());
  EXPECT_EQ(st.message(),
            "Partitions specified for Kafka start offsets don't match what are assigned. Maybe "
            "topic partitions are created or deleted while the query is running. Use -1 for "
            "latest, -2 for earliest. Specified: Set(t-0) Assigned: Set(t-0, t-1)");
  m["startingOffsets"] = "{bad";
  st = ParseError(m);
  EXPECT_EQ(st.message(),
            R"(Expected e.g. {"topicA":{"0":23,"1":-1},"topicB":{"0":-2}}, got {bad)");
}

TEST(OptionsTest, StartingPositionPreference) {
  // startingTimestamp > startingOffsetsByTimestamp > startingOffsets.
  ASSERT_OK_AND_ASSIGN(auto o, KafkaSourceOptions::Parse(Base(
                                   {{"startingTimestamp", " 1700000000000 "},
                                    {"startingOffsetsByTimestamp", R"({"orders":{"0":5}})"},
                                    {"startingOffsets", "earliest"},
                                    {"startingOffsetsByTimestampStrategy", "LATEST"}})));
  EXPECT_EQ(o.starting.kind, OffsetSpec::Kind::kGlobalTimestamp);
  EXPECT_EQ(o.starting.timestamp_ms, 1700000000000);
  EXPECT_EQ(o.no_match_strategy, NoMatchStrategy::kLatest);
  ASSERT_OK_AND_ASSIGN(o, KafkaSourceOptions::Parse(Base(
                              {{"startingOffsetsByTimestamp", R"({"orders":{"0":5}})"},
                               {"startingOffsets", "earliest"}})));
  EXPECT_EQ(o.starting.kind, OffsetSpec::Kind::kSpecificTimestamps);
  EXPECT_EQ(o.starting.timestamps.at(TopicPartition{"orders", 0}), 5);
  EXPECT_EQ(ParseError(Base({{"startingTimestamp", "yesterday"}})).message(),
            "Expected a single long value, got yesterday");
  EXPECT_TRUE(ParseError(Base({{"startingOffsetsByTimestampStrategy", "oldest"}})).IsInvalidArgument());
}

TEST(OptionsTest, EndingOffsetsOnlyInBatch) {
  EXPECT_EQ(ParseError(Base({{"endingOffsets", "latest"}})).message(),
            "ending offset not valid in streaming queries");
  EXPECT_EQ(ParseError(Base({{"endingOffsetsByTimestamp", "{}"}})).message(),
            "ending timestamp not valid in streaming queries");
  EXPECT_EQ(ParseError(Base({{"endingTimestamp", "5"}})).message(),
            "ending timestamp not valid in streaming queries");
  ASSERT_OK_AND_ASSIGN(auto o, KafkaSourceOptions::Parse(
                                   Base({{"endingOffsets", R"({"orders":{"0":50}})"},
                                         {"maxOffsetsPerTrigger", "5"}}),
                                   QueryKind::kBatch));
  EXPECT_EQ(o.ending->offsets.at(TopicPartition{"orders", 0}), 50);
  EXPECT_EQ(o.group_id_prefix, "spark-kafka-relation");
  EXPECT_EQ(o.notes.back(), "maxOffsetsPerTrigger option ignored in batch queries");
  EXPECT_EQ(ParseError(Base({{"startingOffsets", "latest"}}), QueryKind::kBatch).message(),
            "starting offset can't be latest for batch queries on Kafka");
  EXPECT_EQ(ParseError(Base({{"startingOffsets", R"({"orders":{"0":-1}})"}}), QueryKind::kBatch)
                .message(),
            "startingOffsets for orders-0 can't be latest for batch queries on Kafka");
  EXPECT_EQ(ParseError(Base({{"endingOffsets", "earliest"}}), QueryKind::kBatch).message(),
            "ending offset can't be earliest for batch queries on Kafka");
  EXPECT_EQ(ParseError(Base({{"endingOffsets", R"({"orders":{"0":-2}})"}}), QueryKind::kBatch)
                .message(),
            "ending offset for orders-0 can't be earliest for batch queries on Kafka");
}

TEST(OptionsTest, RateLimitOptions) {
  ASSERT_OK_AND_ASSIGN(auto o, KafkaSourceOptions::Parse(Base({{"minOffsetsPerTrigger", "10"},
                                                                {"maxOffsetsPerTrigger", "20"},
                                                                {"maxTriggerDelay", "30s"}})));
  EXPECT_EQ(*o.min_offsets_per_trigger, 10);
  EXPECT_EQ(*o.max_offsets_per_trigger, 20);
  EXPECT_EQ(o.max_trigger_delay_ms, 30000);
  EXPECT_EQ(ParseError(Base({{"minOffsetsPerTrigger", "30"}, {"maxOffsetsPerTrigger", "20"}}))
                .message(),
            "The value of minOffsetPerTrigger(30) is higher than the maxOffsetsPerTrigger(20).");
  EXPECT_EQ(ParseError(Base({{"maxOffsetsPerTrigger", "lots"}})).message(),
            "option maxOffsetsPerTrigger expects an integer, got 'lots'");
  EXPECT_TRUE(ParseError(Base({{"maxOffsetsPerTrigger", "0"}})).IsInvalidArgument());
  EXPECT_TRUE(ParseError(Base({{"maxTriggerDelay", "5 parsecs"}})).IsInvalidArgument());
}

TEST(OptionsTest, SparkDurationStrings) {
  EXPECT_EQ(*ParseDurationMs("15m"), 900000);
  EXPECT_EQ(*ParseDurationMs("5min"), 300000);
  EXPECT_EQ(*ParseDurationMs(" 10S "), 10000);
  EXPECT_EQ(*ParseDurationMs("100ms"), 100);
  EXPECT_EQ(*ParseDurationMs("2500us"), 2);
  EXPECT_EQ(*ParseDurationMs("1h"), 3600000);
  EXPECT_EQ(*ParseDurationMs("1d"), 86400000);
  EXPECT_EQ(*ParseDurationMs("42"), 42);
  auto bad = ParseDurationMs("10y");
  ASSERT_STATUS_CODE(kInvalidArgument, bad);
  EXPECT_NE(bad.status().message().find("Invalid suffix: \"y\""), std::string::npos);
  EXPECT_NE(bad.status().message().find("Time must be specified as seconds (s)"),
            std::string::npos);
  ASSERT_STATUS_CODE(kInvalidArgument, ParseDurationMs("m"));
}

TEST(OptionsTest, PartitionSplitting) {
  ASSERT_OK_AND_ASSIGN(auto o, KafkaSourceOptions::Parse(Base({{"minPartitions", "64"},
                                                                {"maxRecordsPerPartition", "1000"}})));
  EXPECT_EQ(*o.min_partitions, 64);
  EXPECT_EQ(*o.max_records_per_partition, 1000);
  EXPECT_EQ(ParseError(Base({{"minPartitions", "0"}})).message(), "minPartitions must be positive");
  EXPECT_EQ(ParseError(Base({{"maxRecordsPerPartition", "-1"}})).message(),
            "maxrecordsperpartition must be positive");
}

TEST(OptionsTest, BooleansAndGroupIds) {
  EXPECT_EQ(ParseError(Base({{"failOnDataLoss", "yes"}})).message(),
            "option failOnDataLoss expects true or false, got 'yes'");
  ASSERT_OK_AND_ASSIGN(auto o, KafkaSourceOptions::Parse(Base({{"groupIdPrefix", "weir-test"}})));
  EXPECT_EQ(o.MakeGroupId().rfind("weir-test-", 0), 0u);
  EXPECT_NE(o.MakeGroupId(), o.MakeGroupId());
  ASSERT_OK_AND_ASSIGN(o, KafkaSourceOptions::Parse(
                              Base({{"kafka.group.id", "authorized"}, {"groupIdPrefix", "x"}})));
  EXPECT_EQ(o.MakeGroupId(), "authorized");
  ASSERT_EQ(o.notes.size(), 2u);
  EXPECT_EQ(o.notes[0].rfind("Kafka option 'kafka.group.id' has been set on this query", 0), 0u);
  EXPECT_EQ(o.notes[1], "Option groupIdPrefix will be ignored as option kafka.group.id has been set.");
}

TEST(OptionsTest, RejectsWhatSparkRejects) {
  auto st = ParseError(Base({{"kafka.auto.offset.reset", "earliest"}}));
  EXPECT_EQ(st.message().rfind("Kafka option 'auto.offset.reset' is not supported. Instead set the "
                               "source option 'startingoffsets' to 'earliest' or 'latest'",
                               0),
            0u);
  EXPECT_EQ(ParseError(Base({{"kafka.key.deserializer", "x"}})).message(),
            "Kafka option 'key.deserializer' is not supported as keys are deserialized as byte "
            "arrays with ByteArrayDeserializer. Use DataFrame operations to explicitly deserialize "
            "the keys.");
  EXPECT_EQ(ParseError(Base({{"kafka.value.deserializer", "x"}})).message(),
            "Kafka option 'value.deserializer' is not supported as values are deserialized as byte "
            "arrays with ByteArrayDeserializer. Use DataFrame operations to explicitly deserialize "
            "the values.");
  EXPECT_EQ(ParseError(Base({{"kafka.enable.auto.commit", "true"}})).message(),
            "Kafka option 'enable.auto.commit' is not supported");
  EXPECT_EQ(ParseError(Base({{"kafka.interceptor.classes", "x"}})).message(),
            "Kafka option 'interceptor.classes' is not supported");
  EXPECT_EQ(ParseError({{"subscribe", "t"}}).message(),
            "Option 'kafka.bootstrap.servers' must be specified for configuring Kafka consumer");
}

TEST(OptionsTest, UnknownOptionsListTheValidOnes) {
  auto st = ParseError(Base({{"maxOfsetsPerTrigger", "5"}}));
  ASSERT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("unknown Kafka source option 'maxOfsetsPerTrigger'"), std::string::npos);
  EXPECT_NE(st.message().find("valid options: assign, subscribe, subscribePattern, startingOffsets"),
            std::string::npos);
  st = ParseError(Base({{"group.id", "g"}}));
  EXPECT_NE(st.message().find("did you mean 'kafka.group.id'?"), std::string::npos);
  st = ParseError(Base({{"kafka.no.such.property", "1"}}));
  EXPECT_EQ(st.message(), "Kafka option 'kafka.no.such.property' is not a property of librdkafka, "
                          "weir's Kafka client (see librdkafka's CONFIGURATION.md)");
  st = ParseError(Base({{"kafka.socket.timeout.ms", "soon"}}));
  EXPECT_NE(st.message().find("invalid value 'soon' for Kafka option 'kafka.socket.timeout.ms'"),
            std::string::npos);
  st = ParseError(Base({{"databricks.serviceCredential", "evh_reader"}}));
  EXPECT_TRUE(st.IsNotImplemented());
  EXPECT_NE(st.message().find("eventhubs.tenantId"), std::string::npos);
}

TEST(OptionsTest, JavaClientNamesAreTranslated) {
  ASSERT_OK_AND_ASSIGN(auto o, KafkaSourceOptions::Parse(Base(
                                   {{"kafka.request.timeout.ms", "60000"},
                                    {"kafka.session.timeout.ms", "30000"},
                                    {"kafka.fetch.max.wait.ms", "250"},
                                    {"kafka.receive.buffer.bytes", "65536"},
                                    {"kafka.max.poll.records", "500"},
                                    {"kafka.isolation.level", "read_committed"},
                                    {"kafka.client.dns.lookup", "use_all_dns_ips"}})));
  EXPECT_EQ(*o.ClientConfig("socket.timeout.ms"), "60000");
  EXPECT_FALSE(o.ClientConfig("request.timeout.ms").has_value());
  EXPECT_EQ(*o.ClientConfig("session.timeout.ms"), "30000");
  EXPECT_EQ(*o.ClientConfig("fetch.wait.max.ms"), "250");
  EXPECT_EQ(*o.ClientConfig("socket.receive.buffer.bytes"), "65536");
  EXPECT_EQ(*o.ClientConfig("isolation.level"), "read_committed");
  EXPECT_FALSE(o.ClientConfig("max.poll.records").has_value());
  EXPECT_FALSE(o.ClientConfig("client.dns.lookup").has_value());
  EXPECT_TRUE(ParseError(Base({{"kafka.ssl.truststore.location", "/x.jks"}})).IsInvalidArgument());
}

constexpr const char* kConnectionString =
    "Endpoint=sb://contoso-orders.servicebus.windows.net/;SharedAccessKeyName=listen;"
    "SharedAccessKey=c2VjcmV0LWtleS12YWx1ZQ+abc=";

TEST(OptionsTest, JaasPlainLoginModuleBecomesUsernameAndPassword) {
  // The DLT Event Hubs example's options, shaded class name and all.
  std::string jaas = std::string("kafkashaded.org.apache.kafka.common.security.plain.PlainLoginModule "
                                 "required username=\"$ConnectionString\" password=\"") +
                     kConnectionString + "\";";
  ASSERT_OK_AND_ASSIGN(auto o, KafkaSourceOptions::Parse(
                                   {{"kafka.bootstrap.servers", "contoso-orders.servicebus.windows.net:9093"},
                                    {"subscribe", "orders"},
                                    {"kafka.sasl.mechanism", "PLAIN"},
                                    {"kafka.security.protocol", "SASL_SSL"},
                                    {"kafka.sasl.jaas.config", jaas},
                                    {"kafka.request.timeout.ms", "60000"},
                                    {"kafka.session.timeout.ms", "30000"}}));
  EXPECT_EQ(*o.ClientConfig("sasl.username"), "$ConnectionString");
  EXPECT_EQ(*o.ClientConfig("sasl.password"), kConnectionString);
  EXPECT_EQ(*o.ClientConfig("security.protocol"), "SASL_SSL");
  EXPECT_FALSE(o.ClientConfig("sasl.jaas.config").has_value());
  EXPECT_TRUE(o.event_hubs);
  // Microsoft's recommended settings for the Event Hubs endpoint.
  EXPECT_EQ(*o.ClientConfig("metadata.max.age.ms"), "180000");
  EXPECT_EQ(*o.ClientConfig("connections.max.idle.ms"), "180000");
  EXPECT_EQ(*o.ClientConfig("socket.keepalive.enable"), "true");
  EXPECT_EQ(*o.ClientConfig("socket.timeout.ms"), "60000");
  // Unshaded names work too.
  std::string plain = "org.apache.kafka.common.security.plain.PlainLoginModule required "
                      "username='u' password=\"p4ssw0rd\";";
  ASSERT_OK_AND_ASSIGN(o, KafkaSourceOptions::Parse(Base({{"kafka.sasl.jaas.config", plain}})));
  EXPECT_EQ(*o.ClientConfig("sasl.password"), "p4ssw0rd");
  EXPECT_EQ(*o.ClientConfig("sasl.mechanism"), "PLAIN");
  auto st = ParseError(Base({{"kafka.sasl.jaas.config",
                              "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true;"}}));
  EXPECT_NE(st.message().find("Krb5LoginModule"), std::string::npos);
}

TEST(OptionsTest, EventHubsConnectionString) {
  ASSERT_OK_AND_ASSIGN(auto o, KafkaSourceOptions::Parse(
                                   {{"eventhubs.connectionString",
                                     std::string(kConnectionString) + ";EntityPath=orders"}}));
  EXPECT_EQ(o.BootstrapServers(), "contoso-orders.servicebus.windows.net:9093");
  EXPECT_EQ(o.subscription.topics, std::vector<std::string>{"orders"});
  EXPECT_EQ(*o.ClientConfig("security.protocol"), "SASL_SSL");
  EXPECT_EQ(*o.ClientConfig("sasl.mechanism"), "PLAIN");
  EXPECT_EQ(*o.ClientConfig("sasl.username"), "$ConnectionString");
  EXPECT_EQ(*o.ClientConfig("sasl.password"), std::string(kConnectionString) + ";EntityPath=orders");
  EXPECT_TRUE(o.event_hubs);
  EXPECT_EQ(*o.ClientConfig("session.timeout.ms"), "30000");
  // User settings win over Microsoft's defaults.
  ASSERT_OK_AND_ASSIGN(o, KafkaSourceOptions::Parse({{"eventhubs.connectionString", kConnectionString},
                                                     {"subscribe", "orders"},
                                                     {"kafka.metadata.max.age.ms", "60000"}}));
  EXPECT_EQ(*o.ClientConfig("metadata.max.age.ms"), "60000");
  auto st = ParseError({{"eventhubs.connectionString", "Endpoint=sb://x/;SharedAccessKeyName=k"},
                        {"subscribe", "t"}});
  EXPECT_TRUE(st.IsInvalidArgument());
  st = ParseError({{"eventhubs.connectionString", kConnectionString},
                   {"subscribe", "t"},
                   {"kafka.sasl.jaas.config", "x"}});
  EXPECT_NE(st.message().find("do not also set"), std::string::npos);
}

TEST(OptionsTest, EntraIdClientCredentials) {
  ASSERT_OK_AND_ASSIGN(auto o, KafkaSourceOptions::Parse(
                                   {{"kafka.bootstrap.servers", "contoso-orders.servicebus.windows.net:9093"},
                                    {"subscribe", "orders"},
                                    {"eventhubs.tenantId", "tenant-1"},
                                    {"eventhubs.clientId", "app-1"},
                                    {"eventhubs.clientSecret", "s3cr3t-value"}}));
  ASSERT_TRUE(o.oauth.has_value());
  EXPECT_EQ(o.oauth->token_endpoint_url,
            "https://login.microsoftonline.com/tenant-1/oauth2/v2.0/token");
  EXPECT_EQ(o.oauth->scope, "https://contoso-orders.servicebus.windows.net/.default");
  EXPECT_EQ(o.oauth->client_id, "app-1");
  EXPECT_EQ(*o.ClientConfig("sasl.mechanism"), "OAUTHBEARER");
  EXPECT_EQ(*o.ClientConfig("security.protocol"), "SASL_SSL");
  EXPECT_TRUE(ParseError({{"kafka.bootstrap.servers", "h:1"},
                          {"subscribe", "t"},
                          {"eventhubs.clientId", "app"}})
                  .IsInvalidArgument());
  // Databricks' JAAS form for Entra ID (14.3 LTS+).
  ASSERT_OK_AND_ASSIGN(
      o, KafkaSourceOptions::Parse(
             {{"kafka.bootstrap.servers", "ns.servicebus.windows.net:9093"},
              {"subscribe", "orders"},
              {"kafka.security.protocol", "SASL_SSL"},
              {"kafka.sasl.mechanism", "OAUTHBEARER"},
              {"kafka.sasl.jaas.config",
               "kafkashaded.org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule "
               "required clientId=\"app-2\" clientSecret=\"an0ther-s3cret\" "
               "scope=\"https://ns.servicebus.windows.net/.default\" ssl.protocol=\"SSL\";"},
              {"kafka.sasl.oauthbearer.token.endpoint.url",
               "https://login.microsoft.com/t2/oauth2/v2.0/token"},
              {"kafka.sasl.login.callback.handler.class",
               "kafkashaded.org.apache.kafka.common.security.oauthbearer.secured."
               "OAuthBearerLoginCallbackHandler"}}));
  ASSERT_TRUE(o.oauth.has_value());
  EXPECT_EQ(o.oauth->client_secret, "an0ther-s3cret");
  EXPECT_EQ(o.oauth->token_endpoint_url, "https://login.microsoft.com/t2/oauth2/v2.0/token");
  EXPECT_EQ(o.oauth->scope, "https://ns.servicebus.windows.net/.default");
}

// An environment for the Azure SDKs' variables (tests do not touch the process's own).
EnvironmentLookup Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

Map EventHubs(Map extra) {
  Map m{{"kafka.bootstrap.servers", "contoso-orders.servicebus.windows.net:9093"},
        {"subscribe", "orders"}};
  for (auto& [k, v] : extra) m[k] = v;
  return m;
}

TEST(OptionsTest, ManagedIdentityFromImds) {
  ASSERT_OK_AND_ASSIGN(auto o, KafkaSourceOptions::Parse(
                                   EventHubs({{"eventhubs.credential", "managedIdentity"}}),
                                   QueryKind::kStreaming, Env({})));
  ASSERT_TRUE(o.oauth.has_value());
  EXPECT_EQ(o.oauth->kind, OAuthCredentialKind::kManagedIdentity);
  EXPECT_EQ(o.oauth->managed_identity_endpoint,
            "http://169.254.169.254/metadata/identity/oauth2/token");
  EXPECT_EQ(o.oauth->Resource(), "https://contoso-orders.servicebus.windows.net");
  EXPECT_EQ(o.oauth->client_id, "");
  EXPECT_EQ(*o.ClientConfig("sasl.mechanism"), "OAUTHBEARER");
  EXPECT_EQ(o.namespace_host, "contoso-orders.servicebus.windows.net");
  // A user-assigned identity (Azure Functions' style: clientId with credential=managedidentity);
  // the IMDS host moved (the Azure SDKs' AZURE_POD_IDENTITY_AUTHORITY_HOST).
  ASSERT_OK_AND_ASSIGN(o, KafkaSourceOptions::Parse(
                              EventHubs({{"eventhubs.credential", "managedidentity"},
                                         {"eventhubs.clientId", "uami-1"}}),
                              QueryKind::kStreaming,
                              Env({{"AZURE_POD_IDENTITY_AUTHORITY_HOST", "http://127.0.0.1:9/"}})));
  EXPECT_EQ(o.oauth->client_id, "uami-1");
  EXPECT_EQ(o.oauth->managed_identity_endpoint, "http://127.0.0.1:9/metadata/identity/oauth2/token");
  ASSERT_OK_AND_ASSIGN(o, KafkaSourceOptions::Parse(
                              EventHubs({{"eventhubs.managedIdentityResourceId", "/subscriptions/x"}}),
                              QueryKind::kStreaming, Env({})));
  EXPECT_EQ(o.oauth->kind, OAuthCredentialKind::kManagedIdentity);
  EXPECT_EQ(o.oauth->managed_identity_resource_id, "/subscriptions/x");
  // App Service / Functions: IDENTITY_ENDPOINT and IDENTITY_HEADER (a secret).
  ASSERT_OK_AND_ASSIGN(o, KafkaSourceOptions::Parse(
                              EventHubs({{"eventhubs.credential", "managedIdentity"}}),
                              QueryKind::kStreaming,
                              Env({{"IDENTITY_ENDPOINT", "http://localhost:8081/msi/token"},
                                   {"IDENTITY_HEADER", "header-secret-value"}})));
  EXPECT_EQ(o.oauth->managed_identity_endpoint, "http://localhost:8081/msi/token");
  EXPECT_EQ(o.redactor.Scrub("x header-secret-value"), "x ***");

  auto st = KafkaSourceOptions::Parse(EventHubs({{"eventhubs.credential", "managedIdentity"},
                                                 {"eventhubs.clientId", "a"},
                                                 {"eventhubs.managedIdentityObjectId", "b"}}),
                                      QueryKind::kStreaming, Env({}));
  ASSERT_STATUS_CODE(kInvalidArgument, st);
  EXPECT_NE(st.status().message().find("not several"), std::string::npos);
  st = KafkaSourceOptions::Parse(EventHubs({{"eventhubs.credential", "managedIdentity"},
                                            {"eventhubs.clientSecret", "s3cret-val"}}),
                                 QueryKind::kStreaming, Env({}));
  ASSERT_STATUS_CODE(kInvalidArgument, st);
  EXPECT_NE(st.status().message().find("eventhubs.clientSecret does not apply"), std::string::npos);
  EXPECT_EQ(st.status().message().find("s3cret-val"), std::string::npos);
  st = KafkaSourceOptions::Parse(EventHubs({{"eventhubs.credential", "certificate"}}),
                                 QueryKind::kStreaming, Env({}));
  ASSERT_STATUS_CODE(kInvalidArgument, st);
}

TEST(OptionsTest, WorkloadIdentityFromTheAksEnvironment) {
  auto aks = Env({{"AZURE_CLIENT_ID", "app-wi"},
                  {"AZURE_TENANT_ID", "tenant-wi"},
                  {"AZURE_FEDERATED_TOKEN_FILE", "/var/run/secrets/azure/tokens/azure-identity-token"},
                  {"AZURE_AUTHORITY_HOST", "https://login.microsoftonline.com/"}});
  ASSERT_OK_AND_ASSIGN(auto o, KafkaSourceOptions::Parse(
                                   EventHubs({{"eventhubs.credential", "workloadIdentity"}}),
                                   QueryKind::kStreaming, aks));
  ASSERT_TRUE(o.oauth.has_value());
  EXPECT_EQ(o.oauth->kind, OAuthCredentialKind::kWorkloadIdentity);
  EXPECT_EQ(o.oauth->client_id, "app-wi");
  EXPECT_EQ(o.oauth->token_endpoint_url,
            "https://login.microsoftonline.com/tenant-wi/oauth2/v2.0/token");
  EXPECT_EQ(o.oauth->federated_token_file, "/var/run/secrets/azure/tokens/azure-identity-token");
  EXPECT_EQ(o.oauth->scope, "https://contoso-orders.servicebus.windows.net/.default");
  // Options win over the environment; a sovereign cloud's authority host.
  ASSERT_OK_AND_ASSIGN(o, KafkaSourceOptions::Parse(
                              EventHubs({{"eventhubs.credential", "workloadIdentity"},
                                         {"eventhubs.clientId", "app-2"},
                                         {"eventhubs.authorityHost", "login.microsoftonline.us"}}),
                              QueryKind::kStreaming, aks));
  EXPECT_EQ(o.oauth->client_id, "app-2");
  EXPECT_EQ(o.oauth->token_endpoint_url,
            "https://login.microsoftonline.us/tenant-wi/oauth2/v2.0/token");
  auto st = KafkaSourceOptions::Parse(EventHubs({{"eventhubs.credential", "workloadIdentity"}}),
                                      QueryKind::kStreaming, Env({{"AZURE_CLIENT_ID", "a"}}));
  ASSERT_STATUS_CODE(kInvalidArgument, st);
  EXPECT_NE(st.status().message().find("AZURE_TENANT_ID"), std::string::npos);
  EXPECT_NE(st.status().message().find("AZURE_FEDERATED_TOKEN_FILE"), std::string::npos);
  // The authority host gets the request's secret: https, or http to loopback only.
  st = KafkaSourceOptions::Parse(EventHubs({{"eventhubs.tenantId", "t"},
                                            {"eventhubs.clientId", "c"},
                                            {"eventhubs.clientSecret", "s3cret-val"},
                                            {"eventhubs.authorityHost", "http://login.example.com"}}),
                                 QueryKind::kStreaming, Env({}));
  ASSERT_STATUS_CODE(kInvalidArgument, st);
  ASSERT_OK_AND_ASSIGN(o, KafkaSourceOptions::Parse(
                              EventHubs({{"eventhubs.tenantId", "t"},
                                         {"eventhubs.clientId", "c"},
                                         {"eventhubs.clientSecret", "s3cret-val"}}),
                              QueryKind::kStreaming,
                              Env({{"AZURE_AUTHORITY_HOST", "http://127.0.0.1:8080"}})));
  EXPECT_EQ(o.oauth->token_endpoint_url, "http://127.0.0.1:8080/t/oauth2/v2.0/token");
}

TEST(OptionsTest, SecretsNeverAppearInDescriptionsOrErrors) {
  const std::string secret = "c2VjcmV0LWtleS12YWx1ZQ+abc=";
  ASSERT_OK_AND_ASSIGN(auto o, KafkaSourceOptions::Parse(
                                   {{"eventhubs.connectionString", kConnectionString},
                                    {"subscribe", "orders"},
                                    {"failOnDataLoss", "false"}}));
  std::string text = o.ToString();
  EXPECT_EQ(text.find(secret), std::string::npos) << text;
  EXPECT_NE(text.find("eventhubs.connectionString=***"), std::string::npos);
  EXPECT_NE(text.find("failOnDataLoss=false"), std::string::npos);
  EXPECT_EQ(o.redactor.Scrub("auth failed for " + std::string(kConnectionString)),
            "auth failed for ***");
  EXPECT_EQ(o.redactor.Scrub("key " + secret + " rejected"), "key *** rejected");

  // An invalid value of a secret-named option is not echoed.
  auto st = ParseError(Base({{"kafka.ssl.key.password", ""}, {"kafka.sasl.password", "hunter2-pw"},
                             {"kafka.socket.timeout.ms", "x"}}));
  EXPECT_EQ(st.message().find("hunter2-pw"), std::string::npos);
  st = ParseError({{"eventhubs.connectionString", "Endpoint=sb://ns/;SharedAccessKey=topsecretkey1"},
                   {"subscribe", "t"}});
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_EQ(st.message().find("topsecretkey1"), std::string::npos) << st.message();
  st = ParseError({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "t"},
                   {"kafka.sasl.jaas.config", "PlainLoginModule required password=\"unterminated-secret"}});
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_EQ(st.message().find("unterminated-secret"), std::string::npos) << st.message();
  EXPECT_TRUE(Redactor::IsSecretName("kafka.sasl.jaas.config"));
  EXPECT_TRUE(Redactor::IsSecretName("eventhubs.clientSecret"));
  EXPECT_TRUE(Redactor::IsSecretName("kafka.ssl.keystore.password"));
  EXPECT_FALSE(Redactor::IsSecretName("kafka.bootstrap.servers"));
}

}  // namespace
}  // namespace weir::kafka
