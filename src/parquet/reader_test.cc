#include "parquet/reader.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>

#include "base/testing.h"
#include "columnar/json_lines.h"
#include "fs/local_file_system.h"
#include "parquet/encoding.h"
#include "parquet/writer.h"

namespace weir::parquet {
namespace {

using columnar::Batch;
using columnar::DataType;
using columnar::Schema;

class ParquetReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/weir-parquet-reader-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { (void)fs_.DeleteDirRecursive(dir_); }

  std::string Path(const std::string& name) { return dir_ + "/" + name; }

  static std::string Json(const Batch& b) {
    std::string out;
    for (int64_t r = 0; r < b.num_rows(); ++r) {
      columnar::AppendJsonRow(b, r, &out);
      out += "\n";
    }
    return out;
  }

  // Writes `batch` with weir's writer, then rewrites the footer through `edit` (e.g. to annotate a
  // column as TIME, which weir never writes).
  void WriteWithFooterEdit(const std::string& path, const Batch& batch,
                           const std::function<void(FileMetaData*)>& edit) {
    ASSERT_OK(WriteParquetFile(&fs_, path, batch));
    ASSERT_OK_AND_ASSIGN(std::string bytes, fs::ReadFileToString(&fs_, path));
    uint32_t footer_len;
    std::memcpy(&footer_len, bytes.data() + bytes.size() - 8, 4);
    const size_t footer_start = bytes.size() - 8 - footer_len;
    FileMetaData metadata;
    ASSERT_OK(Parse(std::span<const uint8_t>(
                        reinterpret_cast<const uint8_t*>(bytes.data()) + footer_start, footer_len),
                    &metadata));
    edit(&metadata);
    std::string out = bytes.substr(0, footer_start);
    AppendFooter(metadata, &out);
    ASSERT_OK(fs::WriteStringToFile(&fs_, path, out));
  }

  static void AppendFooter(const FileMetaData& metadata, std::string* out) {
    std::string footer;
    Serialize(metadata, &footer);
    const uint32_t len = static_cast<uint32_t>(footer.size());
    out->append(footer);
    out->append(reinterpret_cast<const char*>(&len), 4);
    out->append("PAR1");
  }

  // A file with one REQUIRED column `v` of `type` in one row group of one uncompressed DataPage V2
  // page holding `values` (already encoded with `encoding`).
  static std::string OneColumnFile(Type type, Encoding encoding, int32_t num_values,
                                   const std::string& values) {
    std::string file = "PAR1";
    PageHeader page;
    page.type = PageType::kDataPageV2;
    page.uncompressed_page_size = static_cast<int32_t>(values.size());
    page.compressed_page_size = static_cast<int32_t>(values.size());
    DataPageHeaderV2 v2;
    v2.num_values = num_values;
    v2.num_rows = num_values;
    v2.encoding = encoding;
    v2.is_compressed = false;
    page.data_page_header_v2 = v2;
    std::string header;
    Serialize(page, &header);
    file += header + values;

    FileMetaData metadata;
    metadata.version = 2;
    SchemaElement root;
    root.name = "schema";
    root.num_children = 1;
    SchemaElement column;
    column.name = "v";
    column.type = type;
    column.repetition_type = FieldRepetitionType::kRequired;
    metadata.schema = {root, column};
    metadata.num_rows = num_values;
    ColumnMetaData meta;
    meta.type = type;
    meta.encodings = {encoding};
    meta.path_in_schema = {"v"};
    meta.num_values = num_values;
    meta.total_uncompressed_size = static_cast<int64_t>(header.size() + values.size());
    meta.total_compressed_size = meta.total_uncompressed_size;
    meta.data_page_offset = 4;
    ColumnChunk chunk;
    chunk.file_offset = 4;
    chunk.meta_data = meta;
    RowGroup group;
    group.columns = {chunk};
    group.num_rows = num_values;
    group.total_byte_size = meta.total_uncompressed_size;
    metadata.row_groups = {group};
    AppendFooter(metadata, &file);
    return file;
  }

  fs::LocalFileSystem fs_;
  std::string dir_;
};

// ---------------------------------------------------------------------------------------------
// DELTA_BINARY_PACKED pages with deltas wider than the column (DuckDB's INT32 columns spanning
// INT32_MIN..INT32_MAX).

// Appends ULEB128 / zigzag, independently of encoding.cc.
void AppendUleb(uint64_t v, std::string* out) {
  do {
    out->push_back(static_cast<char>((v & 0x7F) | (v >= 0x80 ? 0x80 : 0)));
    v >>= 7;
  } while (v != 0);
}
uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

// n values alternating INT32_MIN, INT32_MAX (n <= 129: one block of 128 deltas in one miniblock),
// encoded without wrapping: min delta -(2^32 - 1), relative deltas 2^33 - 2 and 0 in `width` bits.
std::string AlternatingInt32Stream(int n, int width) {
  std::string s;
  AppendUleb(128, &s);
  AppendUleb(1, &s);
  AppendUleb(static_cast<uint64_t>(n), &s);
  AppendUleb(ZigZag(INT32_MIN), &s);
  AppendUleb(ZigZag(-((int64_t{1} << 32) - 1)), &s);
  s.push_back(static_cast<char>(width));
  std::vector<uint64_t> relative(128, 0);
  for (int k = 0; k + 1 < n; ++k) relative[k] = k % 2 == 0 ? (uint64_t{1} << 33) - 2 : 0;
  PackBits(relative.data(), 128, width, &s);
  return s;
}

TEST_F(ParquetReaderTest, ReadsADataPageV2WithInt32DeltasOf33Bits) {
  const std::string path = Path("delta33.parquet");
  ASSERT_OK(fs::WriteStringToFile(
      &fs_, path,
      OneColumnFile(Type::kInt32, Encoding::kDeltaBinaryPacked, 100,
                    AlternatingInt32Stream(100, 33))));
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetReader::Open(&fs_, path));
  ASSERT_OK_AND_ASSIGN(Batch batch, reader->ReadAll());
  ASSERT_EQ(batch.num_rows(), 100);
  for (int64_t r = 0; r < 100; ++r) {
    EXPECT_EQ(batch.columns[0].Value<int32_t>(r), r % 2 == 0 ? INT32_MIN : INT32_MAX) << r;
  }
}

TEST_F(ParquetReaderTest, AMiniblockWiderThan33BitsInAnInt32ColumnIsCorruptionNamingTheFile) {
  const std::string path = Path("delta34.parquet");
  ASSERT_OK(fs::WriteStringToFile(
      &fs_, path,
      OneColumnFile(Type::kInt32, Encoding::kDeltaBinaryPacked, 100,
                    AlternatingInt32Stream(100, 34))));
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetReader::Open(&fs_, path));
  auto batch = reader->ReadAll();
  ASSERT_STATUS_CODE(kCorruption, batch.status());
  const std::string message = batch.status().ToString();
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("column v"), std::string::npos) << message;
  EXPECT_NE(message.find("bit width 34 exceeds 33"), std::string::npos) << message;
}

// ---------------------------------------------------------------------------------------------
// Columns of types weir does not read (TIME): the other columns read, the column itself is a clear
// NotImplemented.

Batch MixedBatch() {
  Schema schema =
      columnar::ParseDdlSchema("a INT, t BIGINT, b STRING, st STRUCT<x: INT, t2: INT>, c BIGINT")
          .ValueOrDie();
  Batch batch(schema);
  for (int r = 0; r < 5; ++r) {
    batch.columns[0].Append<int32_t>(r == 0 ? INT32_MIN : r * 10);
    batch.columns[1].Append<int64_t>(int64_t{r} * 3600000000);
    batch.columns[2].AppendString("s" + std::to_string(r));
    batch.columns[3].mutable_child(0).Append<int32_t>(r);
    batch.columns[3].mutable_child(1).Append<int32_t>(1000);
    batch.columns[3].AppendStructEntry();
    batch.columns[4].Append<int64_t>(r == 4 ? INT64_MAX : -r);
  }
  return batch;
}

SchemaElement* Element(FileMetaData* metadata, const std::string& name) {
  for (auto& e : metadata->schema) {
    if (e.name == name) return &e;
  }
  ADD_FAILURE() << "no schema element " << name;
  return &metadata->schema[0];
}

TEST_F(ParquetReaderTest, ATimeColumnLeavesTheOtherColumnsReadable) {
  const std::string path = Path("time.parquet");
  WriteWithFooterEdit(path, MixedBatch(), [](FileMetaData* metadata) {
    Element(metadata, "t")->logical_type = LogicalType::Time(false, TimeUnit::kMicros);
    Element(metadata, "t")->converted_type = ConvertedType::kTimeMicros;
  });
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetReader::Open(&fs_, path));
  EXPECT_EQ(reader->schema().ToDdl(), "a INT, b STRING, st STRUCT<x: INT, t2: INT>, c BIGINT");
  ASSERT_EQ(reader->file_schema().unreadable.size(), 1u);
  EXPECT_EQ(reader->file_schema().unreadable[0].name, "t");
  // Every leaf stays, in column chunk order (`weir parquet meta` pairs them with the chunks).
  ASSERT_EQ(reader->file_schema().leaves.size(), 6u);
  EXPECT_EQ(reader->file_schema().leaves[1].unsupported_type,
            "INT64 TIME(MICROS, isAdjustedToUTC=false)");

  // The columns around it read correctly, in any order (leaves after `t` line up).
  ASSERT_OK_AND_ASSIGN(auto fields, reader->FieldIndexes({"c", "a", "B", "st"}));
  ASSERT_OK_AND_ASSIGN(Batch batch, reader->ReadAll(fields));
  EXPECT_EQ(Json(batch),
            "{\"c\":0,\"a\":-2147483648,\"b\":\"s0\",\"st\":{\"x\":0,\"t2\":1000}}\n"
            "{\"c\":-1,\"a\":10,\"b\":\"s1\",\"st\":{\"x\":1,\"t2\":1000}}\n"
            "{\"c\":-2,\"a\":20,\"b\":\"s2\",\"st\":{\"x\":2,\"t2\":1000}}\n"
            "{\"c\":-3,\"a\":30,\"b\":\"s3\",\"st\":{\"x\":3,\"t2\":1000}}\n"
            "{\"c\":\"9223372036854775807\",\"a\":40,\"b\":\"s4\",\"st\":{\"x\":4,\"t2\":1000}}\n")
      << Json(batch);
  ASSERT_OK_AND_ASSIGN(Batch group, reader->ReadRowGroup(0, fields));
  EXPECT_EQ(Json(group), Json(batch));

  // Asking for it, by name or by reading every column, names the file, the column and its type.
  const std::string expected = "Parquet file " + path +
                               ": column 't' has Parquet type INT64 TIME(MICROS, "
                               "isAdjustedToUTC=false), which weir does not read (weir, like Delta "
                               "Lake, has no TIME type); read the file's other columns by naming "
                               "them";
  auto by_name = reader->FieldIndexes({"a", "T"});
  ASSERT_STATUS_CODE(kNotImplemented, by_name.status());
  EXPECT_EQ(by_name.status().message(), expected);
  auto all = reader->ReadAll();
  ASSERT_STATUS_CODE(kNotImplemented, all.status());
  EXPECT_EQ(all.status().message(), expected);
  auto group_all = reader->ReadRowGroup(0);
  ASSERT_STATUS_CODE(kNotImplemented, group_all.status());
  EXPECT_EQ(group_all.status().message(), expected);
  // A column that does not exist is still NotFound.
  ASSERT_STATUS_CODE(kNotFound, reader->FieldIndexes({"nope"}));
}

TEST_F(ParquetReaderTest, EveryTimeAnnotationIsNamedInTheMessage) {
  struct Case {
    std::string column;  // "a" is INT32, "c" INT64
    std::optional<LogicalType> logical;
    std::optional<ConvertedType> converted;
    std::string type;
  };
  const Case cases[] = {
      {"a", LogicalType::Time(true, TimeUnit::kMillis), ConvertedType::kTimeMillis,
       "INT32 TIME(MILLIS, isAdjustedToUTC=true)"},
      {"c", LogicalType::Time(false, TimeUnit::kNanos), std::nullopt,
       "INT64 TIME(NANOS, isAdjustedToUTC=false)"},
      {"c", LogicalType::Time(true, TimeUnit::kMicros), std::nullopt,
       "INT64 TIME(MICROS, isAdjustedToUTC=true)"},
      {"a", std::nullopt, ConvertedType::kTimeMillis, "INT32 TIME_MILLIS"},
      {"c", std::nullopt, ConvertedType::kTimeMicros, "INT64 TIME_MICROS"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type);
    const std::string path = Path("time_variant.parquet");
    WriteWithFooterEdit(path, MixedBatch(), [&](FileMetaData* metadata) {
      Element(metadata, c.column)->logical_type = c.logical;
      Element(metadata, c.column)->converted_type = c.converted;
    });
    ASSERT_OK_AND_ASSIGN(auto reader, ParquetReader::Open(&fs_, path));
    EXPECT_EQ(reader->schema().FieldIndex(c.column), -1);
    auto found = reader->FieldIndexes({c.column});
    ASSERT_STATUS_CODE(kNotImplemented, found.status());
    EXPECT_NE(found.status().message().find("column '" + c.column + "' has Parquet type " + c.type +
                                            ", which weir does not read"),
              std::string::npos)
        << found.status().ToString();
    ASSERT_OK_AND_ASSIGN(auto fields, reader->FieldIndexes({"b", "t"}));
    ASSERT_OK_AND_ASSIGN(Batch batch, reader->ReadAll(fields));
    EXPECT_EQ(batch.num_rows(), 5);
  }
}

TEST_F(ParquetReaderTest, ATimeFieldInsideAStructMakesTheStructUnreadable) {
  const std::string path = Path("nested_time.parquet");
  WriteWithFooterEdit(path, MixedBatch(), [](FileMetaData* metadata) {
    Element(metadata, "t2")->logical_type = LogicalType::Time(false, TimeUnit::kMillis);
  });
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetReader::Open(&fs_, path));
  EXPECT_EQ(reader->schema().ToDdl(), "a INT, t BIGINT, b STRING, c BIGINT");
  auto found = reader->FieldIndexes({"st"});
  ASSERT_STATUS_CODE(kNotImplemented, found.status());
  EXPECT_NE(found.status().message().find(
                "column 'st' (its field 'st.t2') has Parquet type INT32 TIME(MILLIS, "
                "isAdjustedToUTC=false)"),
            std::string::npos)
      << found.status().ToString();
  ASSERT_OK_AND_ASSIGN(auto fields, reader->FieldIndexes({"c"}));
  ASSERT_OK_AND_ASSIGN(Batch batch, reader->ReadAll(fields));
  EXPECT_EQ(Json(batch), "{\"c\":0}\n{\"c\":-1}\n{\"c\":-2}\n{\"c\":-3}\n"
                         "{\"c\":\"9223372036854775807\"}\n");
}

}  // namespace
}  // namespace weir::parquet
