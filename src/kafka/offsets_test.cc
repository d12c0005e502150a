#include "kafka/offsets.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/testing.h"

namespace weir::kafka {
namespace {

TEST(OffsetsTest, TopicPartitionPrintsLikeKafka) {
  EXPECT_EQ(TopicPartition({"orders", 3}).ToString(), "orders-3");
  EXPECT_EQ(FormatPartitionSet({{"b", 1}, {"a", 2}}), "Set(a-2, b-1)");
  EXPECT_EQ(FormatOffsetMap({{{"a", 0}, 5}, {{"a", 1}, 7}}), "Map(a-0 -> 5, a-1 -> 7)");
}

TEST(OffsetsTest, JsonSortsTopicsAndPartitionsNumerically) {
  PartitionOffsets offsets = {{{"t", 10}, 5}, {{"t", 2}, 7}, {{"a", 0}, -2}, {{"t", 1}, 0}};
  EXPECT_EQ(PartitionOffsetsToJson(offsets), R"({"a":{"0":-2},"t":{"1":0,"2":7,"10":5}})");
  EXPECT_EQ(PartitionOffsetsToJson({}), "{}");
}

TEST(OffsetsTest, JsonRoundTripsAndAcceptsSparkHashOrder) {
  // Spark writes partitions in hash order (this line is from a Spark 2.4.3 checkpoint).
  ASSERT_OK_AND_ASSIGN(PartitionOffsets parsed,
                       PartitionOffsetsFromJson(R"({"topic":{"2":3,"4":3,"1":3,"3":3,"0":3}})"));
  ASSERT_EQ(parsed.size(), 5u);
  for (int p = 0; p < 5; ++p) EXPECT_EQ((parsed[TopicPartition{"topic", p}]), 3);
  EXPECT_EQ(PartitionOffsetsToJson(parsed), R"({"topic":{"0":3,"1":3,"2":3,"3":3,"4":3}})");
  ASSERT_OK_AND_ASSIGN(PartitionOffsets again, PartitionOffsetsFromJson(PartitionOffsetsToJson(parsed)));
  EXPECT_EQ(again, parsed);
  // Large offsets and a topic name needing escapes survive.
  PartitionOffsets odd = {{{"we\"ird", 0}, 9007199254740993LL}};
  ASSERT_OK_AND_ASSIGN(PartitionOffsets odd_back, PartitionOffsetsFromJson(PartitionOffsetsToJson(odd)));
  EXPECT_EQ(odd_back, odd);
}

TEST(OffsetsTest, BadOffsetJsonFailsWithSparksText) {
  for (const char* bad : {"", "[]", R"({"t":5})", R"({"t":{"x":1}})", R"({"t":{"0":"1"}})",
                          R"({"t":{"0":1.5}})", "{"}) {
    auto r = PartitionOffsetsFromJson(bad);
    ASSERT_STATUS_CODE(kInvalidArgument, r);
    EXPECT_EQ(r.status().message(),
              std::string(R"(Expected e.g. {"topicA":{"0":23,"1":-1},"topicB":{"0":-2}}, got )") + bad);
  }
}

TEST(OffsetsTest, AssignJson) {
  ASSERT_OK_AND_ASSIGN(auto tps, TopicPartitionsFromJson(R"({"b":[2,0],"a":[1,1]})"));
  ASSERT_EQ(tps.size(), 3u);
  EXPECT_EQ(tps[0], (TopicPartition{"a", 1}));
  EXPECT_EQ(tps[1], (TopicPartition{"b", 0}));
  EXPECT_EQ(tps[2], (TopicPartition{"b", 2}));
  EXPECT_EQ(TopicPartitionsToJson(tps), R"({"a":[1],"b":[0,2]})");
  auto bad = TopicPartitionsFromJson(R"({"a":{"0":1}})");
  ASSERT_STATUS_CODE(kInvalidArgument, bad);
  EXPECT_EQ(bad.status().message(), R"(Expected e.g. {"topicA":[0,1],"topicB":[0,1]}, got {"a":{"0":1}})");
}

TEST(OffsetsTest, TimestampJson) {
  ASSERT_OK_AND_ASSIGN(auto ts, PartitionTimestampsFromJson(R"({"t": {"0": 1000, "1": 2000}})"));
  EXPECT_EQ((ts[TopicPartition{"t", 1}]), 2000);
  auto bad = PartitionTimestampsFromJson("nope");
  ASSERT_STATUS_CODE(kInvalidArgument, bad);
  EXPECT_NE(bad.status().message().find("Expected e.g. {\"topicA\": {\"0\": 123456789"),
            std::string::npos);
}

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(OffsetsTest, ParsesOffsetsWrittenBySpark) {
  // Offset JSON written by Spark itself.
  WEIR_REQUIRE_CONFORMANCE(corpus, "spark-checkpoints/spark-kafka-0-10-sql");
  const std::filesystem::path dir = corpus;
  // A KafkaSourceOffset as text.
  std::string text = ReadFile(dir / "kafka-source-offset-version-2.1.0.txt");
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  ASSERT_OK_AND_ASSIGN(PartitionOffsets a, PartitionOffsetsFromJson(text));
  EXPECT_EQ(a, (PartitionOffsets{{{"topic1", 0}, 456}, {{"topic1", 1}, 789}, {{"topic2", 0}, 0}}));

  // Line 3 of offsets/0 in a Spark 2.4.3 checkpoint.
  std::string log = ReadFile(
      dir / "structured-streaming" / "checkpoint-version-2.4.3-kafka-include-headers-default" /
      "offsets" / "0");
  std::istringstream lines(log);
  std::string line, last;
  int n = 0;
  while (std::getline(lines, line)) {
    ++n;
    last = line;
  }
  ASSERT_EQ(n, 3);
  ASSERT_OK_AND_ASSIGN(PartitionOffsets b, PartitionOffsetsFromJson(last));
  ASSERT_EQ(b.size(), 5u);
  EXPECT_EQ(b.begin()->first.topic, "spark-test-topic-2b8619f5-d3c4-4c2d-b5d1-8d9d9458aa62");
  for (const auto& [tp, off] : b) EXPECT_EQ(off, 3);

  // sources/0/0: one lead byte, then "v1\n" and the JSON (Spark 2.1.0 wrote a length byte
  // followed by the JSON).
  std::string initial = ReadFile(dir / "kafka-source-initial-offset-version-2.1.0.bin");
  ASSERT_GT(initial.size(), 1u);
  ASSERT_OK_AND_ASSIGN(PartitionOffsets c, PartitionOffsetsFromJson(initial.substr(1)));
  EXPECT_EQ(c, (PartitionOffsets{{{"kafka-initial-offset-2-1-0", 0}, 0},
                                 {{"kafka-initial-offset-2-1-0", 1}, 1},
                                 {{"kafka-initial-offset-2-1-0", 2}, 2}}));
}

}  // namespace
}  // namespace weir::kafka
