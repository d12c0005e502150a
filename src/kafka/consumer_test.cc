// KafkaSource against librdkafka's in-process mock cluster (real TCP, real Kafka protocol):
// records produced by an independent librdkafka producer are read back exactly, from every
// starting position, across rate-limited batches, through retention loss and injected faults.
#include "kafka/consumer.h"

#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "base/testing.h"
#include "kafka/testing.h"

namespace weir::kafka {
namespace {

constexpr int16_t kApiFetch = 1;
constexpr int16_t kApiListOffsets = 2;

// One produced record, as the independent producer saw it.
struct Produced {
  std::optional<std::string> key, value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
  int64_t timestamp_ms = 0;
};

// The mock cluster with an asserting CreateTopic.
class MockCluster : public testing::MockCluster {
 public:
  explicit MockCluster(int brokers = 1) : testing::MockCluster(brokers) {}
  void CreateTopic(const std::string& topic, int partitions) {
    ASSERT_TRUE(testing::MockCluster::CreateTopic(topic, partitions)) << topic;
  }
};

class Producer {
 public:
  Producer(const std::string& bootstraps, const std::string& compression = "none",
           int batch_messages = 10000) {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[256];
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstraps.c_str(), err, sizeof(err));
    rd_kafka_conf_set(conf, "compression.codec", compression.c_str(), err, sizeof(err));
    rd_kafka_conf_set(conf, "linger.ms", "5", err, sizeof(err));
    rd_kafka_conf_set(conf, "batch.num.messages", std::to_string(batch_messages).c_str(), err,
                      sizeof(err));
    rd_kafka_conf_set(conf, "log_level", "0", err, sizeof(err));
    rk_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
  }
  ~Producer() { rd_kafka_destroy(rk_); }

  void Send(const std::string& topic, int32_t partition, const Produced& r) {
    rd_kafka_headers_t* headers = nullptr;
    if (!r.headers.empty()) {
      headers = rd_kafka_headers_new(r.headers.size());
      for (const auto& [k, v] : r.headers) {
        rd_kafka_header_add(headers, k.data(), static_cast<ssize_t>(k.size()),
                            v ? v->data() : nullptr, v ? static_cast<ssize_t>(v->size()) : 0);
      }
    }
    rd_kafka_resp_err_t err;
    while (true) {
      // Headers are owned by librdkafka once produced; a retry needs a fresh copy.
      rd_kafka_headers_t* h = headers ? rd_kafka_headers_copy(headers) : nullptr;
      err = rd_kafka_producev(
          rk_, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(partition),
          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
          RD_KAFKA_V_KEY((r.key ? r.key->data() : nullptr), (r.key ? r.key->size() : 0)),
          RD_KAFKA_V_VALUE((r.value ? const_cast<char*>(r.value->data()) : nullptr),
                           (r.value ? r.value->size() : 0)),
          RD_KAFKA_V_TIMESTAMP(r.timestamp_ms), RD_KAFKA_V_HEADERS(h), RD_KAFKA_V_END);
      if (err != RD_KAFKA_RESP_ERR_NO_ERROR && h != nullptr) rd_kafka_headers_destroy(h);
      if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) break;
      rd_kafka_poll(rk_, 10);
    }
    if (headers != nullptr) rd_kafka_headers_destroy(headers);
    ASSERT_EQ(err, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2str(err);
    rd_kafka_poll(rk_, 0);
  }
  void Flush() { ASSERT_EQ(rd_kafka_flush(rk_, 20000), RD_KAFKA_RESP_ERR_NO_ERROR); }

 private:
  rd_kafka_t* rk_ = nullptr;
};

// Varied records: null/empty keys and values, headers (one with a null value), binary bytes.
Produced MakeRecord(int partition, int i) {
  Produced r;
  if (i % 7 == 0) {
    r.key = std::nullopt;
  } else if (i % 7 == 1) {
    r.key = std::string();
  } else {
    r.key = "key-" + std::to_string(partition) + "-" + std::to_string(i);
  }
  if (i % 11 == 0) {
    r.value = std::nullopt;
  } else if (i % 11 == 1) {
    r.value = std::string();
  } else {
    r.value = "{\"p\":" + std::to_string(partition) + ",\"i\":" + std::to_string(i) + "}" +
              std::string(1, '\0') + std::string(static_cast<size_t>(i % 50), 'x');
  }
  if (i % 3 == 0) r.headers = {{"trace", "t-" + std::to_string(i)}, {"empty", std::nullopt}};
  r.timestamp_ms = 1'700'000'000'000 + i;
  return r;
}

std::map<std::string, std::string> SourceOptions(const std::string& bootstraps,
                                                 std::map<std::string, std::string> extra = {}) {
  std::map<std::string, std::string> m = {{"kafka.bootstrap.servers", bootstraps},
                                          {"subscribe", "t"},
                                          {"includeHeaders", "true"},
                                          {"kafkaConsumer.pollTimeoutMs", "10000"},
                                          {"fetchOffset.retryIntervalMs", "100"}};
  for (auto& [k, v] : extra) m[k] = v;
  return m;
}

std::unique_ptr<KafkaSource> OpenSource(const std::map<std::string, std::string>& options,
                                        QueryKind kind = QueryKind::kStreaming) {
  auto parsed = KafkaSourceOptions::Parse(options, kind);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  KafkaSourceConfig config;
  config.request_timeout_ms = 10000;
  auto source = KafkaSource::Open(std::move(*parsed), config);
  EXPECT_TRUE(source.ok()) << source.status().ToString();
  return std::move(*source);
}

// Reads every range; returns (partition, offset) -> record copy. Fails the test on duplicates.
struct Copied {
  std::optional<std::string> key, value;
  std::string topic;
  int64_t timestamp_ms;
  int32_t timestamp_type;
  bool has_headers;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
};

Status ReadAll(KafkaSource* source, const std::vector<OffsetRange>& ranges,
               std::map<std::pair<int32_t, int64_t>, Copied>* out, ReadStats* stats = nullptr,
               size_t max_records = 1000) {
  WEIR_ASSIGN_OR_RETURN(auto reader, source->Read(ranges));
  while (!reader->done()) {
    WEIR_ASSIGN_OR_RETURN(RecordBatch batch, reader->Next(max_records));
    for (const RecordView& r : batch) {
      Copied c;
      if (r.key) c.key = std::string(*r.key);
      if (r.value) c.value = std::string(*r.value);
      c.topic = std::string(r.topic);
      c.timestamp_ms = r.timestamp_ms;
      c.timestamp_type = r.timestamp_type;
      c.has_headers = r.headers != nullptr;
      for (size_t h = 0; h < r.header_count(); ++h) {
        HeaderView hv = r.header(h);
        c.headers.emplace_back(std::string(hv.key),
                               hv.value ? std::optional<std::string>(std::string(*hv.value))
                                        : std::nullopt);
      }
      auto [it, inserted] = out->emplace(std::make_pair(r.partition, r.offset), std::move(c));
      if (!inserted) {
        return Status::Internal("duplicate record " + std::to_string(r.partition) + "/" +
                                std::to_string(r.offset));
      }
    }
  }
  if (stats) *stats = reader->stats();
  return Status::OK();
}

class ConsumerTest : public ::testing::Test {
 protected:
  static constexpr int kPartitions = 3;
  static constexpr int kPerPartition = 1000;

  void SetUp() override {
    cluster_ = std::make_unique<MockCluster>();
    cluster_->CreateTopic("t", kPartitions);
  }

  void ProduceAll(const std::string& compression = "gzip") {
    Producer producer(cluster_->bootstraps(), compression, 200);
    for (int i = 0; i < kPerPartition; ++i) {
      for (int p = 0; p < kPartitions; ++p) {
        Produced r = MakeRecord(p, i);
        producer.Send("t", p, r);
        expected_[{p, i}] = r;
      }
    }
    producer.Flush();
  }

  void ExpectExactly(const std::map<std::pair<int32_t, int64_t>, Copied>& got, int64_t first = 0) {
    size_t want = 0;
    for (const auto& [pos, r] : expected_) {
      if (pos.second < first) continue;
      ++want;
      auto it = got.find(pos);
      ASSERT_NE(it, got.end()) << "missing " << pos.first << "/" << pos.second;
      const Copied& c = it->second;
      EXPECT_EQ(c.key, r.key) << pos.first << "/" << pos.second;
      EXPECT_EQ(c.value, r.value) << pos.first << "/" << pos.second;
      EXPECT_EQ(c.topic, "t");
      EXPECT_EQ(c.timestamp_ms, r.timestamp_ms);
      EXPECT_EQ(c.timestamp_type, 0);  // CreateTime
      EXPECT_EQ(c.has_headers, !r.headers.empty());
      EXPECT_EQ(c.headers, r.headers);
    }
    EXPECT_EQ(got.size(), want);
  }

  std::unique_ptr<MockCluster> cluster_;
  std::map<std::pair<int32_t, int64_t>, Produced> expected_;
};

// librdkafka stops fetching while its queue holds queued.min.messages records; with a queue of 5
// the readers' wake-ups (kafka/fetch_waker.h) keep every partition moving until the end, and the
// records still come exactly once.
TEST_F(ConsumerTest, ReadsEverythingWhenTheFetchQueueIsTiny) {
  ProduceAll("lz4");
  auto source = OpenSource(SourceOptions(cluster_->bootstraps(),
                                         {{"startingOffsets", "earliest"},
                                          {"kafka.queued.min.messages", "5"}}));
  ASSERT_OK_AND_ASSIGN(auto partitions, source->ListPartitions());
  DataLossReporter reporter(true);
  ASSERT_OK_AND_ASSIGN(PartitionOffsets start, source->InitialOffsets(&reporter));
  ASSERT_OK_AND_ASSIGN(PartitionOffsets latest, source->LatestOffsets(partitions));
  ASSERT_OK_AND_ASSIGN(auto ranges, PlanBatchRanges(start, latest, {}, false, {}, &reporter));
  std::map<std::pair<int32_t, int64_t>, Copied> got;
  ASSERT_OK(ReadAll(source.get(), ranges, &got, nullptr, 50));
  ExpectExactly(got);
}

TEST_F(ConsumerTest, ReadsBackExactlyWhatAnIndependentProducerWrote) {
  ProduceAll("gzip");
  auto source = OpenSource(SourceOptions(cluster_->bootstraps(), {{"startingOffsets", "earliest"}}));
  ASSERT_OK_AND_ASSIGN(auto partitions, source->ListPartitions());
  EXPECT_EQ(partitions.size(), 3u);
  DataLossReporter reporter(true);
  ASSERT_OK_AND_ASSIGN(PartitionOffsets start, source->InitialOffsets(&reporter));
  ASSERT_OK_AND_ASSIGN(PartitionOffsets latest, source->LatestOffsets(partitions));
  for (const auto& [tp, off] : start) EXPECT_EQ(off, 0);
  for (const auto& [tp, off] : latest) EXPECT_EQ(off, kPerPartition);
  ASSERT_OK_AND_ASSIGN(auto ranges, PlanBatchRanges(start, latest, {}, false, {}, &reporter));
  std::map<std::pair<int32_t, int64_t>, Copied> got;
  ReadStats stats;
  ASSERT_OK(ReadAll(source.get(), ranges, &got, &stats));
  ExpectExactly(got);
  EXPECT_EQ(stats.records, kPartitions * kPerPartition);
  EXPECT_EQ(stats.skipped_offsets, 0);
  EXPECT_GT(stats.AvgRecordBytes(), 10.0);
}

TEST_F(ConsumerTest, UncompressedLz4AndZstdBatchesToo) {
  for (const char* codec : {"none", "lz4", "zstd"}) {
    cluster_ = std::make_unique<MockCluster>();
    cluster_->CreateTopic("t", kPartitions);
    expected_.clear();
    ProduceAll(codec);
    auto source = OpenSource(SourceOptions(cluster_->bootstraps()));
    std::vector<OffsetRange> ranges;
    for (int p = 0; p < kPartitions; ++p) ranges.push_back({{"t", p}, 0, kPerPartition});
    std::map<std::pair<int32_t, int64_t>, Copied> got;
    ASSERT_OK(ReadAll(source.get(), ranges, &got));
    ExpectExactly(got);
  }
}

TEST_F(ConsumerTest, StartingPositions) {
  ProduceAll("none");
  std::set<TopicPartition> all = {{"t", 0}, {"t", 1}, {"t", 2}};
  {
    auto source = OpenSource(SourceOptions(cluster_->bootstraps()));  // default latest
    DataLossReporter r(true);
    ASSERT_OK_AND_ASSIGN(auto offsets, source->InitialOffsets(&r));
    for (const auto& [tp, off] : offsets) EXPECT_EQ(off, kPerPartition);
  }
  {
    auto source = OpenSource(SourceOptions(
        cluster_->bootstraps(), {{"startingOffsets", R"({"t":{"0":-2,"1":-1,"2":700}})"}}));
    DataLossReporter r(true);
    ASSERT_OK_AND_ASSIGN(auto offsets, source->InitialOffsets(&r));
    EXPECT_EQ(offsets, (PartitionOffsets{{{"t", 0}, 0}, {{"t", 1}, kPerPartition}, {{"t", 2}, 700}}));
    // Read from there to the end: exactly the tail of partition 2.
    std::map<std::pair<int32_t, int64_t>, Copied> got;
    ASSERT_OK(ReadAll(source.get(), {{{"t", 2}, 700, kPerPartition}}, &got));
    EXPECT_EQ(got.size(), static_cast<size_t>(kPerPartition - 700));
    EXPECT_EQ(got.begin()->first, std::make_pair(2, int64_t{700}));
  }
  {
    // The mock broker answers every timestamp query with "no offset": strategy error fails ...
    auto source = OpenSource(SourceOptions(cluster_->bootstraps(),
                                           {{"startingTimestamp", "1700000000100"}}));
    DataLossReporter r(true);
    auto offsets = source->InitialOffsets(&r);
    ASSERT_STATUS_CODE(kInvalidArgument, offsets);
    EXPECT_NE(offsets.status().message().find("No offset matched from request of topic-partition t-"),
              std::string::npos);
  }
  {
    // ... and strategy latest takes the latest offsets.
    auto source = OpenSource(SourceOptions(cluster_->bootstraps(),
                                           {{"startingOffsetsByTimestamp",
                                             R"({"t":{"0":1,"1":2,"2":3}})"},
                                            {"startingOffsetsByTimestampStrategy", "latest"}}));
    DataLossReporter r(true);
    ASSERT_OK_AND_ASSIGN(auto offsets, source->InitialOffsets(&r));
    for (const auto& [tp, off] : offsets) EXPECT_EQ(off, kPerPartition);
  }
}

TEST_F(ConsumerTest, RateLimitedBatchesReadEverythingExactlyOnce) {
  ProduceAll("gzip");
  auto source = OpenSource(SourceOptions(cluster_->bootstraps(),
                                         {{"startingOffsets", "earliest"},
                                          {"maxOffsetsPerTrigger", "700"},
                                          {"minPartitions", "5"}}));
  DataLossReporter reporter(true);
  ASSERT_OK_AND_ASSIGN(PartitionOffsets start, source->InitialOffsets(&reporter));
  ReadLimits limits = ReadLimits::FromOptions(source->options());
  RangeSplit split = RangeSplit::FromOptions(source->options());
  std::map<std::pair<int32_t, int64_t>, Copied> got;
  int batches = 0;
  int64_t last_trigger = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto partitions, source->ListPartitions());
    ASSERT_OK_AND_ASSIGN(PartitionOffsets latest, source->LatestOffsets(partitions, start));
    PartitionOffsets end = PlanBatchEnd(start, latest, {}, limits, 1'700'000'000'000, &last_trigger);
    if (end == start) break;
    int64_t planned = 0;
    for (const auto& [tp, off] : end) planned += off - start[tp];
    EXPECT_LE(planned, 700 + kPartitions);  // small shares round up
    ASSERT_OK_AND_ASSIGN(auto ranges, PlanBatchRanges(start, end, {}, false, split, &reporter));
    ASSERT_OK(ReadAll(source.get(), ranges, &got, nullptr, 256));
    auto lag = ComputeLag(end, latest);
    ASSERT_TRUE(lag.has_value());
    start = end;
    ++batches;
  }
  EXPECT_GE(batches, (kPartitions * kPerPartition) / 703);
  ExpectExactly(got);
}

TEST_F(ConsumerTest, ReplaysAnEarlierRangeAndKeepsBatchesAfterTheReader) {
  ProduceAll("gzip");
  auto source = OpenSource(SourceOptions(cluster_->bootstraps()));
  std::vector<RecordBatch> kept;  // views stay valid while their batches live
  {
    ASSERT_OK_AND_ASSIGN(auto reader, source->Read({{{"t", 0}, 0, 300}, {{"t", 1}, 0, 300}}));
    while (!reader->done()) {
      ASSERT_OK_AND_ASSIGN(RecordBatch batch, reader->Next(128));
      kept.push_back(std::move(batch));
    }
  }
  int64_t n = 0;
  for (const auto& batch : kept) {
    for (const auto& r : batch) {
      const Produced& want = expected_.at({r.partition, r.offset});
      EXPECT_EQ(r.value ? std::optional<std::string>(std::string(*r.value)) : std::nullopt, want.value);
      ++n;
    }
  }
  EXPECT_EQ(n, 600);
  kept.clear();
  // A crash re-run reads the same range again (repositioned), then the stream continues.
  std::map<std::pair<int32_t, int64_t>, Copied> again;
  ASSERT_OK(ReadAll(source.get(), {{{"t", 0}, 0, 300}}, &again));
  EXPECT_EQ(again.size(), 300u);
  std::map<std::pair<int32_t, int64_t>, Copied> next;
  ASSERT_OK(ReadAll(source.get(), {{{"t", 0}, 300, 1000}, {{"t", 1}, 300, 1000}, {{"t", 2}, 0, 10}}, &next));
  EXPECT_EQ(next.size(), 700u + 700u + 10u);
  EXPECT_TRUE(next.count({0, 300}) && next.count({1, 999}) && next.count({2, 9}));
}

// Every read that starts where the stream is not repositions the consumer (resume, then assign:
// a resume right after an assign can make librdkafka drop the assignment's fetch start, librdkafka
// issues 2190 and 5591). Many repositionings in a row: each read gets exactly its records, within
// a short poll timeout.
TEST_F(ConsumerTest, RepositioningAgainAndAgainNeverStallsAPartition) {
  ProduceAll("none");
  auto source = OpenSource(SourceOptions(cluster_->bootstraps(),
                                         {{"kafkaConsumer.pollTimeoutMs", "5000"}}));
  std::mt19937 random(7);
  for (int i = 0; i < 50; ++i) {
    std::vector<OffsetRange> ranges;
    int64_t want = 0;
    for (int p = 0; p < kPartitions; ++p) {
      if (random() % 3 == 0) continue;  // not every partition in every read
      const int64_t from = static_cast<int64_t>(random() % (kPerPartition - 20));
      const int64_t until = from + 1 + static_cast<int64_t>(random() % 20);
      ranges.push_back({{"t", p}, from, until});
      want += until - from;
    }
    std::map<std::pair<int32_t, int64_t>, Copied> got;
    ReadStats stats;
    Status read = ReadAll(source.get(), ranges, &got, &stats);
    ASSERT_TRUE(read.ok()) << "read " << i << ": " << read.ToString();
    ASSERT_EQ(static_cast<int64_t>(got.size()), want) << "read " << i;
    // A stalled partition would be rescued by the fetch restart, which warns.
    ASSERT_TRUE(stats.warnings.empty()) << "read " << i << ": " << stats.warnings[0];
  }
}

// A read whose partition gets no records for a quarter of pollTimeoutMs starts the fetches again
// from the positions reached (Spark retries a timed-out task): here librdkafka is told to stop
// fetching a partition behind the source's back, as its fetcher once stopped on its own.
TEST_F(ConsumerTest, AStoppedFetcherFetchesAgainBeforeThePollTimeout) {
  ProduceAll("none");
  auto source = OpenSource(SourceOptions(cluster_->bootstraps(),
                                         {{"kafkaConsumer.pollTimeoutMs", "4000"}}));
  std::vector<OffsetRange> first, rest;
  for (int p = 0; p < kPartitions; ++p) {
    first.push_back({{"t", p}, 0, 10});
    rest.push_back({{"t", p}, 10, kPerPartition});
  }
  std::map<std::pair<int32_t, int64_t>, Copied> got;
  ASSERT_OK(ReadAll(source.get(), first, &got));
  // (The mock broker returns one record batch per partition and fetch, so partition 1 has more
  // than its first ten records to fetch after this read.)
  rd_kafka_topic_partition_list_t* stopped = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(stopped, "t", 1);
  rd_kafka_pause_partitions(source->handle_for_testing(), stopped);
  rd_kafka_topic_partition_list_destroy(stopped);
  ReadStats stats;
  ASSERT_OK(ReadAll(source.get(), rest, &got, &stats));  // the old reader timed out after 4 s
  ExpectExactly(got);
  ASSERT_EQ(stats.warnings.size(), 1u);
  EXPECT_NE(stats.warnings[0].find("fetching again from the positions reached"), std::string::npos)
      << stats.warnings[0];
  EXPECT_NE(stats.warnings[0].find("t-1 at offset"), std::string::npos) << stats.warnings[0];
}

TEST_F(ConsumerTest, SubscribePatternSkipsInternalTopicsAndSeesNewTopics) {
  cluster_->CreateTopic("orders-eu", 2);
  cluster_->CreateTopic("__internal-orders", 1);
  auto source = OpenSource({{"kafka.bootstrap.servers", cluster_->bootstraps()},
                            {"subscribePattern", "orders"}});
  ASSERT_OK_AND_ASSIGN(auto partitions, source->ListPartitions());
  EXPECT_EQ(partitions, (std::set<TopicPartition>{{"orders-eu", 0}, {"orders-eu", 1}}));
  cluster_->CreateTopic("orders-us", 1);
  ASSERT_OK_AND_ASSIGN(partitions, source->ListPartitions());
  EXPECT_EQ(partitions.size(), 3u);
  EXPECT_TRUE(partitions.count(TopicPartition{"orders-us", 0}));

  auto missing = OpenSource({{"kafka.bootstrap.servers", cluster_->bootstraps()},
                             {"subscribe", "nope"}});
  auto r = missing->ListPartitions();
  ASSERT_STATUS_CODE(kNotFound, r);
  EXPECT_NE(r.status().message().find("topic 'nope' does not exist"), std::string::npos);
  auto assigned = OpenSource({{"kafka.bootstrap.servers", cluster_->bootstraps()},
                              {"assign", R"({"t":[1,7]})"}});
  ASSERT_OK_AND_ASSIGN(partitions, assigned->ListPartitions());
  EXPECT_EQ(partitions, (std::set<TopicPartition>{{"t", 1}}));
}

TEST_F(ConsumerTest, EmptyFetchIsNotTheEndOfData) {
  Producer producer(cluster_->bootstraps());
  for (int i = 0; i < 100; ++i) producer.Send("t", 0, MakeRecord(0, i));
  producer.Flush();
  auto source = OpenSource(SourceOptions(cluster_->bootstraps()));
  // Plan past what exists now; the rest arrives while the reader waits.
  ASSERT_OK_AND_ASSIGN(auto reader, source->Read({{{"t", 0}, 0, 150}}));
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    for (int i = 100; i < 150; ++i) producer.Send("t", 0, MakeRecord(0, i));
    producer.Flush();
  });
  int64_t n = 0;
  while (!reader->done()) {
    auto batch = reader->Next(64);
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    for (const auto& r : *batch) EXPECT_EQ(r.offset, n++);
  }
  late.join();
  EXPECT_EQ(n, 150);
  EXPECT_GT(reader->stats().empty_polls, 0);
}

// A broker answers one connection's requests in order and holds a fetch at the end of the log
// for up to fetch.wait.max.ms: offset lookups (every streaming batch's latestOffset) go over a
// client of their own, so they never wait behind it (they waited ~20-100 ms a batch with the
// default 100 ms; here 4 s).
TEST_F(ConsumerTest, AnOffsetLookupDoesNotWaitBehindAFetchTheBrokerHolds) {
  Producer producer(cluster_->bootstraps());
  for (int i = 0; i < 100; ++i) producer.Send("t", 0, MakeRecord(0, i));
  producer.Flush();
  auto source = OpenSource(SourceOptions(cluster_->bootstraps(), {{"kafka.fetch.wait.max.ms", "4000"},
                                                                  {"kafkaConsumer.pollTimeoutMs", "30000"}}));
  ASSERT_OK_AND_ASSIGN(auto reader, source->Read({{{"t", 0}, 0, 150}}));
  int64_t n = 0;
  while (n < 100) {
    ASSERT_OK_AND_ASSIGN(RecordBatch batch, reader->Next(64));
    n += static_cast<int64_t>(batch.size());
  }
  // The fetcher now waits at offset 100, in a fetch the broker holds for up to 4 s.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto start = std::chrono::steady_clock::now();
  ASSERT_OK_AND_ASSIGN(PartitionOffsets latest, source->LatestOffsets({{"t", 0}, {"t", 1}}));
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(latest[(TopicPartition{"t", 0})], 100);
  EXPECT_LT(took, std::chrono::milliseconds(2000))
      << "the lookup took " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
      << " ms";
  EXPECT_NE(source->lookup_handle_for_testing(), source->handle_for_testing());
  for (int i = 100; i < 150; ++i) producer.Send("t", 0, MakeRecord(0, i));
  producer.Flush();
  while (!reader->done()) {
    ASSERT_OK_AND_ASSIGN(RecordBatch batch, reader->Next(64));
    n += static_cast<int64_t>(batch.size());
  }
  EXPECT_EQ(n, 150);
}

TEST_F(ConsumerTest, NoProgressTimesOutNamingPartitionAndOffset) {
  Producer producer(cluster_->bootstraps());
  for (int i = 0; i < 10; ++i) producer.Send("t", 1, MakeRecord(1, i));
  producer.Flush();
  auto source = OpenSource(SourceOptions(cluster_->bootstraps(), {{"kafkaConsumer.pollTimeoutMs", "700"}}));
  ASSERT_OK_AND_ASSIGN(auto reader, source->Read({{{"t", 1}, 0, 20}}));
  Status failure;
  int64_t records = 0;
  while (!reader->done()) {
    auto batch = reader->Next(100);
    if (!batch.ok()) {
      failure = batch.status();
      break;
    }
    records += static_cast<int64_t>(batch->size());
  }
  EXPECT_EQ(records, 10);
  ASSERT_TRUE(failure.IsUnavailable()) << failure.ToString();
  EXPECT_NE(failure.message().find("topic-partition t-1 at offset 10 (planned end 20"),
            std::string::npos)
      << failure.message();
}

TEST_F(ConsumerTest, InjectedFetchAndListOffsetsErrorsLoseAndDuplicateNothing) {
  ProduceAll("gzip");
  // Short back-offs keep the test quick; the retry paths are the same.
  auto source = OpenSource(SourceOptions(cluster_->bootstraps(),
                                         {{"startingOffsets", "earliest"},
                                          {"kafka.fetch.error.backoff.ms", "20"},
                                          {"kafka.retry.backoff.ms", "20"}}));
  rd_kafka_mock_push_request_errors(cluster_->get(), kApiListOffsets, 2,
                                    RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
                                    RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT);
  DataLossReporter reporter(true);
  ASSERT_OK_AND_ASSIGN(PartitionOffsets start, source->InitialOffsets(&reporter));
  ASSERT_OK_AND_ASSIGN(auto partitions, source->ListPartitions());
  ASSERT_OK_AND_ASSIGN(PartitionOffsets latest, source->LatestOffsets(partitions));
  for (const auto& [tp, off] : latest) EXPECT_EQ(off, kPerPartition);
  rd_kafka_mock_push_request_errors(
      cluster_->get(), kApiFetch, 6, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
      RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART,
      RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
      RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR);
  std::map<std::pair<int32_t, int64_t>, Copied> got;
  ASSERT_OK(ReadAll(source.get(),
                    {{{"t", 0}, 0, kPerPartition}, {{"t", 1}, 0, kPerPartition},
                     {{"t", 2}, 0, kPerPartition}},
                    &got));
  ExpectExactly(got);
}

// A real broker answers UNKNOWN_TOPIC_OR_PART to a ListOffsets sent to a broker that just lost
// the partition's leadership; librdkafka reports it as the whole lookup's error. It is retried
// after a metadata refresh, as Kafka's Java client and Spark do.
TEST_F(ConsumerTest, ListOffsetsUnknownPartitionAfterLeaderMoveIsRetried) {
  ProduceAll("none");
  auto source = OpenSource(SourceOptions(cluster_->bootstraps(),
                                         {{"fetchOffset.retryIntervalMs", "20"},
                                          {"kafka.retry.backoff.ms", "20"}}));
  ASSERT_OK_AND_ASSIGN(auto partitions, source->ListPartitions());
  // Two failures: the third of Spark's three attempts (fetchOffset.numRetries) succeeds.
  rd_kafka_mock_push_request_errors(cluster_->get(), kApiListOffsets, 2,
                                    RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART,
                                    RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART);
  ASSERT_OK_AND_ASSIGN(PartitionOffsets earliest, source->EarliestOffsets(partitions));
  for (const auto& [tp, off] : earliest) EXPECT_EQ(off, 0) << tp.ToString();
  ASSERT_OK_AND_ASSIGN(PartitionOffsets latest, source->LatestOffsets(partitions));
  for (const auto& [tp, off] : latest) EXPECT_EQ(off, kPerPartition) << tp.ToString();
}

TEST_F(ConsumerTest, SlowBrokerStillReadsEverything) {
  ProduceAll("none");
  rd_kafka_mock_broker_set_rtt(cluster_->get(), 1, 50);
  auto source = OpenSource(SourceOptions(cluster_->bootstraps()));
  std::map<std::pair<int32_t, int64_t>, Copied> got;
  ASSERT_OK(ReadAll(source.get(), {{{"t", 0}, 100, 600}, {{"t", 0}, 600, 900}}, &got));
  EXPECT_EQ(got.size(), 800u);
  EXPECT_EQ(got.begin()->first.second, 100);
  EXPECT_EQ(got.rbegin()->first.second, 899);
  rd_kafka_mock_broker_set_rtt(cluster_->get(), 1, 0);
}

class RetentionTest : public ::testing::Test {
 protected:
  // The mock keeps ~5 MiB per partition and drops the oldest message sets beyond that.
  void SetUp() override {
    cluster_.CreateTopic("t", 1);
    Producer producer(cluster_.bootstraps(), "none", 100);
    std::string payload(1024, 'v');
    for (int i = 0; i < kRecords; ++i) {
      Produced r;
      r.key = std::to_string(i);
      r.value = payload;
      r.timestamp_ms = 1'700'000'000'000 + i;
      producer.Send("t", 0, r);
    }
    producer.Flush();
  }
  static constexpr int kRecords = 7000;
  MockCluster cluster_;
};

TEST_F(RetentionTest, FailOnDataLossTrueFailsWithSparksExplanation) {
  auto source = OpenSource(SourceOptions(cluster_.bootstraps()));
  ASSERT_OK_AND_ASSIGN(auto earliest, source->EarliestOffsets({{"t", 0}}));
  int64_t first = earliest.at(TopicPartition{"t", 0});
  ASSERT_GT(first, 0) << "the mock did not drop old records";
  std::map<std::pair<int32_t, int64_t>, Copied> got;
  Status st = ReadAll(source.get(), {{{"t", 0}, 0, kRecords}}, &got);
  ASSERT_TRUE(st.IsDataLoss()) << st.ToString();
  EXPECT_NE(st.message().find("[KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE]"), std::string::npos);
  EXPECT_NE(st.message().find("set the source option failOnDataLoss to false"), std::string::npos);
  EXPECT_NE(st.message().find("Could not read records in offset [0, " + std::to_string(first) +
                              ") for topic partition t-0 with consumer group " +
                              source->group_id() + "."),
            std::string::npos)
      << st.message();
  EXPECT_TRUE(got.empty());
}

TEST_F(RetentionTest, FailOnDataLossFalseSkipsAndCountsTheLostRange) {
  auto source = OpenSource(SourceOptions(cluster_.bootstraps(), {{"failOnDataLoss", "false"}}));
  ASSERT_OK_AND_ASSIGN(auto earliest, source->EarliestOffsets({{"t", 0}}));
  int64_t first = earliest.at(TopicPartition{"t", 0});
  std::map<std::pair<int32_t, int64_t>, Copied> got;
  ReadStats stats;
  ASSERT_OK(ReadAll(source.get(), {{{"t", 0}, 0, kRecords}}, &got, &stats));
  EXPECT_EQ(stats.skipped_offsets, first);
  ASSERT_EQ(stats.warnings.size(), 1u);
  EXPECT_EQ(stats.warnings[0].rfind("Skip missing records in [0, " + std::to_string(first) + ")", 0),
            0u);
  EXPECT_EQ(got.size(), static_cast<size_t>(kRecords - first));
  int64_t expect = first;
  for (const auto& [pos, r] : got) {
    EXPECT_EQ(pos.second, expect);
    EXPECT_EQ(*r.key, std::to_string(expect));
    ++expect;
  }
  // The planner reaches the same verdict before any fetch.
  DataLossReporter lenient(false);
  ASSERT_OK_AND_ASSIGN(auto clamped, ClampRangesToEarliest({{{"t", 0}, 0, kRecords}}, earliest,
                                                           source->group_id(), &lenient));
  EXPECT_EQ(clamped[0].from, first);
}

TEST(ConsumerErrorsTest, UnreachableBrokerIsUnavailableAndSecretsStayOut) {
  const std::string secret = "Endpoint=sb://nowhere.invalid/;SharedAccessKeyName=k;SharedAccessKey=zzTopSecretKey99=";
  auto parsed = KafkaSourceOptions::Parse({{"kafka.bootstrap.servers", "127.0.0.1:1"},
                                           {"subscribe", "t"},
                                           {"kafka.security.protocol", "SASL_PLAINTEXT"},
                                           {"kafka.sasl.mechanism", "PLAIN"},
                                           {"kafka.sasl.jaas.config",
                                            "org.apache.kafka.common.security.plain.PlainLoginModule "
                                            "required username=\"$ConnectionString\" password=\"" +
                                                secret + "\";"}});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  KafkaSourceConfig config;
  config.request_timeout_ms = 1500;
  ASSERT_OK_AND_ASSIGN(auto source, KafkaSource::Open(std::move(*parsed), config));
  auto r = source->ListPartitions();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsUnavailable()) << r.status().ToString();
  EXPECT_EQ(r.status().message().find("zzTopSecretKey99"), std::string::npos);
  for (const auto& line : source->TakeClientLog()) {
    EXPECT_EQ(line.find("zzTopSecretKey99"), std::string::npos) << line;
  }
  EXPECT_EQ(source->options().ToString().find("zzTopSecretKey99"), std::string::npos);
}

}  // namespace
}  // namespace weir::kafka

namespace weir::kafka {
namespace {

// Throughput against kcat on the same mock broker. Not a timed test: it only prints numbers, and
// runs when WEIR_KAFKA_PERF=1 (bench material).
TEST(ConsumerPerf, ReadThroughputVersusKcat) {
  if (std::getenv("WEIR_KAFKA_PERF") == nullptr) GTEST_SKIP() << "set WEIR_KAFKA_PERF=1";
  const int partitions = 4;
  const int per_partition = std::getenv("WEIR_KAFKA_PERF_N") ? std::atoi(std::getenv("WEIR_KAFKA_PERF_N")) : 250000;
  MockCluster cluster;
  cluster.CreateTopic("perf", partitions);
  {
    Producer producer(cluster.bootstraps(), "lz4", 10000);
    Produced r;
    r.value = std::string(200, 'x');
    for (int i = 0; i < per_partition; ++i) {
      r.key = std::to_string(i);
      for (int p = 0; p < partitions; ++p) producer.Send("perf", p, r);
    }
    producer.Flush();
  }
  const double total = static_cast<double>(partitions) * per_partition;
  for (int round = 0; round < 3; ++round) {
    auto t0 = std::chrono::steady_clock::now();
    auto source = OpenSource({{"kafka.bootstrap.servers", cluster.bootstraps()}, {"subscribe", "perf"}});
    std::vector<OffsetRange> ranges;
    for (int p = 0; p < partitions; ++p) ranges.push_back({{"perf", p}, 0, per_partition});
    ASSERT_OK_AND_ASSIGN(auto reader, source->Read(ranges));
    int64_t n = 0, bytes = 0;
    while (!reader->done()) {
      ASSERT_OK_AND_ASSIGN(RecordBatch batch, reader->Next(10000));
      for (const auto& rec : batch) bytes += static_cast<int64_t>(rec.value->size());
      EXPECT_GE(bytes, 0);
      n += static_cast<int64_t>(batch.size());
    }
    double weir_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(n, static_cast<int64_t>(total));
    reader.reset();
    source.reset();

    t0 = std::chrono::steady_clock::now();
    std::string cmd = "kcat -C -b " + cluster.bootstraps() + " -t perf -o beginning -e -q > /dev/null";
    int rc = std::system(cmd.c_str());
    double kcat_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("round %d: %.0f records: weir %.3f s (%.0f rec/s), kcat -C -e -q %.3f s (%.0f rec/s), rc %d\n",
                round, total, weir_s, total / weir_s, kcat_s, total / kcat_s, rc);
  }
}

}  // namespace
}  // namespace weir::kafka
