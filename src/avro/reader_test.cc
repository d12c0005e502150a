#include "avro/reader.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <cmath>

#include "avro/test_writer.h"
#include "base/testing.h"
#include "columnar/text_format.h"

namespace weir::avro {
namespace {

using columnar::Batch;
using columnar::Column;
using columnar::Int128;
using testing::Block;
using testing::ContainerFile;
using testing::Encoder;

Result<Batch> ReadFile(const std::string& bytes, ReaderOptions options = {}) {
  WEIR_ASSIGN_OR_RETURN(auto reader, AvroReader::OpenBuffer("t.avro", bytes, options));
  return reader->ReadAll();
}

// The error of reading `bytes` (open or read), as "Corruption: ...".
std::string ErrorOf(const std::string& bytes, ReaderOptions options = {}) {
  auto batch = ReadFile(bytes, options);
  return batch.ok() ? "OK" : batch.status().ToString();
}

const char* kAllTypes = R"({"type":"record","name":"All","namespace":"t","fields":[
  {"name":"b","type":"boolean"},
  {"name":"i","type":"int"},
  {"name":"l","type":"long"},
  {"name":"f","type":"float"},
  {"name":"d","type":"double"},
  {"name":"by","type":"bytes"},
  {"name":"s","type":"string"},
  {"name":"e","type":{"type":"enum","name":"Color","symbols":["RED","GREEN","BLUE"]}},
  {"name":"fx","type":{"type":"fixed","name":"F3","size":3}},
  {"name":"arr","type":{"type":"array","items":["null","long"]}},
  {"name":"m","type":{"type":"map","values":"string"}},
  {"name":"rec","type":["null",{"type":"record","name":"Point","fields":[{"name":"x","type":"int"},{"name":"y","type":"double"}]}]},
  {"name":"u","type":["null","int","string"]},
  {"name":"il","type":["int","long"]},
  {"name":"fd","type":["float","double"]},
  {"name":"date","type":{"type":"int","logicalType":"date"}},
  {"name":"tms","type":{"type":"int","logicalType":"time-millis"}},
  {"name":"tus","type":{"type":"long","logicalType":"time-micros"}},
  {"name":"tsm","type":{"type":"long","logicalType":"timestamp-millis"}},
  {"name":"tsu","type":{"type":"long","logicalType":"timestamp-micros"}},
  {"name":"ltm","type":{"type":"long","logicalType":"local-timestamp-millis"}},
  {"name":"ltu","type":{"type":"long","logicalType":"local-timestamp-micros"}},
  {"name":"decb","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
  {"name":"decf","type":{"type":"fixed","name":"D16","size":16,"logicalType":"decimal","precision":38,"scale":0}},
  {"name":"uuid","type":{"type":"string","logicalType":"uuid"}},
  {"name":"ns","type":["null","string"]}
]})";

// Record r (0, 1 or 2) of the all-types file.
void EncodeAllTypes(int r, Encoder* e) {
  e->Bool(r % 2 == 1);
  e->Int(r == 0 ? -2147483648 : r == 1 ? 2147483647 : 0);
  e->Long(r == 0 ? INT64_MIN : r == 1 ? INT64_MAX : -1);
  e->Float(r == 0 ? 1.5f : r == 1 ? -0.0f : INFINITY);
  e->Double(r == 0 ? 3.25 : r == 1 ? 1e300 : NAN);
  e->Bytes(r == 0 ? std::string("\x00\xff", 2) : r == 1 ? "" : "xyz");
  e->String(r == 0 ? "h\xc3\xa9llo" : r == 1 ? "" : "z");
  e->Int(r);  // enum
  e->Raw(r == 0 ? "abc" : r == 1 ? std::string("\0\0\0", 3) : "xyz");
  if (r == 0) {  // array: one block of [5, null], a negative-count block with its size of [7]
    e->Long(2).Long(1).Long(5).Long(0);
    Encoder item;
    item.Long(1).Long(7);
    e->Long(-1).Long(static_cast<int64_t>(item.str().size())).Raw(item.str());
    e->Long(0);
  } else {
    e->Long(0);  // empty array
  }
  if (r == 1) {
    e->Long(2).String("k1").String("v1").String("k2").String("").Long(0);
  } else {
    e->Long(0);
  }
  if (r == 2)
    e->Long(0);  // rec: null
  else
    e->Long(1).Int(r + 10).Double(r + 0.5);
  if (r == 0)
    e->Long(1).Int(42);  // u: int
  else if (r == 1)
    e->Long(2).String("s");  // u: string
  else
    e->Long(0);  // u: null
  if (r == 1)
    e->Long(0).Int(-7);  // il: int
  else
    e->Long(1).Long(int64_t{1} << 40);
  if (r == 1)
    e->Long(0).Float(0.5f);  // fd: float
  else
    e->Long(1).Double(0.1);
  e->Int(r == 0 ? 19000 : r == 1 ? -1 : 0);  // date
  e->Int(3600000 + r);                       // time-millis
  e->Long(86399999999);                      // time-micros
  e->Long(r == 0 ? 1700000000123 : -1);      // timestamp-millis
  e->Long(r == 0 ? 1700000000123456 : 0);
  e->Long(1234);  // local-timestamp-millis
  e->Long(-5);    // local-timestamp-micros
  // decimal bytes: 12345 (0x3039), -1 (0xff), 999999999 with sign-extension padding.
  e->Bytes(r == 0   ? std::string("\x30\x39", 2)
           : r == 1 ? std::string("\xff", 1)
                    : std::string("\x00\x00\x3b\x9a\xc9\xff", 6));
  std::string fixed(16, '\0');
  if (r == 1) fixed = std::string(16, '\xff');  // -1
  if (r == 2) {                                 // 10^38 - 1 = 0x4B3B4CA85A86C47A098A223FFFFFFFFF
    const unsigned char max38[16] = {0x4B, 0x3B, 0x4C, 0xA8, 0x5A, 0x86, 0xC4, 0x7A,
                                     0x09, 0x8A, 0x22, 0x3F, 0xFF, 0xFF, 0xFF, 0xFF};
    fixed.assign(reinterpret_cast<const char*>(max38), 16);
  }
  e->Raw(fixed);
  e->String("123e4567-e89b-12d3-a456-42661417400" + std::to_string(r));
  if (r == 1)
    e->Long(0);
  else
    e->Long(1).String("n" + std::to_string(r));
}

std::string AllTypesFile(const std::string& codec) {
  Encoder first, second;
  EncodeAllTypes(0, &first);
  EncodeAllTypes(1, &first);
  EncodeAllTypes(2, &second);
  return ContainerFile(kAllTypes, codec, {Block{2, first.str()}, Block{1, second.str()}});
}

int Col(const Batch& b, const std::string& name) { return b.schema.FieldIndex(name); }

void CheckAllTypes(const Batch& b) {
  ASSERT_EQ(b.num_rows(), 3);
  EXPECT_EQ(
      b.schema.ToDdl(),
      "b BOOLEAN NOT NULL, i INT NOT NULL, l BIGINT NOT NULL, f FLOAT NOT NULL, d DOUBLE NOT NULL, "
      "by BINARY NOT NULL, s STRING NOT NULL, e STRING NOT NULL, fx BINARY NOT NULL, "
      "arr ARRAY<BIGINT> NOT NULL, m MAP<STRING, STRING> NOT NULL, "
      "rec STRUCT<x: INT NOT NULL, y: DOUBLE NOT NULL>, u STRUCT<member0: INT, member1: STRING>, "
      "il BIGINT NOT NULL, fd DOUBLE NOT NULL, date DATE NOT NULL, tms INT NOT NULL, tus BIGINT "
      "NOT NULL, "
      "tsm TIMESTAMP NOT NULL, tsu TIMESTAMP NOT NULL, ltm TIMESTAMP_NTZ NOT NULL, "
      "ltu TIMESTAMP_NTZ NOT NULL, decb DECIMAL(9,2) NOT NULL, decf DECIMAL(38,0) NOT NULL, "
      "uuid STRING NOT NULL, ns STRING");
  const auto& c = b.columns;
  EXPECT_EQ(c[Col(b, "b")].Value<uint8_t>(0), 0);
  EXPECT_EQ(c[Col(b, "b")].Value<uint8_t>(1), 1);
  EXPECT_EQ(c[Col(b, "i")].Value<int32_t>(0), INT32_MIN);
  EXPECT_EQ(c[Col(b, "i")].Value<int32_t>(1), INT32_MAX);
  EXPECT_EQ(c[Col(b, "l")].Value<int64_t>(0), INT64_MIN);
  EXPECT_EQ(c[Col(b, "l")].Value<int64_t>(1), INT64_MAX);
  EXPECT_EQ(c[Col(b, "l")].Value<int64_t>(2), -1);
  EXPECT_EQ(c[Col(b, "f")].Value<float>(0), 1.5f);
  EXPECT_TRUE(std::signbit(c[Col(b, "f")].Value<float>(1)));
  EXPECT_TRUE(std::isinf(c[Col(b, "f")].Value<float>(2)));
  EXPECT_EQ(c[Col(b, "d")].Value<double>(1), 1e300);
  EXPECT_TRUE(std::isnan(c[Col(b, "d")].Value<double>(2)));
  EXPECT_EQ(c[Col(b, "by")].StringAt(0), std::string("\x00\xff", 2));
  EXPECT_EQ(c[Col(b, "by")].StringAt(1), "");
  EXPECT_EQ(c[Col(b, "s")].StringAt(0), "h\xc3\xa9llo");
  EXPECT_EQ(c[Col(b, "e")].StringAt(0), "RED");
  EXPECT_EQ(c[Col(b, "e")].StringAt(2), "BLUE");
  EXPECT_EQ(c[Col(b, "fx")].StringAt(1), std::string("\0\0\0", 3));
  // arr: [5, null, 7], [], []
  EXPECT_TRUE(b.schema.fields[Col(b, "arr")].type->element().nullable);
  EXPECT_FALSE(b.schema.fields[Col(b, "m")].type->value().nullable);
  const Column& arr = c[Col(b, "arr")];
  EXPECT_EQ(arr.offsets()[0], 0);
  EXPECT_EQ(arr.offsets()[1], 3);
  EXPECT_EQ(arr.offsets()[3], 3);
  EXPECT_EQ(arr.child(0).Value<int64_t>(0), 5);
  EXPECT_TRUE(arr.child(0).IsNull(1));
  EXPECT_EQ(arr.child(0).Value<int64_t>(2), 7);
  const Column& m = c[Col(b, "m")];
  EXPECT_EQ(m.offsets()[1], 0);
  EXPECT_EQ(m.offsets()[2], 2);
  EXPECT_EQ(m.child(0).StringAt(0), "k1");
  EXPECT_EQ(m.child(1).StringAt(0), "v1");
  EXPECT_EQ(m.child(1).StringAt(1), "");
  const Column& rec = c[Col(b, "rec")];
  EXPECT_FALSE(rec.IsNull(0));
  EXPECT_EQ(rec.child(0).Value<int32_t>(1), 11);
  EXPECT_EQ(rec.child(1).Value<double>(1), 1.5);
  EXPECT_TRUE(rec.IsNull(2));
  const Column& u = c[Col(b, "u")];
  EXPECT_EQ(u.child(0).Value<int32_t>(0), 42);
  EXPECT_TRUE(u.child(1).IsNull(0));
  EXPECT_TRUE(u.child(0).IsNull(1));
  EXPECT_EQ(u.child(1).StringAt(1), "s");
  EXPECT_TRUE(u.IsNull(2));
  EXPECT_EQ(c[Col(b, "il")].Value<int64_t>(0), int64_t{1} << 40);
  EXPECT_EQ(c[Col(b, "il")].Value<int64_t>(1), -7);
  EXPECT_EQ(c[Col(b, "fd")].Value<double>(0), 0.1);
  EXPECT_EQ(c[Col(b, "fd")].Value<double>(1), 0.5);
  EXPECT_EQ(c[Col(b, "date")].Value<int32_t>(0), 19000);
  EXPECT_EQ(c[Col(b, "date")].Value<int32_t>(1), -1);
  EXPECT_EQ(c[Col(b, "tms")].Value<int32_t>(2), 3600002);
  EXPECT_EQ(c[Col(b, "tus")].Value<int64_t>(0), 86399999999);
  EXPECT_EQ(c[Col(b, "tsm")].Value<int64_t>(0), 1700000000123000);
  EXPECT_EQ(c[Col(b, "tsm")].Value<int64_t>(1), -1000);
  EXPECT_EQ(c[Col(b, "tsu")].Value<int64_t>(0), 1700000000123456);
  EXPECT_EQ(c[Col(b, "ltm")].Value<int64_t>(0), 1234000);
  EXPECT_EQ(c[Col(b, "ltu")].Value<int64_t>(0), -5);
  EXPECT_EQ(c[Col(b, "decb")].Value<Int128>(0), 12345);
  EXPECT_EQ(c[Col(b, "decb")].Value<Int128>(1), -1);
  EXPECT_EQ(c[Col(b, "decb")].Value<Int128>(2), 999999999);
  EXPECT_EQ(c[Col(b, "decf")].Value<Int128>(0), 0);
  EXPECT_EQ(c[Col(b, "decf")].Value<Int128>(1), -1);
  EXPECT_EQ(c[Col(b, "decf")].Value<Int128>(2), columnar::MaxDecimalUnscaled(38));
  EXPECT_EQ(c[Col(b, "uuid")].StringAt(1), "123e4567-e89b-12d3-a456-426614174001");
  EXPECT_EQ(c[Col(b, "ns")].StringAt(0), "n0");
  EXPECT_TRUE(c[Col(b, "ns")].IsNull(1));
}

class EveryCodec : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryCodec, EveryTypeValueByValue) {
  std::string file = AllTypesFile(GetParam());
  ASSERT_OK_AND_ASSIGN(auto reader, AvroReader::OpenBuffer("t.avro", file));
  EXPECT_EQ(reader->codec_name(), GetParam().empty() ? "null" : GetParam());
  ASSERT_OK_AND_ASSIGN(Batch b, reader->ReadAll());
  CheckAllTypes(b);
  EXPECT_EQ(reader->blocks_read(), 2);
  EXPECT_EQ(reader->rows_read(), 3);
}

INSTANTIATE_TEST_SUITE_P(Codecs, EveryCodec,
                         ::testing::Values("", "null", "deflate", "snappy", "zstandard"));

std::string LongsFile(const std::string& codec, int blocks, int rows_per_block) {
  std::vector<Block> bs;
  int64_t v = 0;
  for (int k = 0; k < blocks; ++k) {
    Encoder e;
    for (int r = 0; r < rows_per_block; ++r) e.Long(v++);
    bs.push_back(Block{rows_per_block, e.str()});
  }
  return ContainerFile(R"({"type":"record","name":"r","fields":[{"name":"v","type":"long"}]})",
                       codec, bs);
}

TEST(AvroReaderTest, ZstdFramesWithoutContentSize) {
  Encoder e;
  for (int i = 0; i < 5000; ++i) e.Long(i * 7);
  std::string stored = testing::StreamedZstd(e.str());
  ASSERT_EQ(ZSTD_getFrameContentSize(stored.data(), stored.size()), ZSTD_CONTENTSIZE_UNKNOWN);
  Encoder file;
  file.Raw(testing::ContainerFile(
      R"({"type":"record","name":"r","fields":[{"name":"v","type":"long"}]})", "zstandard", {}));
  file.Long(5000).Long(static_cast<int64_t>(stored.size())).Raw(stored).Raw(testing::kSync);
  ASSERT_OK_AND_ASSIGN(Batch b, ReadFile(file.str()));
  ASSERT_EQ(b.num_rows(), 5000);
  EXPECT_EQ(b.columns[0].Value<int64_t>(4999), 4999 * 7);
}

TEST(AvroReaderTest, BatchesAreWholeBlocks) {
  std::string file = LongsFile("deflate", 10, 100);
  ReaderOptions options;
  options.batch_rows = 250;
  ASSERT_OK_AND_ASSIGN(auto reader, AvroReader::OpenBuffer("t.avro", file, options));
  std::vector<int64_t> sizes;
  int64_t expect = 0;
  Batch b;
  for (;;) {
    ASSERT_OK_AND_ASSIGN(bool more, reader->Next(&b));
    if (!more) break;
    sizes.push_back(b.num_rows());
    for (int64_t i = 0; i < b.num_rows(); ++i) ASSERT_EQ(b.columns[0].Value<int64_t>(i), expect++);
  }
  EXPECT_EQ(sizes, (std::vector<int64_t>{300, 300, 300, 100}));
  EXPECT_EQ(b.num_rows(), 0);
}

TEST(AvroReaderTest, EmptyFileAndZeroCountBlocks) {
  std::string schema = R"({"type":"record","name":"r","fields":[{"name":"v","type":"long"}]})";
  ASSERT_OK_AND_ASSIGN(Batch none, ReadFile(ContainerFile(schema, "deflate", {})));
  EXPECT_EQ(none.num_rows(), 0);
  EXPECT_EQ(none.schema.ToDdl(), "v BIGINT NOT NULL");
  ASSERT_OK_AND_ASSIGN(Batch empty_block, ReadFile(ContainerFile(schema, "null", {Block{0, ""}})));
  EXPECT_EQ(empty_block.num_rows(), 0);
}

TEST(AvroReaderTest, MetadataIsKept) {
  std::string file =
      ContainerFile(R"({"type":"record","name":"r","fields":[{"name":"v","type":"int"}]})", "", {},
                    {{"user.key", "value"}});
  ASSERT_OK_AND_ASSIGN(auto reader, AvroReader::OpenBuffer("t.avro", file));
  EXPECT_EQ(reader->metadata().at("user.key"), "value");
  EXPECT_EQ(reader->codec_name(), "null");
}

// ---- Corruption: every case names the file and, past the header, the block and its offset.

const char* kLongSchema = R"({"type":"record","name":"r","fields":[{"name":"v","type":"long"}]})";

std::string Header(const std::string& schema, const std::string& codec) {
  return ContainerFile(schema, codec, {});
}

TEST(AvroReaderCorruptionTest, Header) {
  EXPECT_EQ(ErrorOf(""),
            "Corruption: avro: t.avro: not an Avro object container file (it does not start with "
            "Obj\\x01)");
  EXPECT_EQ(ErrorOf("PAR1xxxxxxxxxxxxxxxxxxxxxx"),
            "Corruption: avro: t.avro: not an Avro object container file (it does not start with "
            "Obj\\x01)");
  std::string header = Header(kLongSchema, "null");
  for (size_t cut : {size_t{4}, size_t{5}, size_t{20}, header.size() - 1}) {
    std::string e = ErrorOf(header.substr(0, cut));
    EXPECT_NE(e.find("Corruption: avro: t.avro: "), std::string::npos) << cut << ": " << e;
  }
  EXPECT_EQ(ErrorOf(header.substr(0, header.size() - 1)),
            "Corruption: avro: t.avro: truncated before the sync marker");
  // A metadata entry count no file could hold, a key longer than the file.
  Encoder huge;
  huge.Raw(std::string_view("Obj\x01", 4)).Long(int64_t{1} << 60);
  EXPECT_EQ(
      ErrorOf(huge.str()),
      "Corruption: avro: t.avro: file metadata: 1152921504606846976 entries but only 0 bytes left");
  Encoder long_key;
  long_key.Raw(std::string_view("Obj\x01", 4)).Long(1).Long(int64_t{1} << 40).Raw("abc");
  EXPECT_EQ(ErrorOf(long_key.str()),
            "Corruption: avro: t.avro: file metadata: length 1099511627776 but only 3 bytes left");
  Encoder no_schema;
  no_schema.Raw(std::string_view("Obj\x01", 4))
      .Long(1)
      .String("avro.codec")
      .String("null")
      .Long(0)
      .Raw(testing::kSync);
  EXPECT_EQ(ErrorOf(no_schema.str()),
            "Corruption: avro: t.avro: no avro.schema in the file metadata");
  EXPECT_EQ(ErrorOf(Header("{oops", "null")),
            "Corruption: avro: t.avro: avro schema: avro.schema is not JSON");
}

TEST(AvroReaderCorruptionTest, HeaderLargerThanTheFirstRead) {
  std::string big(200000, 'x');
  std::string file =
      ContainerFile(kLongSchema, "null", {Block{1, Encoder().Long(9).str()}}, {{"user.big", big}});
  ASSERT_OK_AND_ASSIGN(Batch b, ReadFile(file));
  EXPECT_EQ(b.columns[0].Value<int64_t>(0), 9);
}

TEST(AvroReaderCorruptionTest, HeaderIsAtMost64MiB) {
  // A metadata value claiming 100 MiB in a 70 MiB file: the header is read at most to 64 MiB.
  Encoder e;
  e.Raw(std::string_view("Obj\x01", 4)).Long(1).String("big").Long(int64_t{100} << 20);
  std::string file = e.str() + std::string(size_t{70} << 20, 'x');
  EXPECT_EQ(ErrorOf(file),
            "Corruption: avro: t.avro: the header (file metadata) is larger than 67108864 bytes, "
            "or corrupt: "
            "file metadata: length 104857600 but only 67108851 bytes left");
}

TEST(AvroReaderCorruptionTest, Codecs) {
  EXPECT_EQ(ErrorOf(Header(kLongSchema, "lzma9")),
            "Corruption: avro: t.avro: unknown avro codec 'lzma9'");
  EXPECT_EQ(ErrorOf(Header(kLongSchema, "bzip2")),
            "NotImplemented: avro: t.avro: avro codec 'bzip2' is not supported by weir (null, "
            "deflate, snappy, "
            "zstandard are)");
  EXPECT_EQ(ErrorOf(Header(kLongSchema, "xz")).substr(0, 30), "NotImplemented: avro: t.avro: ");
}

// A file of one block whose stored bytes are `stored` (already "compressed"), count `count`.
std::string RawBlockFile(const std::string& codec, int64_t count, const std::string& stored) {
  Encoder e;
  e.Raw(Header(kLongSchema, codec))
      .Long(count)
      .Long(static_cast<int64_t>(stored.size()))
      .Raw(stored)
      .Raw(testing::kSync);
  return e.str();
}

TEST(AvroReaderCorruptionTest, Blocks) {
  std::string good = LongsFile("null", 2, 3);
  const size_t header = Header(kLongSchema, "null").size();
  const std::string at = "block 0 at offset " + std::to_string(header);
  // Truncated anywhere in the first block.
  for (size_t cut = header + 1; cut < good.size(); ++cut) {
    if (cut == header + 2 + 3 + 16) continue;  // the end of block 0: a valid file of one block
    std::string e = ErrorOf(good.substr(0, cut));
    EXPECT_EQ(e.find("Corruption: avro: t.avro: block "), 0u) << cut << ": " << e;
  }
  EXPECT_EQ(
      ErrorOf(good.substr(0, header + 1)),
      "Corruption: avro: t.avro: " + at + ": truncated varint in the block header (count, size)");
  EXPECT_EQ(ErrorOf(good.substr(0, good.size() - 1)),
            "Corruption: avro: t.avro: block 1 at offset " + std::to_string(header + 2 + 3 + 16) +
                ": 3 bytes of data claimed, but the file has 2 left before the sync marker");
  // A bad sync marker after block 1.
  std::string bad_sync = good;
  bad_sync[bad_sync.size() - 5] ^= 1;
  EXPECT_EQ(ErrorOf(bad_sync), "Corruption: avro: t.avro: block 1 at offset " +
                                   std::to_string(header + 2 + 3 + 16) +
                                   ": the sync marker after the block does not match the header's");
  // Huge and negative counts and sizes.
  Encoder huge_size;
  huge_size.Raw(Header(kLongSchema, "null")).Long(1).Long(int64_t{1} << 62).Raw("x");
  EXPECT_EQ(ErrorOf(huge_size.str()),
            "Corruption: avro: t.avro: " + at +
                ": 4611686018427387904 bytes of data claimed, but the file has 0 "
                "left before the sync marker (truncated)");
  EXPECT_EQ(ErrorOf(RawBlockFile("null", -1, "")),
            "Corruption: avro: t.avro: " + at + ": negative object count -1");
  EXPECT_EQ(ErrorOf(RawBlockFile("null", int64_t{1} << 50, Encoder().Long(1).str())),
            "Corruption: avro: t.avro: " + at + ": 1125899906842624 records cannot fit in 1 bytes");
  // Fewer records than the count says, and bytes left after them.
  EXPECT_EQ(ErrorOf(RawBlockFile("null", 1, "")),
            "Corruption: avro: t.avro: " + at + ": 1 records cannot fit in 0 bytes");
  EXPECT_EQ(ErrorOf(RawBlockFile("null", 1, Encoder().Long(1).Long(2).str())),
            "Corruption: avro: t.avro: " + at + ": 1 bytes left after the block's 1 records");
  EXPECT_EQ(ErrorOf(RawBlockFile("null", 2, std::string("\x80\x80", 2))),
            "Corruption: avro: t.avro: " + at + ": record 0, field v: truncated varint");
  EXPECT_EQ(ErrorOf(RawBlockFile("null", 1, std::string(11, '\xff'))),
            "Corruption: avro: t.avro: " + at + ": record 0, field v: varint overflows 64 bits");
  // A block larger than max_block_bytes.
  ReaderOptions small;
  small.max_block_bytes = 4;
  EXPECT_EQ(ErrorOf(LongsFile("null", 1, 5), small),
            "Corruption: avro: t.avro: " + at + ": block of 5 bytes (more than 4)");
}

TEST(AvroReaderCorruptionTest, CompressedBlocks) {
  const std::string at = "block 0 at offset ";
  auto error = [](const std::string& codec, const std::string& stored) {
    std::string e = ErrorOf(RawBlockFile(codec, 1, stored));
    size_t colon = e.find(": ", e.find("at offset "));
    return e.substr(colon + 2);
  };
  std::string data = Encoder().Long(1).str();
  std::string deflated = testing::CompressBlock("deflate", data);
  EXPECT_EQ(error("deflate", "garbage!"), "deflate: invalid block type");
  EXPECT_EQ(error("deflate", deflated.substr(0, deflated.size() - 1)), "deflate: truncated stream");
  // Trailing bytes after the stream are ignored (fastavro leaves 3 of zlib's Adler-32 there).
  ASSERT_OK(ReadFile(RawBlockFile("deflate", 1, deflated + "xyz")).status());
  std::string snappy = testing::CompressBlock("snappy", data);
  std::string bad_crc = snappy;
  bad_crc.back() ^= 1;
  EXPECT_NE(error("snappy", bad_crc).find("snappy: CRC32 "), std::string::npos)
      << error("snappy", bad_crc);
  EXPECT_EQ(error("snappy", "abc"), "snappy block shorter than its 4-byte CRC32");
  EXPECT_EQ(error("snappy", std::string("\x05\xff\xff\xff\xff\xff\x00\x00\x00\x00", 10)),
            "snappy: invalid compressed data");
  EXPECT_EQ(error("snappy", std::string("\xff\xff\xff\xff\x0f\x00\x00\x00\x00", 9)),
            "snappy block decompresses to more than 536870912 bytes");
  std::string zstd = testing::CompressBlock("zstandard", data);
  EXPECT_EQ(error("zstandard", "nope"), "zstd: Unknown frame descriptor");
  EXPECT_EQ(error("zstandard", zstd.substr(0, zstd.size() - 2)), "zstd: truncated frame");
  // Bombs: 64 KiB of zeros from a few bytes, with a 1 KiB limit.
  std::string zeros(65536, '\0');
  Encoder bomb_records;
  ReaderOptions small;
  small.max_block_bytes = 4096;
  for (std::string codec : {"deflate", "zstandard", "snappy"}) {
    std::string file = RawBlockFile(codec, 1, testing::CompressBlock(codec, zeros));
    std::string e = ErrorOf(file, small);
    EXPECT_NE(e.find("block decompresses to more than 4096 bytes"), std::string::npos)
        << codec << ": " << e;
  }
}

// One block of one record of a one-field record of `type`, the record's bytes `record`.
std::string ErrorOfValue(const std::string& type, const std::string& record) {
  std::string schema =
      R"({"type":"record","name":"r","fields":[{"name":"f","type":)" + type + "}]}";
  std::string e = ErrorOf(ContainerFile(schema, "null", {Block{1, record}}));
  size_t at = e.find("record 0, ");
  return at == std::string::npos ? e : e.substr(at);
}

TEST(AvroReaderCorruptionTest, Values) {
  EXPECT_EQ(ErrorOfValue(R"("boolean")", "\x02"), "record 0, field f: boolean byte 2");
  EXPECT_EQ(ErrorOfValue(R"("int")", Encoder().Long(int64_t{1} << 33).str()),
            "record 0, field f: int 8589934592 out of 32-bit range");
  EXPECT_EQ(ErrorOfValue(R"("string")", Encoder().Long(int64_t{1} << 40).str()),
            "record 0, field f: length 1099511627776 but only 0 bytes left");
  EXPECT_EQ(ErrorOfValue(R"("bytes")", Encoder().Long(-3).str()),
            "record 0, field f: negative length -3");
  EXPECT_EQ(ErrorOfValue(R"(["null","double"])",
                         "\x02"
                         "1234567"),
            "record 0, field f: length 8 but only 7 bytes left");
  EXPECT_EQ(ErrorOfValue(R"({"type":"enum","name":"e","symbols":["A"]})", Encoder().Int(1).str()),
            "record 0, field f: enum index 1 of e, which has 1 symbols");
  EXPECT_EQ(ErrorOfValue(R"(["null","int"])", Encoder().Long(2).str()),
            "record 0, field f: union branch 2 of a union of 2");
  EXPECT_EQ(ErrorOfValue(R"(["null","int"])", Encoder().Long(-1).str()),
            "record 0, field f: union branch -1 of a union of 2");
  EXPECT_EQ(
      ErrorOfValue(R"({"type":"array","items":"long"})", Encoder().Long(int64_t{1} << 40).str()),
      "record 0, field f: block of 1099511627776 items but only 0 bytes left");
  EXPECT_EQ(ErrorOfValue(R"({"type":"array","items":"double"})", Encoder().Long(2).Double(1).str()),
            "record 0, field f: block of 2 items but only 8 bytes left");
  EXPECT_EQ(ErrorOfValue(R"({"type":"array","items":"long"})",
                         Encoder().Long(-1).Long(100).Long(1).str()),
            "record 0, field f: block byte size 100 with 1 bytes left");
  EXPECT_EQ(ErrorOfValue(R"({"type":"array","items":"long"})", Encoder().Long(INT64_MIN).str()),
            "record 0, field f: invalid block count");
  EXPECT_EQ(ErrorOfValue(R"({"type":"map","values":"long"})",
                         Encoder().Long(3).String("a").Long(1).str()),
            "record 0, field f: block of 3 items but only 3 bytes left");
  EXPECT_EQ(ErrorOfValue(R"({"type":"array","items":"long"})", Encoder().Long(1).Long(1).str()),
            "record 0, field f: truncated varint");
  const std::string dec = R"({"type":"bytes","logicalType":"decimal","precision":3,"scale":1})";
  EXPECT_EQ(ErrorOfValue(dec, Encoder().Bytes("").str()),
            "record 0, field f: a decimal of zero bytes");
  EXPECT_EQ(ErrorOfValue(dec, Encoder().Bytes(std::string("\x03\xe8", 2)).str()),
            "record 0, field f: decimal value has more than 3 digits (decimal(3,1))");
  EXPECT_EQ(ErrorOfValue(dec, Encoder().Bytes(std::string(17, '\x01')).str()),
            "record 0, field f: decimal(3,1) value of 17 bytes out of range");
  EXPECT_EQ(ErrorOfValue(R"({"type":"long","logicalType":"timestamp-millis"})",
                         Encoder().Long(INT64_MAX).str()),
            "record 0, field f: timestamp-millis 9223372036854775807 overflows microseconds");
  // A nested record's error names the top-level field.
  EXPECT_EQ(
      ErrorOfValue(
          R"({"type":"record","name":"in","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]})",
          Encoder().Int(1).Long(5).str()),
      "record 0, field f: length 5 but only 0 bytes left");
}

TEST(AvroReaderCorruptionTest, SchemaRefusalsNameTheFile) {
  std::string e = ErrorOf(
      Header(R"({"type":"record","name":"r","fields":[{"name":"n","type":"null"}]})", "null"));
  EXPECT_EQ(e,
            "NotImplemented: avro: t.avro: avro field n: Avro null outside a union is Spark's "
            "NullType, which "
            "weir (and Delta's Parquet files) cannot store");
  std::string deep = R"("int")";
  for (int i = 0; i < 100; ++i) deep = R"({"type":"array","items":)" + deep + "}";
  e = ErrorOf(Header(R"({"type":"record","name":"r","fields":[{"name":"n","type":)" + deep + "}]}",
                     "null"));
  EXPECT_EQ(e, "NotImplemented: avro: t.avro: avro schema: nested deeper than 64 levels");
}

TEST(AvroReaderTest, ArraysAndMapsOfManyBlocks) {
  // Items in many blocks, and nested: ARRAY<MAP<STRING, ARRAY<INT>>>.
  std::string schema =
      R"({"type":"record","name":"r","fields":[{"name":"a","type":{"type":"array","items":
      {"type":"map","values":{"type":"array","items":"int"}}}}]})";
  Encoder e;
  e.Long(1).Long(1).String("k").Long(1).Int(1).Long(1).Int(2).Long(0).Long(0);  // [{k: [1, 2]}]
  e.Long(1).Long(0).Long(0);                                                    // , {}]
  ASSERT_OK_AND_ASSIGN(Batch b, ReadFile(ContainerFile(schema, "snappy", {Block{1, e.str()}})));
  EXPECT_EQ(b.schema.ToDdl(), "a ARRAY<MAP<STRING, ARRAY<INT>>> NOT NULL");
  const auto& list = *b.schema.fields[0].type;
  EXPECT_FALSE(list.element().nullable);
  EXPECT_FALSE(list.element().type->value().nullable);
  EXPECT_FALSE(list.element().type->value().type->element().nullable);
  const Column& a = b.columns[0];
  EXPECT_EQ(a.offsets()[1], 2);
  const Column& m = a.child(0);
  EXPECT_EQ(m.offsets()[1], 1);
  EXPECT_EQ(m.offsets()[2], 1);
  EXPECT_EQ(m.child(0).StringAt(0), "k");
  EXPECT_EQ(m.child(1).offsets()[1], 2);
  EXPECT_EQ(m.child(1).child(0).Value<int32_t>(1), 2);
}

}  // namespace
}  // namespace weir::avro
