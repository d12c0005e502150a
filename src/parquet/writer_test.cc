#include "parquet/writer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "base/testing.h"
#include "columnar/json_lines.h"
#include "fs/local_file_system.h"
#include "parquet/reader.h"
#include "parquet/test_batches.h"

namespace weir::parquet {
namespace {

using columnar::Batch;
using columnar::Column;
using columnar::DataType;
using columnar::Int128;
using columnar::Schema;

class ParquetRoundTripTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/weir-parquet-XXXXXX";
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

  fs::LocalFileSystem fs_;
  std::string dir_;
};

TEST_F(ParquetRoundTripTest, EveryTypeAndCodec) {
  Batch batch = AllTypesBatch(3000, 7);
  for (auto codec : {compress::Codec::kUncompressed, compress::Codec::kSnappy, compress::Codec::kZstd,
                     compress::Codec::kGzip, compress::Codec::kLz4Raw}) {
    for (bool dictionary : {true, false}) {
      WriterOptions options;
      options.codec = codec;
      options.enable_dictionary = dictionary;
      options.page_bytes = 4096;  // many pages
      std::string path = Path("all.parquet");
      ASSERT_OK(WriteParquetFile(&fs_, path, batch, options));
      ASSERT_OK_AND_ASSIGN(auto reader, ParquetReader::Open(&fs_, path));
      EXPECT_EQ(reader->num_rows(), 3000);
      EXPECT_TRUE(reader->schema().Equals(batch.schema)) << reader->schema().ToDdl();
      ASSERT_OK_AND_ASSIGN(Batch back, reader->ReadAll());
      ASSERT_EQ(Json(back), Json(batch)) << "codec " << compress::CodecName(codec);
    }
  }
}

TEST_F(ParquetRoundTripTest, RowGroupsAndProjection) {
  Batch batch = AllTypesBatch(60000, 3);
  WriterOptions options;
  options.row_group_bytes = 64 * 1024;
  std::string path = Path("groups.parquet");
  ASSERT_OK(WriteParquetFile(&fs_, path, batch, options));
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetReader::Open(&fs_, path));
  EXPECT_GT(reader->num_row_groups(), 2);
  ASSERT_OK_AND_ASSIGN(auto fields, reader->FieldIndexes({"st", "S"}));
  ASSERT_OK_AND_ASSIGN(Batch back, reader->ReadAll(fields));
  ASSERT_EQ(back.num_rows(), 60000);
  std::string expected, got;
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    columnar::AppendJsonValue(batch.columns[17], r, &expected);
    columnar::AppendJsonValue(batch.columns[10], r, &expected);
    columnar::AppendJsonValue(back.columns[0], r, &got);
    columnar::AppendJsonValue(back.columns[1], r, &got);
  }
  EXPECT_EQ(got, expected);
  ASSERT_STATUS_CODE(kNotFound, reader->FieldIndexes({"nope"}));
}

TEST_F(ParquetRoundTripTest, RowGroupsHoldAtMostRowGroupRows) {
  Batch batch = AllTypesBatch(250000, 5);
  std::string path = Path("rows.parquet");
  ASSERT_OK(WriteParquetFile(&fs_, path, batch));  // the default: 122,880 rows a group
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetReader::Open(&fs_, path));
  std::vector<int64_t> sizes;
  for (const auto& rg : reader->metadata().row_groups) sizes.push_back(rg.num_rows);
  EXPECT_EQ(sizes, (std::vector<int64_t>{122880, 122880, 4240}));
  ASSERT_OK_AND_ASSIGN(Batch back, reader->ReadAll());
  ASSERT_EQ(Json(back), Json(batch));

  // Written in pieces that straddle the limit.
  WriterOptions options;
  options.row_group_rows = 1000;
  ASSERT_OK_AND_ASSIGN(auto file, fs_.OpenForWrite(Path("pieces.parquet")));
  ASSERT_OK_AND_ASSIGN(auto writer, ParquetWriter::Open(std::move(file), batch.schema, options));
  Batch first = AllTypesBatch(1500, 6), second = AllTypesBatch(700, 7);
  ASSERT_OK(writer->Write(first));
  ASSERT_OK(writer->Write(second));
  ASSERT_OK(writer->Close());
  sizes.clear();
  for (const auto& rg : writer->metadata().row_groups) sizes.push_back(rg.num_rows);
  EXPECT_EQ(sizes, (std::vector<int64_t>{1000, 1000, 200}));
}

TEST_F(ParquetRoundTripTest, DictionaryFallsBackToPlain) {
  Schema schema = columnar::ParseDdlSchema("s STRING, n BIGINT").ValueOrDie();
  Batch batch(schema);
  for (int i = 0; i < 50000; ++i) {
    batch.columns[0].AppendString("unique-string-value-number-" + std::to_string(i));
    batch.columns[1].Append<int64_t>(i % 10);
  }
  WriterOptions options;
  options.dictionary_bytes_limit = 64 * 1024;
  std::string path = Path("fallback.parquet");
  ASSERT_OK(WriteParquetFile(&fs_, path, batch, options));
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetReader::Open(&fs_, path));
  const auto& s_meta = *reader->metadata().row_groups[0].columns[0].meta_data;
  const auto& n_meta = *reader->metadata().row_groups[0].columns[1].meta_data;
  int plain_pages = 0, dict_pages = 0;
  for (const auto& es : s_meta.encoding_stats) {
    if (es.page_type == PageType::kDataPage && es.encoding == Encoding::kPlain) plain_pages += es.count;
    if (es.page_type == PageType::kDataPage && es.encoding == Encoding::kRleDictionary) dict_pages += es.count;
  }
  EXPECT_GT(plain_pages, 0);
  EXPECT_GT(dict_pages, 0);
  EXPECT_TRUE(n_meta.dictionary_page_offset.has_value());
  ASSERT_OK_AND_ASSIGN(Batch back, reader->ReadAll());
  EXPECT_EQ(Json(back), Json(batch));
}

// 100,000 rows of mostly distinct ids and payloads next to a repetitive status.
Batch DistinctAndRepetitiveColumns() {
  Batch batch(columnar::ParseDdlSchema("id BIGINT, payload STRING, status STRING").ValueOrDie());
  for (int i = 0; i < 100000; ++i) {
    batch.columns[0].Append<int64_t>(int64_t{1000000007} * i);
    batch.columns[1].AppendString("{\"event_id\":\"e-" + std::to_string(i) + "\"}");
    batch.columns[2].AppendString(i % 3 == 0 ? "created" : "paid");
  }
  return batch;
}

TEST_F(ParquetRoundTripTest, DictionaryThatDoesNotPayOffIsDroppedEarly) {
  // Mostly distinct values (offsets, ids, raw payloads) leave the dictionary after a first probe
  // instead of filling it to dictionary_bytes_limit; repetitive values keep it.
  Batch batch = DistinctAndRepetitiveColumns();
  std::string path = Path("probe.parquet");
  ASSERT_OK(WriteParquetFile(&fs_, path, batch));
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetReader::Open(&fs_, path));
  ASSERT_EQ(reader->num_row_groups(), 1);
  for (int c : {0, 1}) {
    const auto& meta = *reader->metadata().row_groups[0].columns[c].meta_data;
    int64_t plain_pages = 0;
    for (const auto& es : meta.encoding_stats) {
      if (es.page_type == PageType::kDataPage && es.encoding == Encoding::kPlain) plain_pages += es.count;
    }
    EXPECT_GT(plain_pages, 0) << "column " << c;
    // The dictionary written holds the probed values only (well under the 1 MiB limit).
    ASSERT_TRUE(meta.dictionary_page_offset.has_value()) << "column " << c;
    EXPECT_LT(meta.data_page_offset - *meta.dictionary_page_offset, 256 * 1024) << "column " << c;
  }
  const auto& status_meta = *reader->metadata().row_groups[0].columns[2].meta_data;
  for (const auto& es : status_meta.encoding_stats) {
    if (es.page_type == PageType::kDataPage) {
      EXPECT_EQ(es.encoding, Encoding::kRleDictionary);
    }
  }
  ASSERT_OK_AND_ASSIGN(Batch back, reader->ReadAll());
  EXPECT_EQ(Json(back), Json(batch));
}

TEST_F(ParquetRoundTripTest, AColumnThatFailedTheProbeSkipsTheDictionaryInLaterRowGroups) {
  // After a chunk's probe found the values mostly distinct, the file's later chunks of that column
  // are PLAIN from their first page (no dictionary page); other columns keep theirs.
  Batch batch = DistinctAndRepetitiveColumns();
  WriterOptions options;
  options.row_group_rows = 20000;
  std::string path = Path("sticky.parquet");
  ASSERT_OK(WriteParquetFile(&fs_, path, batch, options));
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetReader::Open(&fs_, path));
  ASSERT_EQ(reader->num_row_groups(), 5);
  for (int g = 0; g < 5; ++g) {
    for (int c : {0, 1}) {  // id, payload
      const auto& meta = *reader->metadata().row_groups[g].columns[c].meta_data;
      EXPECT_EQ(meta.dictionary_page_offset.has_value(), g == 0) << "row group " << g << ", column " << c;
      if (g > 0) {
        for (const auto& es : meta.encoding_stats) {
          EXPECT_NE(es.encoding, Encoding::kRleDictionary) << "row group " << g << ", column " << c;
        }
      }
    }
    const auto& status = *reader->metadata().row_groups[g].columns[2].meta_data;
    EXPECT_TRUE(status.dictionary_page_offset.has_value()) << "row group " << g;
  }
  ASSERT_OK_AND_ASSIGN(Batch back, reader->ReadAll());
  EXPECT_EQ(Json(back), Json(batch));
}

TEST_F(ParquetRoundTripTest, NullableValuesAcrossLevelChunks) {
  // Nulls at irregular places: the values of one page arrive in several pieces of any length
  // (PLAIN booleans are bit-packed across them), and the levels in front of PLAIN values take
  // more or less room than the gap kept for them.
  Schema schema = columnar::ParseDdlSchema("b BOOLEAN, s STRING, n BIGINT").ValueOrDie();
  for (int null_every : {3, 7, 1000000}) {
    Batch batch(schema);
    std::mt19937 random(static_cast<unsigned>(null_every));
    for (int i = 0; i < 30000; ++i) {
      if (i % null_every == 1 || random() % 11 == 0) {
        for (auto& c : batch.columns) c.AppendNull();
        continue;
      }
      batch.columns[0].Append<uint8_t>(random() % 2);
      batch.columns[1].AppendString("value-" + std::to_string(random()));
      batch.columns[2].Append<int64_t>(static_cast<int64_t>(random()));
    }
    for (bool dictionary : {true, false}) {
      WriterOptions options;
      options.enable_dictionary = dictionary;
      std::string path = Path("nulls.parquet");
      ASSERT_OK(WriteParquetFile(&fs_, path, batch, options));
      ASSERT_OK_AND_ASSIGN(auto reader, ParquetReader::Open(&fs_, path));
      ASSERT_OK_AND_ASSIGN(Batch back, reader->ReadAll());
      ASSERT_EQ(back.num_rows(), batch.num_rows());
      for (int c = 0; c < 3; ++c) {
        int64_t first_difference = -1;
        for (int64_t r = 0; r < batch.num_rows() && first_difference < 0; ++r) {
          std::string a, b;
          columnar::AppendJsonValue(batch.columns[c], r, &a);
          columnar::AppendJsonValue(back.columns[c], r, &b);
          if (a != b) first_difference = r;
        }
        EXPECT_EQ(first_difference, -1) << "column " << schema.fields[c].name << ", nulls every "
                                        << null_every << ", dictionary " << dictionary;
      }
    }
  }
}

TEST_F(ParquetRoundTripTest, StatisticsAndLeafStats) {
  Schema schema = columnar::ParseDdlSchema("n BIGINT, s STRING, d DECIMAL(38,2), f DOUBLE").ValueOrDie();
  Batch batch(schema);
  int64_t values[] = {5, -3, 12};
  for (int64_t v : values) {
    batch.columns[0].Append<int64_t>(v);
    batch.columns[1].AppendString("s" + std::to_string(v));
    batch.columns[2].Append<Int128>(v * 100);
    batch.columns[3].Append<double>(v == 5 ? NAN : v / 2.0);
  }
  batch.columns[0].AppendNull();
  batch.columns[1].AppendString(std::string(100, 'z'));  // max gets truncated in Parquet stats
  batch.columns[2].AppendNull();
  batch.columns[3].AppendNull();
  std::string path = Path("stats.parquet");
  ASSERT_OK_AND_ASSIGN(auto file, fs_.OpenForWrite(path));
  ASSERT_OK_AND_ASSIGN(auto writer, ParquetWriter::Open(std::move(file), schema));
  ASSERT_OK(writer->Write(batch));
  ASSERT_OK(writer->Close());
  const auto& stats = writer->leaf_stats();
  EXPECT_EQ(stats[0].null_count, 1);
  EXPECT_EQ(stats[0].min_max.Value<int64_t>(0), -3);
  EXPECT_EQ(stats[0].min_max.Value<int64_t>(1), 12);
  EXPECT_EQ(stats[1].min_max.StringAt(0), "s-3");
  EXPECT_EQ(stats[1].min_max.StringAt(1), std::string(100, 'z'));
  EXPECT_EQ(stats[2].min_max.Value<Int128>(0), -300);
  EXPECT_EQ(stats[3].min_max.Value<double>(0), -1.5);  // NaN ignored
  EXPECT_EQ(stats[3].min_max.Value<double>(1), 6.0);
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetReader::Open(&fs_, path));
  const auto& st = *reader->metadata().row_groups[0].columns[1].meta_data->statistics;
  EXPECT_EQ(*st.min_value, "s-3");
  EXPECT_EQ(st.max_value->size(), 64u);
  EXPECT_EQ(st.is_max_value_exact, false);
  int64_t max_n;
  std::memcpy(&max_n, reader->metadata().row_groups[0].columns[0].meta_data->statistics->max_value->data(), 8);
  EXPECT_EQ(max_n, 12);
  EXPECT_EQ(reader->metadata().created_by, "weir version " WEIR_VERSION);
}

// String min/max: values that go through the dictionary are summed up from its entries when the
// chunk is finished, PLAIN ones as they are copied; a chunk may hold both: after the dictionary
// outgrew its limit, or after the first 8192 values showed it does not pay off (probe).
TEST_F(ParquetRoundTripTest, StringStatisticsCoverDictionaryAndPlainPages) {
  Schema schema =
      columnar::ParseDdlSchema("few STRING, mixed STRING, distinct_values STRING").ValueOrDie();
  Batch batch(schema);
  std::mt19937 random(5);
  constexpr int kRows = 60000, kGroupRows = 25000;
  auto word = [&](int length) {
    std::string w;
    for (int i = 0; i < length; ++i) w.push_back(static_cast<char>('a' + random() % 26));
    return w;
  };
  for (int i = 0; i < kRows; ++i) {
    batch.columns[0].AppendString("status-" + std::to_string(random() % 7));
    batch.columns[1].AppendString(word(12));
    batch.columns[2].AppendString("{\"id\":\"" + word(20) + "\"}");
  }
  // The extremes of each row group sit early (in dictionary pages) and late (in PLAIN pages).
  for (int g = 0; g * kGroupRows < kRows; ++g) {
    const int first = g * kGroupRows, last = std::min(kRows, first + kGroupRows) - 1;
    batch.columns[1].string_buffer()[first + 3] = "AAA-lowest";
    batch.columns[1].string_buffer()[last - 2] = "zzzz-highest";
    batch.columns[2].string_buffer()[first + 5] = "~highest";
    batch.columns[2].string_buffer()[last - 1] = "!lowest";
  }
  // 32 KiB: "mixed" and "distinct_values" outgrow the dictionary before the probe in every row
  // group; 1 MiB (the default): the probe drops it after 8192 values of the first row group, and
  // the later ones are PLAIN throughout.
  for (int64_t limit : {int64_t{32} << 10, int64_t{1} << 20}) {
    WriterOptions options;
    options.dictionary_bytes_limit = limit;
    options.row_group_rows = kGroupRows;
    std::string path = Path("string-stats-" + std::to_string(limit) + ".parquet");
    ASSERT_OK(WriteParquetFile(&fs_, path, batch, options));
    ASSERT_OK_AND_ASSIGN(auto reader, ParquetReader::Open(&fs_, path));
    ASSERT_EQ(reader->num_row_groups(), 3);
    for (int g = 0; g < 3; ++g) {
      const int first = g * kGroupRows, end = std::min(kRows, first + kGroupRows);
      for (int c = 0; c < 3; ++c) {
        SCOPED_TRACE("limit " + std::to_string(limit) + ", row group " + std::to_string(g) +
                     ", column " + std::to_string(c));
        std::string_view min = batch.columns[c].StringAt(first), max = min;
        for (int r = first; r < end; ++r) {
          min = std::min(min, batch.columns[c].StringAt(r));
          max = std::max(max, batch.columns[c].StringAt(r));
        }
        const auto& meta = *reader->metadata().row_groups[g].columns[c].meta_data;
        ASSERT_TRUE(meta.statistics.has_value());
        ASSERT_TRUE(meta.statistics->min_value && meta.statistics->max_value);
        EXPECT_EQ(*meta.statistics->min_value, min);
        EXPECT_EQ(*meta.statistics->max_value, max);
        bool plain = false, dict = false;
        for (const auto& es : meta.encoding_stats) {
          plain |= es.page_type == PageType::kDataPage && es.encoding == Encoding::kPlain;
          dict |= es.page_type == PageType::kDataPage && es.encoding == Encoding::kRleDictionary;
        }
        if (c == 0) {
          EXPECT_TRUE(dict && !plain);  // "few" stays in its dictionary
        } else if (limit == int64_t{1} << 20 && g > 0) {
          EXPECT_TRUE(plain && !dict);  // the probe of row group 0 dropped it for the file
        } else {
          EXPECT_TRUE(plain && dict);
        }
      }
    }
  }
}

// The statistics' byte order: unsigned bytes, a prefix before its extensions, differences before,
// at and after the eighth byte (the comparison goes a word at a time), with and without a dictionary.
TEST_F(ParquetRoundTripTest, StringMinMaxFollowsUnsignedByteOrder) {
  Schema schema = columnar::ParseDdlSchema("s STRING").ValueOrDie();
  std::mt19937 random(11);
  const std::string alphabet("a\x7F\x80\xFF\x01", 5);
  for (int round = 0; round < 40; ++round) {
    Batch batch(schema);
    const std::string prefix(static_cast<size_t>(random() % 20), 'p');
    for (int i = 0; i < 200; ++i) {
      std::string v = prefix;
      const int length = static_cast<int>(random() % 12);
      for (int k = 0; k < length; ++k) v.push_back(alphabet[random() % alphabet.size()]);
      batch.columns[0].AppendString(v);
    }
    std::string_view min = batch.columns[0].StringAt(0), max = min;
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      min = std::min(min, batch.columns[0].StringAt(r));
      max = std::max(max, batch.columns[0].StringAt(r));
    }
    for (bool dictionary : {true, false}) {
      SCOPED_TRACE("round " + std::to_string(round) + (dictionary ? ", dictionary" : ", plain"));
      WriterOptions options;
      options.enable_dictionary = dictionary;
      std::string path = Path("order.parquet");
      ASSERT_OK(WriteParquetFile(&fs_, path, batch, options));
      ASSERT_OK_AND_ASSIGN(auto reader, ParquetReader::Open(&fs_, path));
      const auto& stats = reader->metadata().row_groups[0].columns[0].meta_data->statistics;
      ASSERT_TRUE(stats.has_value() && stats->min_value && stats->max_value);
      EXPECT_EQ(*stats->min_value, min);
      EXPECT_EQ(*stats->max_value, max);
    }
  }
}

TEST_F(ParquetRoundTripTest, EmptyAndSingleRowFiles) {
  Schema schema = columnar::ParseDdlSchema("a STRING, b ARRAY<INT>").ValueOrDie();
  for (int rows : {0, 1}) {
    Batch batch(schema);
    if (rows == 1) {
      batch.columns[0].AppendString("");
      batch.columns[1].AppendListEntry();
    }
    std::string path = Path("small.parquet");
    ASSERT_OK(WriteParquetFile(&fs_, path, batch));
    ASSERT_OK_AND_ASSIGN(auto reader, ParquetReader::Open(&fs_, path));
    EXPECT_EQ(reader->num_rows(), rows);
    ASSERT_OK_AND_ASSIGN(Batch back, reader->ReadAll());
    EXPECT_EQ(Json(back), Json(batch));
  }
}

TEST_F(ParquetRoundTripTest, RejectsMismatchedBatches) {
  Schema schema = columnar::ParseDdlSchema("a BIGINT NOT NULL").ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto file, fs_.OpenForWrite(Path("bad.parquet")));
  ASSERT_OK_AND_ASSIGN(auto writer, ParquetWriter::Open(std::move(file), schema));
  Batch wrong_type(columnar::ParseDdlSchema("a INT").ValueOrDie());
  wrong_type.columns[0].Append<int32_t>(1);
  ASSERT_STATUS_CODE(kInvalidArgument, writer->Write(wrong_type));
  Batch with_null(schema);
  with_null.columns[0].AppendNull();
  ASSERT_STATUS_CODE(kInvalidArgument, writer->Write(with_null));
}

TEST_F(ParquetRoundTripTest, TruncatedFilesAreCorruption) {
  Batch batch = AllTypesBatch(500, 11);
  std::string path = Path("t.parquet");
  ASSERT_OK(WriteParquetFile(&fs_, path, batch));
  ASSERT_OK_AND_ASSIGN(std::string bytes, fs::ReadFileToString(&fs_, path));
  std::mt19937 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    std::string mutated = bytes;
    if (trial < 100) {
      mutated.resize(rng() % bytes.size());
    } else {
      for (int k = 0; k < 1 + trial % 8; ++k) mutated[rng() % mutated.size()] = static_cast<char>(rng());
    }
    std::string mpath = Path("m.parquet");
    ASSERT_OK(fs::WriteStringToFile(&fs_, mpath, mutated, false));
    auto reader = ParquetReader::Open(&fs_, mpath);
    if (!reader.ok()) {
      EXPECT_TRUE(reader.status().IsCorruption() || reader.status().IsNotImplemented())
          << reader.status().ToString();
      EXPECT_NE(reader.status().message().find(mpath), std::string::npos);
      continue;
    }
    auto all = (*reader)->ReadAll();
    if (!all.ok()) {
      EXPECT_TRUE(all.status().IsCorruption() || all.status().IsNotImplemented())
          << all.status().ToString();
    }
  }
}

}  // namespace
}  // namespace weir::parquet
