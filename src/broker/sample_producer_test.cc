#include "broker/sample_producer.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "base/testing.h"
#include "broker/embedded_broker.h"
#include "broker/test_client.h"

namespace weir::broker {
namespace {

// One cluster for the suite (starting and stopping one takes about a second); each test writes
// to topics of its own.
class SampleProducerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto broker = EmbeddedBroker::Open(EmbeddedBrokerOptions());
    ASSERT_OK(broker.status());
    broker_ = std::move(*broker);
  }
  static void TearDownTestSuite() { broker_.reset(); }

  // A new 4-partition topic named after the running test.
  static std::string NewTopic(const std::string& suffix = "") {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name() + suffix;
    EXPECT_OK(broker_->CreateTopic({name, 4, 0}));
    return name;
  }
  static ProduceOptions Options(const std::string& topic, int64_t count) {
    ProduceOptions options;
    options.bootstrap_servers = broker_->bootstrap_servers();
    options.topic = topic;
    options.count = count;
    options.events.duplicate_fraction = 0.05;
    options.events.malformed_fraction = 0.03;
    options.events.late_fraction = 0.02;
    return options;
  }
  static inline std::unique_ptr<EmbeddedBroker> broker_;
};

TEST_F(SampleProducerTest, ReportsWhereEveryEventLanded) {
  const std::string topic = NewTopic();
  ASSERT_OK_AND_ASSIGN(ProduceReport report, ProduceSampleEvents(Options(topic, 5000)));
  EXPECT_EQ(report.counts.total, 5000u);
  EXPECT_EQ(report.partitions.size(), 4u);
  int64_t total = 0;
  for (const PartitionReport& p : report.partitions) {
    EXPECT_EQ(p.first_offset, 0);
    EXPECT_EQ(p.last_offset, p.count - 1);  // idempotent producer: no gaps, no retry copies
    total += p.count;
  }
  EXPECT_EQ(total, 5000);
  EXPECT_EQ(report.malformed_offsets.size(), report.counts.malformed);
  EXPECT_GT(report.counts.malformed, 50u);

  ASSERT_OK_AND_ASSIGN(auto records, testing::ConsumeAll(broker_->bootstrap_servers(), topic, 4));
  ASSERT_EQ(records.size(), 5000u);
  std::set<std::pair<int32_t, int64_t>> malformed(report.malformed_offsets.begin(),
                                                  report.malformed_offsets.end());
  std::set<std::string> distinct_ids;
  uint64_t records_with_id = 0;
  for (const auto& r : records) {
    bool is_malformed = malformed.count({r.partition, r.offset}) > 0;
    bool well_formed = r.value.rfind("{\"event_id\":\"e", 0) == 0 && r.value.back() == '}';
    EXPECT_NE(is_malformed, well_formed) << r.value;
    if (well_formed) {
      ++records_with_id;
      distinct_ids.insert(r.value.substr(13, r.value.find('"', 13) - 13));
      EXPECT_NE(r.value.find("\"order_id\":\"" + r.key + "\""), std::string::npos)
          << "key " << r.key << " is not the order_id of " << r.value;
    }
  }
  EXPECT_EQ(distinct_ids.size(), report.counts.distinct_event_ids());
  EXPECT_EQ(records_with_id - distinct_ids.size(), report.counts.duplicates);
}

TEST_F(SampleProducerTest, SameSeedPutsTheSameEventsInTheSamePartitions) {
  const std::string first = NewTopic("_first"), second = NewTopic("_second");
  ASSERT_OK_AND_ASSIGN(ProduceReport a, ProduceSampleEvents(Options(first, 3000)));
  ProduceOptions again = Options(second, 3000);
  again.compression = "lz4";  // compression changes batches, not placement
  ASSERT_OK_AND_ASSIGN(ProduceReport b, ProduceSampleEvents(again));
  ASSERT_EQ(a.partitions.size(), b.partitions.size());
  for (size_t i = 0; i < a.partitions.size(); ++i) {
    EXPECT_EQ(a.partitions[i].count, b.partitions[i].count) << i;
  }
  EXPECT_EQ(a.malformed_offsets, b.malformed_offsets);
  ASSERT_OK_AND_ASSIGN(auto ra, testing::ConsumeAll(broker_->bootstrap_servers(), first, 4));
  ASSERT_OK_AND_ASSIGN(auto rb, testing::ConsumeAll(broker_->bootstrap_servers(), second, 4));
  std::map<std::pair<int32_t, int64_t>, std::string> values;
  for (const auto& r : ra) values[{r.partition, r.offset}] = r.value;
  ASSERT_EQ(rb.size(), ra.size());
  for (const auto& r : rb) {
    std::pair<int32_t, int64_t> position(r.partition, r.offset);
    EXPECT_EQ(values[position], r.value);
  }
}

TEST_F(SampleProducerTest, PartitionsOptionUsesOnlyTheFirstPartitions) {
  ProduceOptions options = Options(NewTopic(), 2000);
  options.partitions = 2;
  ASSERT_OK_AND_ASSIGN(ProduceReport report, ProduceSampleEvents(options));
  ASSERT_EQ(report.partitions.size(), 2u);
  EXPECT_EQ(report.partitions[0].partition, 0);
  EXPECT_EQ(report.partitions[1].partition, 1);
  EXPECT_EQ(report.partitions[0].count + report.partitions[1].count, 2000);
}

TEST_F(SampleProducerTest, HeadersCarrySourceAndSequence) {
  const std::string topic = NewTopic();
  ProduceOptions options = Options(topic, 100);
  options.headers = true;
  options.partitions = 1;
  ASSERT_OK(ProduceSampleEvents(options).status());
  ASSERT_OK_AND_ASSIGN(auto records, testing::ConsumeAll(broker_->bootstrap_servers(), topic, 1));
  ASSERT_EQ(records.size(), 100u);
  for (size_t i = 0; i < records.size(); ++i) {
    ASSERT_EQ(records[i].headers.size(), 2u);
    EXPECT_EQ(records[i].headers[0],
              std::make_pair(std::string("source"), std::string("weir-produce")));
    EXPECT_EQ(records[i].headers[1], std::make_pair(std::string("seq"), std::to_string(i)));
  }
}

TEST_F(SampleProducerTest, RateLimitsEventsPerSecond) {
  ProduceOptions options = Options(NewTopic(), 300);
  options.rate = 1000;
  ASSERT_OK_AND_ASSIGN(ProduceReport report, ProduceSampleEvents(options));
  EXPECT_GE(report.seconds, 0.29);  // 300 events at 1,000/s cannot finish sooner
}

TEST(SampleProducerFailureTest, FailsNamingTheTopicWhenBrokersAreDown) {
  EmbeddedBrokerOptions cluster;
  cluster.topics.push_back({"orders", 4, 0});
  ASSERT_OK_AND_ASSIGN(auto broker, EmbeddedBroker::Open(cluster));
  ASSERT_OK(broker->SetBrokerDown(EmbeddedBroker::kAllBrokers));
  ProduceOptions options;
  options.bootstrap_servers = broker->bootstrap_servers();
  options.topic = "orders";
  options.count = 100;
  options.timeout_ms = 1500;
  auto result = ProduceSampleEvents(options);
  ASSERT_STATUS_CODE(kUnavailable, result);
  EXPECT_NE(result.status().message().find("topic orders"), std::string::npos)
      << result.status().ToString();
}

TEST_F(SampleProducerTest, RejectsBadOptions) {
  ProduceOptions options = Options("orders", 10);  // rejected before connecting
  options.compression = "brotli";
  ASSERT_STATUS_CODE(kInvalidArgument, ProduceSampleEvents(options));
  options = Options("", 10);
  ASSERT_STATUS_CODE(kInvalidArgument, ProduceSampleEvents(options));
  options = Options("orders", 10);
  options.events.late_fraction = 0.99;
  ASSERT_STATUS_CODE(kInvalidArgument, ProduceSampleEvents(options));
  options = Options("orders", 10);
  options.client_properties.emplace_back("no.such.setting", "1");
  ASSERT_STATUS_CODE(kInvalidArgument, ProduceSampleEvents(options));
}

TEST(ManifestJsonTest, ListsPartitionsCountsAndMalformedOffsets) {
  ProduceReport report;
  report.topic = "orders";
  report.seed = 7;
  report.counts.total = 10;
  report.counts.valid = 6;
  report.counts.late = 1;
  report.counts.duplicates = 2;
  report.counts.malformed = 1;
  report.partitions = {{0, 4, 0, 3}, {2, 6, 10, 15}};
  report.malformed_offsets = {{2, 12}};
  report.first_event_time_ms = 1780909200000;
  report.last_event_time_ms = 1780909200009;
  report.payload_bytes = 2200;
  report.seconds = 0.5;
  EXPECT_EQ(ManifestJson(report),
            "{\"topic\":\"orders\",\"count\":10,\"seed\":7,\"partitions\":["
            "{\"partition\":0,\"count\":4,\"first_offset\":0,\"last_offset\":3},"
            "{\"partition\":2,\"count\":6,\"first_offset\":10,\"last_offset\":15}],"
            "\"valid_distinct_event_ids\":7,\"valid\":6,\"late\":1,\"duplicates\":2,"
            "\"malformed\":1,\"malformed_offsets\":[[2,12]],"
            "\"first_event_time\":\"2026-06-08T09:00:00.000Z\","
            "\"last_event_time\":\"2026-06-08T09:00:00.009Z\",\"payload_bytes\":2200,"
            "\"seconds\":0.500}\n");
}

}  // namespace
}  // namespace weir::broker
