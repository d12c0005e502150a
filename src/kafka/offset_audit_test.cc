#include "kafka/offset_audit.h"

#include <gtest/gtest.h>

#include <limits>

#include "base/testing.h"
#include "kafka/testing.h"

namespace weir::kafka {
namespace {

using K = GapKind;

std::string Text(const std::vector<GapPart>& parts, const PartitionObservation& o,
                 const GapContext& c) {
  std::string out;
  for (const GapPart& p : parts) {
    if (!out.empty()) out += "; ";
    out += std::to_string(p.from) + "-" + std::to_string(p.to - 1) + " " + DescribeGapPart(p, o, c);
  }
  return out;
}

TEST(OffsetSetTest, AddMergesAndContains) {
  OffsetSet s;
  s.Add(10, 12);
  s.Add(20);
  s.Add(12, 13);  // touches the first span
  s.Add(5, 6);    // before everything
  s.Add(14, 21);  // joins up to and over 20
  EXPECT_EQ(s.spans(), (std::vector<OffsetSpan>{{5, 6}, {10, 13}, {14, 21}}));
  s.Add(4, 30);   // swallows all
  EXPECT_EQ(s.spans(), (std::vector<OffsetSpan>{{4, 30}}));
  EXPECT_TRUE(s.Contains(4));
  EXPECT_TRUE(s.Contains(29));
  EXPECT_FALSE(s.Contains(30));
  EXPECT_FALSE(s.Contains(3));
  s.Add(7, 7);  // empty: ignored
  EXPECT_EQ(s.spans().size(), 1u);
}

TEST(OffsetSetTest, NextChange) {
  OffsetSet s;
  s.Add(10, 12);
  s.Add(20, 25);
  EXPECT_EQ(s.NextChange(0), 10);
  EXPECT_EQ(s.NextChange(10), 12);
  EXPECT_EQ(s.NextChange(11), 12);
  EXPECT_EQ(s.NextChange(12), 20);
  EXPECT_EQ(s.NextChange(24), 25);
  EXPECT_EQ(s.NextChange(25), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(OffsetSet().NextChange(3), std::numeric_limits<int64_t>::max());
}

// The txn case of tests/kafka_real_test.sh: per partition commit (0-9, marker 10), abort (11-20,
// marker 21), commit (22-31, marker 32), abort (33-42, marker 43), commit (44-53, marker 54). A
// read_committed table has 0-9, 22-31, 44-53: gaps [10, 22) and [32, 44).
PartitionObservation TxnTopic() {
  PartitionObservation o;
  o.log_start = 0;
  o.log_end = 55;
  o.stable_end = 55;
  o.uncommitted_read.Add(10, 22);
  o.uncommitted_read.Add(32, 44);
  o.uncommitted_records.Add(11, 21);
  o.uncommitted_records.Add(33, 43);
  o.committed_read.Add(11, 21);
  o.committed_read.Add(33, 43);
  return o;
}

TEST(ClassifyGapTest, ReadCommittedFlowMarkersAndAbortedDataAreExplained) {
  PartitionObservation o = TxnTopic();
  GapContext c{/*compacted=*/false, /*flow_read_committed=*/true};
  auto parts = ClassifyGap(10, 22, o, c);
  EXPECT_EQ(parts, (std::vector<GapPart>{{10, 11, K::kMarker}, {11, 21, K::kAborted}, {21, 22, K::kMarker}}));
  EXPECT_EQ(Text(parts, o, c), "10-10 transaction marker; 11-20 aborted transaction; 21-21 transaction marker");
  for (const GapPart& p : parts) EXPECT_TRUE(IsExplained(p.kind));
  EXPECT_EQ(ClassifyGap(32, 44, o, c),
            (std::vector<GapPart>{{32, 33, K::kMarker}, {33, 43, K::kAborted}, {43, 44, K::kMarker}}));
}

TEST(ClassifyGapTest, ReadUncommittedFlowMissingAbortedDataIsAGap) {
  // The same topic, a read_uncommitted flow's table without the aborted records: they are records
  // the flow reads, so their absence is a real gap; the markers are not.
  PartitionObservation o = TxnTopic();
  GapContext c{false, /*flow_read_committed=*/false};
  auto parts = ClassifyGap(10, 22, o, c);
  EXPECT_EQ(parts, (std::vector<GapPart>{{10, 11, K::kMarker}, {11, 21, K::kAbortedDelivered}, {21, 22, K::kMarker}}));
  EXPECT_FALSE(IsExplained(K::kAbortedDelivered));
  EXPECT_EQ(DescribeGapPart(parts[1], o, c),
            "records of aborted transactions, which the flow reads (isolation.level=read_uncommitted)");
}

TEST(ClassifyGapTest, CommittedRecordsTheTableLacksStayGaps) {
  // A table missing committed offsets 5-9 next to the marker at 10: [5, 22) splits into a real
  // gap and the explained rest.
  PartitionObservation o = TxnTopic();
  o.uncommitted_read.Add(5, 10);
  o.uncommitted_records.Add(5, 10);
  o.committed_read.Add(5, 10);
  o.committed_records.Add(5, 10);
  GapContext c{false, true};
  auto parts = ClassifyGap(5, 22, o, c);
  EXPECT_EQ(parts, (std::vector<GapPart>{{5, 10, K::kCommitted}, {10, 11, K::kMarker},
                                          {11, 21, K::kAborted}, {21, 22, K::kMarker}}));
  EXPECT_FALSE(IsExplained(K::kCommitted));
  EXPECT_EQ(DescribeGapPart(parts[0], o, c), "committed records the broker still has");
  EXPECT_EQ(DescribeGapPart({7, 8, K::kCommitted}, o, c), "committed record the broker still has");
}

TEST(ClassifyGapTest, CompactedTopic) {
  PartitionObservation o;
  o.log_start = 0;
  o.log_end = 120;
  o.uncommitted_read.Add(0, 120);
  o.uncommitted_records.Add(60, 61);  // a record the table lacks, between compacted offsets
  o.committed_read.Add(60, 61);
  o.committed_records.Add(60, 61);
  GapContext c{/*compacted=*/true, false};
  auto parts = ClassifyGap(3, 100, o, c);
  EXPECT_EQ(parts, (std::vector<GapPart>{{3, 60, K::kCompactedOrMarker}, {60, 61, K::kCommitted},
                                          {61, 100, K::kCompactedOrMarker}}));
  EXPECT_EQ(DescribeGapPart(parts[0], o, c), "compacted away (or transaction markers)");
  EXPECT_EQ(DescribeGapPart({7, 8, K::kCompactedOrMarker}, o, c), "compacted away (or transaction marker)");
  // cleanup.policy unknown: hedged.
  GapContext unknown{std::nullopt, false};
  EXPECT_EQ(ClassifyGap(3, 5, o, unknown), (std::vector<GapPart>{{3, 5, K::kNoRecord}}));
  EXPECT_TRUE(IsExplained(K::kNoRecord));
  EXPECT_EQ(DescribeGapPart({3, 5, K::kNoRecord}, o, unknown),
            "no record at the broker (transaction markers or compacted away)");
}

TEST(ClassifyGapTest, BelowTheLogStartIsRetention) {
  PartitionObservation o;
  o.log_start = 1000;
  o.log_end = 1200;
  o.uncommitted_read.Add(1000, 1003);
  o.uncommitted_records.Add(1001, 1003);
  o.committed_read.Add(1001, 1003);
  o.committed_records.Add(1001, 1003);
  GapContext c{false, false};
  auto parts = ClassifyGap(400, 1003, o, c);
  EXPECT_EQ(parts, (std::vector<GapPart>{{400, 1000, K::kRetention}, {1000, 1001, K::kMarker},
                                          {1001, 1003, K::kCommitted}}));
  EXPECT_EQ(DescribeGapPart(parts[0], o, c), "deleted by retention (log start offset 1000)");
  EXPECT_TRUE(IsExplained(K::kRetention));
}

TEST(ClassifyGapTest, WhatWasNotReadIsUnverified) {
  PartitionObservation o;
  o.log_start = 0;
  o.log_end = 1000;
  o.uncommitted_read.Add(10, 50);  // the budget ran out at 50
  o.unverified_reason = "the limit of 100 records read from the broker was reached";
  GapContext c{false, true};
  auto parts = ClassifyGap(10, 80, o, c);
  EXPECT_EQ(parts, (std::vector<GapPart>{{10, 50, K::kMarker}, {50, 80, K::kUnverified}}));
  EXPECT_EQ(DescribeGapPart(parts[1], o, c),
            "unverified: the limit of 100 records read from the broker was reached");
  EXPECT_FALSE(IsExplained(K::kUnverified));
  // Nothing known at all (the broker was not asked).
  EXPECT_EQ(ClassifyGap(3, 7, PartitionObservation(), c), (std::vector<GapPart>{{3, 7, K::kUnverified}}));
  EXPECT_EQ(DescribeGapPart({3, 7, K::kUnverified}, PartitionObservation(), c),
            "unverified: not read from the broker");
}

TEST(ClassifyGapTest, RecordsNotReadCommitted) {
  // Records seen with read_uncommitted whose transaction state is unknown: above the last stable
  // offset a transaction is still open; below it, a read_committed flow cannot tell (unverified)
  // and a read_uncommitted flow should have read them whatever happens (a gap).
  PartitionObservation o;
  o.log_start = 0;
  o.log_end = 100;
  o.stable_end = 90;
  o.uncommitted_read.Add(80, 100);
  o.uncommitted_records.Add(80, 100);
  GapContext rc{false, true}, ru{false, false};
  EXPECT_EQ(ClassifyGap(80, 100, o, rc),
            (std::vector<GapPart>{{80, 90, K::kUnverified}, {90, 100, K::kOpenTransaction}}));
  EXPECT_EQ(ClassifyGap(80, 100, o, ru),
            (std::vector<GapPart>{{80, 90, K::kRecord}, {90, 100, K::kOpenTransaction}}));
  EXPECT_EQ(DescribeGapPart({90, 100, K::kOpenTransaction}, o, ru),
            "records of a transaction still open (at or above the last stable offset 90)");
  EXPECT_FALSE(IsExplained(K::kOpenTransaction));
  EXPECT_FALSE(IsExplained(K::kRecord));
}

TEST(ClassifyGapTest, BeyondTheLatestOffset) {
  PartitionObservation o;
  o.log_start = 0;
  o.log_end = 50;
  o.uncommitted_read.Add(40, 50);
  GapContext c{false, false};
  EXPECT_EQ(ClassifyGap(40, 60, o, c),
            (std::vector<GapPart>{{40, 50, K::kMarker}, {50, 60, K::kBeyondEnd}}));
  EXPECT_EQ(DescribeGapPart({50, 60, K::kBeyondEnd}, o, c),
            "beyond the partition's latest offset 50 (was the topic recreated?)");
}

TEST(GapKindTest, JsonNames) {
  EXPECT_STREQ(GapKindName(K::kMarker), "transaction_marker");
  EXPECT_STREQ(GapKindName(K::kAborted), "aborted_transaction");
  EXPECT_STREQ(GapKindName(K::kCompactedOrMarker), "compacted_or_marker");
  EXPECT_STREQ(GapKindName(K::kRetention), "retention");
  EXPECT_STREQ(GapKindName(K::kCommitted), "committed");
  EXPECT_STREQ(GapKindName(K::kUnverified), "unverified");
}

TEST(PlanReadSpansTest, MergesClosestGapsWithinBudget) {
  std::vector<OffsetSpan> gaps = {{10, 22}, {32, 44}, {1000, 1001}, {5000, 5002}};
  // Separations: 10 (22..32), 956, 3999.
  EXPECT_EQ(PlanReadSpans(gaps, 0), gaps);
  EXPECT_EQ(PlanReadSpans(gaps, 10), (std::vector<OffsetSpan>{{10, 44}, {1000, 1001}, {5000, 5002}}));
  EXPECT_EQ(PlanReadSpans(gaps, 1000), (std::vector<OffsetSpan>{{10, 1001}, {5000, 5002}}));
  EXPECT_EQ(PlanReadSpans(gaps, 100000), (std::vector<OffsetSpan>{{10, 5002}}));
  EXPECT_TRUE(PlanReadSpans({}, 10).empty());
  // The smallest separations go first, wherever they are.
  EXPECT_EQ(PlanReadSpans({{0, 1}, {500, 501}, {502, 503}}, 5),
            (std::vector<OffsetSpan>{{0, 1}, {500, 503}}));
}

// Against librdkafka's mock cluster (no transactions there): every offset of a plain topic has a
// committed record, so a table's gap is a real one; offsets past the log end are named so.
TEST(ObserveGapsTest, PlainTopicGapsAreCommittedRecords) {
  testing::MockCluster cluster;
  ASSERT_TRUE(cluster.CreateTopic("plain", 1));
  std::vector<std::string> values;
  for (int i = 0; i < 30; ++i) values.push_back("v" + std::to_string(i));
  ASSERT_TRUE(cluster.Produce("plain", 0, values));
  std::map<std::string, std::string> options = {{"kafka.bootstrap.servers", cluster.bootstraps()},
                                                {"subscribe", "other"},
                                                {"startingOffsets", "latest"}};
  // The mock cluster does not answer DescribeConfigs: a short request timeout.
  AuditLimits limits;
  limits.request_timeout_ms = 1000;
  ASSERT_OK_AND_ASSIGN(BrokerObservation seen,
                       ObserveGaps(options, {}, "plain", {{0, {{3, 5}, {10, 12}, {28, 35}}}}, limits));
  for (const auto& note : seen.notes) std::fprintf(stderr, "note: %s\n", note.c_str());
  const PartitionObservation& o = seen.partitions.at(0);
  EXPECT_EQ(o.log_start, 0);
  EXPECT_EQ(o.log_end, 30);
  GapContext c{seen.compacted, false};
  EXPECT_EQ(ClassifyGap(3, 5, o, c), (std::vector<GapPart>{{3, 5, K::kCommitted}}));
  EXPECT_EQ(ClassifyGap(10, 12, o, c), (std::vector<GapPart>{{10, 12, K::kCommitted}}));
  EXPECT_EQ(ClassifyGap(28, 35, o, c),
            (std::vector<GapPart>{{28, 30, K::kCommitted}, {30, 35, K::kBeyondEnd}}));
  // Only records in the gaps are kept, though the read covered 3..30 as one range.
  EXPECT_EQ(o.uncommitted_records.spans(), (std::vector<OffsetSpan>{{3, 5}, {10, 12}, {28, 30}}));

  // A budget too small to read everything leaves the rest unverified, saying why.
  AuditLimits small = limits;
  small.max_records = 4;
  small.merge_records = 0;
  ASSERT_OK_AND_ASSIGN(BrokerObservation bounded,
                       ObserveGaps(options, {}, "plain", {{0, {{3, 5}, {10, 12}, {20, 22}}}}, small));
  const PartitionObservation& b = bounded.partitions.at(0);
  EXPECT_LE(bounded.records_read, 6);
  auto parts = ClassifyGap(20, 22, b, c);
  ASSERT_FALSE(parts.empty());
  EXPECT_EQ(parts.back().kind, K::kUnverified);
  EXPECT_EQ(DescribeGapPart(parts.back(), b, c),
            "unverified: the limit of 4 records read from the broker was reached");

  // A partition the topic does not have.
  ASSERT_OK_AND_ASSIGN(BrokerObservation missing, ObserveGaps(options, {}, "plain", {{7, {{0, 2}}}}, limits));
  EXPECT_EQ(ClassifyGap(0, 2, missing.partitions.at(7), c), (std::vector<GapPart>{{0, 2, K::kUnverified}}));
  EXPECT_EQ(missing.partitions.at(7).unverified_reason, "the topic plain has no partition 7");
}

TEST(ObserveGapsTest, UnreachableBrokerFailsWithoutSecrets) {
  std::map<std::string, std::string> options = {
      {"kafka.bootstrap.servers", "127.0.0.1:1"},
      {"kafka.request.timeout.ms", "1500"},
      {"kafka.sasl.jaas.config",
       "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" "
       "password=\"hunter2-secret\";"},
      {"kafka.security.protocol", "SASL_PLAINTEXT"},
      {"kafka.sasl.mechanism", "PLAIN"}};
  auto seen = ObserveGaps(options, {"hunter2-secret"}, "t", {{0, {{1, 2}}}});
  ASSERT_FALSE(seen.ok());
  EXPECT_EQ(seen.status().message().find("hunter2"), std::string::npos) << seen.status().ToString();
}

}  // namespace
}  // namespace weir::kafka
