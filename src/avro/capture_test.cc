#include "avro/capture.h"

#include <gtest/gtest.h>

#include "avro/reader.h"
#include "avro/test_writer.h"
#include "base/testing.h"
#include "columnar/text_format.h"

namespace weir::avro {
namespace {

using columnar::Batch;
using testing::Block;
using testing::ContainerFile;
using testing::Encoder;

TEST(CaptureTest, Paths) {
  ASSERT_OK_AND_ASSIGN(
      CapturePath p,
      ParseCapturePath(
          "/data/capture/tfdatamigratens/hubdatamigration/1/2017/08/31/19/11/45.avro"));
  EXPECT_EQ(p.namespace_name, "tfdatamigratens");
  EXPECT_EQ(p.event_hub, "hubdatamigration");
  EXPECT_EQ(p.partition, 1);
  ASSERT_OK_AND_ASSIGN(p, ParseCapturePath("ns/hub/31/2026/1/2/3/4/5.avro"));
  EXPECT_EQ(p.partition, 31);
  auto bad = ParseCapturePath("ns/hub/x/2017/08/31/19/11/45.avro");
  EXPECT_EQ(bad.status().ToString(),
            "InvalidArgument: 'ns/hub/x/2017/08/31/19/11/45.avro' is not a Capture file path "
            "{Namespace}/{EventHub}/"
            "{PartitionId}/{Year}/{Month}/{Day}/{Hour}/{Minute}/{Second}.avro (Capture's default "
            "layout): the "
            "partition id 'x' is not a number");
  EXPECT_NE(
      ParseCapturePath("hub/1/2017/08/31/19/11/45.avro").status().message().find("fewer than 9"),
      std::string::npos);
  EXPECT_NE(ParseCapturePath("ns/hub/1/2017/08/31/19/11/45.json")
                .status()
                .message()
                .find("{Second}.avro"),
            std::string::npos);
  EXPECT_NE(ParseCapturePath("ns/hub/1/17/08/31/19/11/45.avro")
                .status()
                .message()
                .find("'17' is not a number"),
            std::string::npos);
}

int64_t Micros(const char* iso) { return *columnar::ParseTimestamp(iso); }

TEST(CaptureTest, EnqueuedTimeUtc) {
  EXPECT_EQ(ParseCaptureTime("8/31/2017 7:12:14 PM"), Micros("2017-08-31T19:12:14Z"));
  EXPECT_EQ(ParseCaptureTime("12/1/2025 12:00:00 AM"), Micros("2025-12-01T00:00:00Z"));
  EXPECT_EQ(ParseCaptureTime("1/1/2026 12:30:59 PM"), Micros("2026-01-01T12:30:59Z"));
  EXPECT_EQ(ParseCaptureTime("02/29/2024 11:59:59 am"), Micros("2024-02-29T11:59:59Z"));
  EXPECT_EQ(ParseCaptureTime("2017-08-31T19:12:14.5Z"), Micros("2017-08-31T19:12:14.5Z"));
  for (const char* bad : {"", "8/31/2017 7:12:14", "8/31/2017 13:12:14 PM", "8/31/2017 0:12:14 AM",
                          "2/29/2023 1:00:00 AM", "13/1/2017 1:00:00 AM", "8/31/2017 7:12:14 XM",
                          "8/31/17 7:12:14 PM", "8/31/2017 7:2:14 PM", "8/31/2017 7:12:14 PMx"}) {
    EXPECT_FALSE(ParseCaptureTime(bad).has_value()) << bad;
  }
}

const char* kEventData =
    R"({"type":"record","name":"EventData","namespace":"Microsoft.ServiceBus.Messaging","fields":[
  {"name":"SequenceNumber","type":"long"},
  {"name":"Offset","type":"string"},
  {"name":"EnqueuedTimeUtc","type":"string"},
  {"name":"SystemProperties","type":{"type":"map","values":["long","double","string","bytes"]}},
  {"name":"Properties","type":{"type":"map","values":["long","double","string","bytes","null"]}},
  {"name":"Body","type":["null","bytes"]}]})";

TEST(CaptureTest, EventsAsKafkaRows) {
  Encoder e;
  // Event 1: a partition key, three properties (string, long, null), a body.
  e.Long(41).String("1024").String("8/31/2017 7:12:14 PM");
  e.Long(2)
      .String("x-opt-sequence-number")
      .Long(0)
      .Long(41)
      .String("x-opt-partition-key")
      .Long(2)
      .String("dev-1")
      .Long(0);
  e.Long(4)
      .String("app")
      .Long(2)
      .String("thermo")
      .String("n")
      .Long(0)
      .Long(-7)
      .String("nil")
      .Long(4)
      .String("d")
      .Long(1)
      .Double(0.25)
      .Long(0);
  e.Long(1).Bytes("{\"t\":21.5}");
  // Event 2: no key, no properties, a null body.
  e.Long(42).String("2048").String("8/31/2017 7:12:15 PM");
  e.Long(1).String("x-opt-offset").Long(2).String("2048").Long(0);
  e.Long(0);
  e.Long(0);
  std::string file = ContainerFile(kEventData, "deflate", {Block{2, e.str()}});
  ASSERT_OK_AND_ASSIGN(auto reader,
                       AvroReader::OpenBuffer("ns/hub/3/2017/08/31/19/11/45.avro", file));
  ASSERT_OK_AND_ASSIGN(Batch events, reader->ReadAll());
  ASSERT_OK_AND_ASSIGN(CapturePath from, ParseCapturePath(reader->path()));
  Batch out(CaptureKafkaSchema());
  ASSERT_OK(AppendCaptureEvents(events, from, &out));
  EXPECT_EQ(
      out.schema.ToDdl(),
      "key BINARY, value BINARY, topic STRING, partition INT, offset BIGINT, timestamp TIMESTAMP, "
      "timestampType INT, headers ARRAY<STRUCT<key: STRING, value: BINARY>>");
  ASSERT_EQ(out.num_rows(), 2);
  EXPECT_EQ(out.columns[0].StringAt(0), "dev-1");
  EXPECT_TRUE(out.columns[0].IsNull(1));
  EXPECT_EQ(out.columns[1].StringAt(0), "{\"t\":21.5}");
  EXPECT_TRUE(out.columns[1].IsNull(1));
  EXPECT_EQ(out.columns[2].StringAt(1), "hub");
  EXPECT_EQ(out.columns[3].Value<int32_t>(1), 3);
  EXPECT_EQ(out.columns[4].Value<int64_t>(0), 41);
  EXPECT_EQ(out.columns[4].Value<int64_t>(1), 42);
  EXPECT_EQ(out.columns[5].Value<int64_t>(0), Micros("2017-08-31T19:12:14Z"));
  EXPECT_EQ(out.columns[6].Value<int32_t>(0), 1);
  const auto& headers = out.columns[7];
  EXPECT_EQ(headers.offsets()[1], 4);
  EXPECT_TRUE(headers.IsNull(1));
  const auto& h = headers.child(0);
  EXPECT_EQ(h.child(0).StringAt(0), "app");
  EXPECT_EQ(h.child(1).StringAt(0), "thermo");
  EXPECT_EQ(h.child(1).StringAt(1), "-7");
  EXPECT_TRUE(h.child(1).IsNull(2));
  EXPECT_EQ(h.child(1).StringAt(3), "0.25");
}

TEST(CaptureTest, NotCaptureOrBadTime) {
  std::string other =
      ContainerFile(R"({"type":"record","name":"r","fields":[{"name":"v","type":"long"}]})", "null",
                    {Block{1, Encoder().Long(1).str()}});
  ASSERT_OK_AND_ASSIGN(auto reader, AvroReader::OpenBuffer("x.avro", other));
  ASSERT_OK_AND_ASSIGN(Batch events, reader->ReadAll());
  Batch out(CaptureKafkaSchema());
  EXPECT_EQ(
      AppendCaptureEvents(events, CapturePath{}, &out).ToString(),
      "InvalidArgument: not a Capture file: no field SequenceNumber (fields: v BIGINT NOT NULL)");

  Encoder e;
  e.Long(7).String("0").String("yesterday").Long(0).Long(0).Long(0);
  const std::string bad_time = ContainerFile(kEventData, "null", {Block{1, e.str()}});
  ASSERT_OK_AND_ASSIGN(reader, AvroReader::OpenBuffer("c.avro", bad_time));
  ASSERT_OK_AND_ASSIGN(events, reader->ReadAll());
  out = Batch(CaptureKafkaSchema());
  EXPECT_EQ(AppendCaptureEvents(events, CapturePath{}, &out).ToString(),
            "InvalidArgument: event SequenceNumber 7: EnqueuedTimeUtc 'yesterday' is not M/d/yyyy "
            "h:mm:ss AM/PM nor "
            "ISO-8601");
}

}  // namespace
}  // namespace weir::avro
