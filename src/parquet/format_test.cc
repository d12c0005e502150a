#include "parquet/format.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/testing.h"
#include "parquet/thrift_compact.h"

namespace weir::parquet {
namespace {

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::string Raw(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

Statistics FullStatistics() {
  Statistics s;
  s.max = std::string("\xff\x00z", 3);
  s.min = "a";
  s.null_count = 3;
  s.distinct_count = 17;
  s.max_value = "zz";
  s.min_value = "";
  s.is_max_value_exact = false;
  s.is_min_value_exact = true;
  s.nan_count = 0;
  return s;
}

ColumnMetaData FullColumnMetaData() {
  ColumnMetaData m;
  m.type = Type::kByteArray;
  m.encodings = {Encoding::kPlain, Encoding::kRle, Encoding::kRleDictionary};
  m.path_in_schema = {"a", "list", "element"};
  m.codec = CompressionCodec::kZstd;
  m.num_values = 1234567890123;
  m.total_uncompressed_size = 5000;
  m.total_compressed_size = 4000;
  m.key_value_metadata = {{"k", "v"}, {"only_key", std::nullopt}};
  m.data_page_offset = 4;
  m.index_page_offset = 77;
  m.dictionary_page_offset = 4;
  m.statistics = FullStatistics();
  m.encoding_stats = {{PageType::kDictionaryPage, Encoding::kPlain, 1},
                      {PageType::kDataPage, Encoding::kRleDictionary, 12}};
  return m;
}

FileMetaData FullFileMetaData() {
  FileMetaData f;
  f.version = 2;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 3;
  SchemaElement id;
  id.type = Type::kInt64;
  id.repetition_type = FieldRepetitionType::kRequired;
  id.name = "id";
  id.field_id = 1;
  id.logical_type = LogicalType::Integer(64, true);
  id.converted_type = ConvertedType::kInt64;
  SchemaElement price;
  price.type = Type::kFixedLenByteArray;
  price.type_length = 16;
  price.repetition_type = FieldRepetitionType::kOptional;
  price.name = "price";
  price.converted_type = ConvertedType::kDecimal;
  price.scale = 2;
  price.precision = 38;
  price.logical_type = LogicalType::Decimal(2, 38);
  SchemaElement ts;
  ts.type = Type::kInt64;
  ts.repetition_type = FieldRepetitionType::kOptional;
  ts.name = "ts";
  ts.logical_type = LogicalType::Timestamp(true, TimeUnit::kMicros);
  f.schema = {root, id, price, ts};
  f.num_rows = 3000000000;
  RowGroup g;
  ColumnChunk c;
  c.file_offset = 0;
  c.meta_data = FullColumnMetaData();
  ColumnChunk external;
  external.file_path = "other.parquet";
  external.file_offset = 99;
  g.columns = {c, external};
  g.total_byte_size = 5000;
  g.num_rows = 3000000000;
  g.file_offset = 4;
  g.total_compressed_size = 4000;
  g.ordinal = 0;
  f.row_groups = {g, g};
  f.key_value_metadata = {{"writer", "weir"}, {"empty", ""}};
  f.created_by = "weir version 0.1.0";
  f.column_orders = {ColumnOrder::kTypeDefinedOrder, ColumnOrder::kIeee754TotalOrder,
                     ColumnOrder::kTypeDefinedOrder};
  return f;
}

template <typename T>
T RoundTrip(const T& value) {
  std::string bytes;
  Serialize(value, &bytes);
  bytes += "trailing";
  T parsed;
  size_t consumed = 0;
  Status st = Parse(Bytes(bytes), &parsed, &consumed);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(consumed, bytes.size() - 8);
  return parsed;
}

TEST(FormatTest, RoundTripsEveryStruct) {
  EXPECT_EQ(RoundTrip(FullStatistics()), FullStatistics());
  EXPECT_EQ(RoundTrip(Statistics{}), Statistics{});
  EXPECT_EQ(RoundTrip(KeyValue{"k", std::nullopt}), (KeyValue{"k", std::nullopt}));
  EXPECT_EQ(RoundTrip(KeyValue{"k", "v"}), (KeyValue{"k", "v"}));
  EXPECT_EQ(RoundTrip(PageEncodingStats{PageType::kDataPageV2, Encoding::kDeltaByteArray, 9}),
            (PageEncodingStats{PageType::kDataPageV2, Encoding::kDeltaByteArray, 9}));
  EXPECT_EQ(RoundTrip(FullColumnMetaData()), FullColumnMetaData());
  const FileMetaData file = FullFileMetaData();
  for (const SchemaElement& e : file.schema) EXPECT_EQ(RoundTrip(e), e);
  EXPECT_EQ(RoundTrip(file.row_groups[0].columns[0]), file.row_groups[0].columns[0]);
  EXPECT_EQ(RoundTrip(file.row_groups[0].columns[1]), file.row_groups[0].columns[1]);
  EXPECT_EQ(RoundTrip(file.row_groups[0]), file.row_groups[0]);
  EXPECT_EQ(RoundTrip(file), file);
  EXPECT_EQ(RoundTrip(FileMetaData{}), FileMetaData{});

  DataPageHeader v1{100, Encoding::kRleDictionary, Encoding::kRle, Encoding::kBitPacked,
                    FullStatistics()};
  DictionaryPageHeader dict{10, Encoding::kPlain, true};
  DataPageHeaderV2 v2{100, 5, 90, Encoding::kDeltaBinaryPacked, 12, 0, false, FullStatistics()};
  EXPECT_EQ(RoundTrip(v1), v1);
  EXPECT_EQ(RoundTrip(dict), dict);
  EXPECT_EQ(RoundTrip(v2), v2);
  PageHeader page;
  page.type = PageType::kDataPage;
  page.uncompressed_page_size = 1 << 20;
  page.compressed_page_size = 1000;
  page.crc = -12345;
  page.data_page_header = v1;
  EXPECT_EQ(RoundTrip(page), page);
  page = PageHeader{};
  page.type = PageType::kDictionaryPage;
  page.dictionary_page_header = dict;
  EXPECT_EQ(RoundTrip(page), page);
  page = PageHeader{};
  page.type = PageType::kDataPageV2;
  page.data_page_header_v2 = v2;
  EXPECT_EQ(RoundTrip(page), page);
}

TEST(FormatTest, RoundTripsEveryLogicalType) {
  using Kind = LogicalType::Kind;
  std::vector<LogicalType> types = {
      LogicalType::Simple(Kind::kString),  LogicalType::Simple(Kind::kMap),
      LogicalType::Simple(Kind::kList),    LogicalType::Simple(Kind::kEnum),
      LogicalType::Decimal(4, 18),         LogicalType::Simple(Kind::kDate),
      LogicalType::Simple(Kind::kUnknown), LogicalType::Simple(Kind::kJson),
      LogicalType::Simple(Kind::kBson),    LogicalType::Simple(Kind::kUuid),
      LogicalType::Simple(Kind::kFloat16), LogicalType::Integer(8, false),
      LogicalType::Integer(64, true),      LogicalType::Simple(static_cast<Kind>(16)),
  };
  for (bool utc : {false, true}) {
    for (TimeUnit unit : {TimeUnit::kMillis, TimeUnit::kMicros, TimeUnit::kNanos}) {
      types.push_back(LogicalType::Time(utc, unit));
      types.push_back(LogicalType::Timestamp(utc, unit));
    }
  }
  for (const LogicalType& t : types) {
    EXPECT_EQ(RoundTrip(t), t) << "kind " << static_cast<int>(t.kind);
  }
}

// Bytes assembled by hand from the compact protocol spec:
// PageHeader{type=DATA_PAGE, uncompressed=100, compressed=90, crc=-1,
//            data_page_header={num_values=10, encoding=RLE_DICTIONARY, RLE, RLE}}.
TEST(FormatTest, ParsesHandAssembledPageHeader) {
  const std::string bytes = Raw({
      0x15, 0x00,        // 1: i32 0
      0x15, 0xc8, 0x01,  // 2: i32 100
      0x15, 0xb4, 0x01,  // 3: i32 90
      0x15, 0x01,        // 4: i32 -1
      0x1c,              // 5: struct
      0x15, 0x14,        //   1: i32 10
      0x15, 0x10,        //   2: i32 8
      0x15, 0x06,        //   3: i32 3
      0x15, 0x06,        //   4: i32 3
      0x00,              //   stop
      0x00,              // stop
      0xAA, 0xBB,        // page data
  });
  PageHeader h;
  size_t consumed = 0;
  ASSERT_OK(Parse(Bytes(bytes), &h, &consumed));
  EXPECT_EQ(consumed, bytes.size() - 2);
  EXPECT_EQ(h.type, PageType::kDataPage);
  EXPECT_EQ(h.uncompressed_page_size, 100);
  EXPECT_EQ(h.compressed_page_size, 90);
  EXPECT_EQ(h.crc, -1);
  ASSERT_TRUE(h.data_page_header.has_value());
  EXPECT_EQ(h.data_page_header->num_values, 10);
  EXPECT_EQ(h.data_page_header->encoding, Encoding::kRleDictionary);
  EXPECT_EQ(h.data_page_header->definition_level_encoding, Encoding::kRle);
  EXPECT_FALSE(h.dictionary_page_header.has_value());

  // And Serialize produces exactly those bytes.
  std::string out;
  Serialize(h, &out);
  EXPECT_EQ(out, bytes.substr(0, bytes.size() - 2));
}

TEST(FormatTest, WritesColumnOrdersAsTypeDefinedOrderUnions) {
  FileMetaData f;
  SchemaElement root;
  root.name = "r";
  f.schema = {root};
  f.column_orders = {ColumnOrder::kTypeDefinedOrder};
  std::string bytes;
  Serialize(f, &bytes);
  // Field 7 (delta 3 from row_groups): list<struct> of 1 { 1: TypeDefinedOrder {} }, then stops.
  EXPECT_EQ(bytes.substr(bytes.size() - 6), Raw({0x39, 0x1c, 0x1c, 0x00, 0x00, 0x00}));
}

TEST(FormatTest, SkipsUnknownFieldsAndUnionMembers) {
  std::string bytes;
  ThriftCompactWriter w(&bytes);
  w.StructBegin();
  w.FieldI32(1, static_cast<int32_t>(Type::kInt32));
  w.FieldBinary(4, "col");
  w.FieldStructBegin(10);  // logicalType
  w.FieldStructBegin(17);  // GEOMETRY, unknown to weir
  w.FieldBinary(1, "OGC:CRS84");
  w.StructEnd();
  w.StructEnd();
  w.FieldI32(11, 3);        // vector_length, unknown to weir
  w.FieldStructBegin(200);  // a future field
  w.FieldListBegin(1, ThriftType::kBinary, 2);
  w.Binary("a");
  w.Binary("b");
  w.StructEnd();
  w.StructEnd();
  SchemaElement e;
  ASSERT_OK(Parse(Bytes(bytes), &e));
  EXPECT_EQ(e.name, "col");
  EXPECT_EQ(e.type, Type::kInt32);
  ASSERT_TRUE(e.logical_type.has_value());
  EXPECT_EQ(static_cast<int>(e.logical_type->kind), 17);
}

TEST(FormatTest, KeepsUnknownEnumValues) {
  PageHeader h;
  h.type = static_cast<PageType>(42);
  std::string bytes;
  Serialize(h, &bytes);
  PageHeader parsed;
  ASSERT_OK(Parse(Bytes(bytes), &parsed));
  EXPECT_EQ(static_cast<int>(parsed.type), 42);
}

TEST(FormatTest, MissingRequiredFieldsNameTheStructAndField) {
  std::string bytes;
  ThriftCompactWriter w(&bytes);
  w.StructBegin();
  w.FieldI32(1, 0);
  w.FieldI32(2, 10);  // no compressed_page_size
  w.StructEnd();
  PageHeader h;
  Status st = Parse(Bytes(bytes), &h);
  ASSERT_STATUS_CODE(kCorruption, st);
  EXPECT_NE(st.message().find("PageHeader.compressed_page_size"), std::string::npos)
      << st.ToString();

  std::string schema;
  ThriftCompactWriter ws(&schema);
  ws.StructBegin();
  ws.FieldI32(1, 1);
  ws.StructEnd();
  SchemaElement e;
  st = Parse(Bytes(schema), &e);
  ASSERT_STATUS_CODE(kCorruption, st);
  EXPECT_NE(st.message().find("SchemaElement.name"), std::string::npos) << st.ToString();

  std::string empty_union = Raw({0x00});
  LogicalType t;
  ASSERT_STATUS_CODE(kCorruption, Parse(Bytes(empty_union), &t));
}

TEST(FormatTest, WrongFieldTypesAreCorruption) {
  std::string bytes;
  ThriftCompactWriter w(&bytes);
  w.StructBegin();
  w.FieldI64(1, 0);  // type is i32
  w.StructEnd();
  PageHeader h;
  Status st = Parse(Bytes(bytes), &h);
  ASSERT_STATUS_CODE(kCorruption, st);
  EXPECT_NE(st.message().find("PageHeader.type"), std::string::npos) << st.ToString();
}

TEST(FormatTest, EveryTruncationOfFileMetaDataIsCorruption) {
  std::string bytes;
  Serialize(FullFileMetaData(), &bytes);
  for (size_t n = 0; n < bytes.size(); ++n) {
    SCOPED_TRACE(std::to_string(n) + " bytes");
    FileMetaData f;
    ASSERT_STATUS_CODE(kCorruption, Parse(Bytes(bytes.substr(0, n)), &f));
  }
  FileMetaData f;
  ASSERT_OK(Parse(Bytes(bytes), &f));
}

TEST(FormatTest, RandomMutationsNeverCrash) {
  std::string original;
  Serialize(FullFileMetaData(), &original);
  std::string page;
  PageHeader h;
  h.type = PageType::kDataPageV2;
  h.data_page_header_v2 =
      DataPageHeaderV2{10, 1, 10, Encoding::kPlain, 2, 0, true, FullStatistics()};
  Serialize(h, &page);
  uint64_t state = 42;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  };
  int parsed_ok = 0;
  for (int iter = 0; iter < 10000; ++iter) {
    std::string bytes = (iter % 2 == 0) ? original : page;
    const int mutations = 1 + next() % 4;
    for (int m = 0; m < mutations; ++m) {
      const size_t pos = next() % bytes.size();
      switch (next() % 4) {
        case 0:
          bytes[pos] = static_cast<char>(next());
          break;  // replace
        case 1:
          bytes[pos] ^= static_cast<char>(1 << (next() % 8));
          break;  // flip a bit
        case 2:
          bytes.erase(pos, 1 + next() % 8);
          break;  // delete
        case 3:
          bytes.insert(pos, 1, static_cast<char>(next()));
          break;  // insert
      }
      if (bytes.empty()) bytes.push_back(0);
    }
    size_t consumed = 0;
    Status st;
    if (iter % 2 == 0) {
      FileMetaData f;
      st = Parse(Bytes(bytes), &f, &consumed);
    } else {
      PageHeader p;
      st = Parse(Bytes(bytes), &p, &consumed);
    }
    if (st.ok()) {
      ++parsed_ok;
      EXPECT_LE(consumed, bytes.size());
    } else {
      EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
    }
  }
  EXPECT_GT(parsed_ok, 0);
}

// ---------------------------------------------------------------------------------------------
// Real files from apache/parquet-testing ($WEIR_CONFORMANCE_DIR/parquet).


std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Parses the footer of a Parquet file's bytes.
Status ParseFooter(const std::string& file, FileMetaData* out) {
  if (file.size() < 12 || file.compare(file.size() - 4, 4, "PAR1") != 0) {
    return Status::Corruption("not a Parquet file");
  }
  uint32_t length;
  std::memcpy(&length, file.data() + file.size() - 8, 4);
  if (length > file.size() - 12) return Status::Corruption("footer length out of range");
  const size_t start = file.size() - 8 - length;
  return Parse(Bytes(file).subspan(start, length), out);
}

// Walks the page headers of every column chunk; checks that data pages add up to num_values.
Status WalkPages(const std::string& file, const FileMetaData& meta, int64_t* pages) {
  for (const RowGroup& group : meta.row_groups) {
    for (const ColumnChunk& chunk : group.columns) {
      if (!chunk.meta_data) return Status::Corruption("column chunk without meta_data");
      const ColumnMetaData& m = *chunk.meta_data;
      // Some writers store a dictionary offset of 0 when there is no dictionary page, others a
      // data page offset of 0 when there are only dictionary pages.
      int64_t pos = m.data_page_offset;
      if (m.dictionary_page_offset && *m.dictionary_page_offset > 0) {
        pos = *m.dictionary_page_offset;
      }
      const int64_t end = pos + m.total_compressed_size;
      if (pos < 0 || end > static_cast<int64_t>(file.size())) {
        return Status::Corruption("column chunk out of range");
      }
      int64_t values = 0;
      while (pos < end) {
        PageHeader h;
        size_t consumed;
        WEIR_RETURN_NOT_OK(Parse(Bytes(file).subspan(pos, end - pos), &h, &consumed));
        ++*pages;
        if (h.data_page_header) values += h.data_page_header->num_values;
        if (h.data_page_header_v2) values += h.data_page_header_v2->num_values;
        if (h.type == PageType::kDataPage && !h.data_page_header) {
          return Status::Corruption("data page without its header");
        }
        pos += static_cast<int64_t>(consumed) + h.compressed_page_size;
      }
      if (values != m.num_values) {
        return Status::Corruption("page values " + std::to_string(values) +
                                  " != column num_values " + std::to_string(m.num_values));
      }
    }
  }
  return Status::OK();
}

class ConformanceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WEIR_REQUIRE_CONFORMANCE(corpus, "parquet");
    dir_ = corpus;
  }
  std::filesystem::path dir_;
};

TEST_F(ConformanceTest, ParsesEveryFooterAndPageHeader) {
  int files = 0;
  for (const char* sub : {"", "nested"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir_ / sub)) {
      if (entry.path().extension() != ".parquet") continue;
      SCOPED_TRACE(entry.path().string());
      const std::string file = ReadFile(entry.path());
      FileMetaData meta;
      ASSERT_OK(ParseFooter(file, &meta));
      EXPECT_FALSE(meta.schema.empty()) << entry.path();
      int64_t pages = 0;
      ASSERT_OK(WalkPages(file, meta, &pages));
      // Our own serialization of what we parsed parses back to the same value.
      std::string again;
      Serialize(meta, &again);
      FileMetaData reparsed;
      ASSERT_OK(Parse(Bytes(again), &reparsed));
      EXPECT_EQ(reparsed, meta) << entry.path();
      ++files;
    }
  }
  EXPECT_GE(files, 40);
}

TEST_F(ConformanceTest, MalformedFilesNeverCrash) {
  for (const auto& entry : std::filesystem::directory_iterator(dir_ / "malformed")) {
    const std::string file = ReadFile(entry.path());
    FileMetaData meta;
    Status st = ParseFooter(file, &meta);
    if (st.ok()) {
      int64_t pages = 0;
      st = WalkPages(file, meta, &pages);
    }
    if (!st.ok()) {
      EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
    }
  }
}

TEST_F(ConformanceTest, ReadsKnownMetadata) {
  FileMetaData meta;
  ASSERT_OK(ParseFooter(ReadFile(dir_ / "alltypes_plain.parquet"), &meta));
  EXPECT_EQ(meta.num_rows, 8);
  ASSERT_EQ(meta.schema.size(), 12u);  // root + 11 columns
  EXPECT_EQ(meta.schema[0].num_children, 11);
  EXPECT_EQ(meta.schema[1].name, "id");
  EXPECT_EQ(meta.schema[1].type, Type::kInt32);
  EXPECT_EQ(meta.schema[1].repetition_type, FieldRepetitionType::kOptional);
  ASSERT_EQ(meta.row_groups.size(), 1u);
  ASSERT_EQ(meta.row_groups[0].columns.size(), 11u);
  EXPECT_EQ(meta.row_groups[0].columns[0].meta_data->path_in_schema,
            std::vector<std::string>{"id"});

  ASSERT_OK(ParseFooter(ReadFile(dir_ / "floating_orders_nan_count.parquet"), &meta));
  ASSERT_FALSE(meta.column_orders.empty());
  EXPECT_EQ(meta.column_orders[0], ColumnOrder::kIeee754TotalOrder);
  ASSERT_TRUE(meta.row_groups[0].columns[0].meta_data->statistics.has_value());
  EXPECT_TRUE(meta.row_groups[0].columns[0].meta_data->statistics->nan_count.has_value());

  ASSERT_OK(ParseFooter(ReadFile(dir_ / "column_chunk_key_value_metadata.parquet"), &meta));
  const auto& kv = meta.row_groups[0].columns[0].meta_data->key_value_metadata;
  ASSERT_FALSE(kv.empty());
  bool key_without_value = false;
  for (const KeyValue& e : kv) key_without_value |= !e.value.has_value();
  EXPECT_TRUE(key_without_value);
}

}  // namespace
}  // namespace weir::parquet
