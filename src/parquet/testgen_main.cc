// weir_parquet_testgen OUT_DIR: writes the Parquet files the round-trip integration test hands to
// independent readers (DuckDB, parquet-wasm), and checks that weir reads the big one back.
//   all_<codec>_<dict|plain>.parquet  every type (nested too), nulls, empty strings, small pages
//   empty.parquet, one_row.parquet    0 and 1 rows of every type
//   fallback.parquet                  a dictionary that outgrows its limit, then PLAIN pages
//   big.parquet                       10,000,000 rows: id, v = id * 7, s = 'row-' || id,
//                                     ts = 2026-01-01 + id ms, n = null when id % 1000 == 0 else id
#include <cstdio>
#include <string>

#include "fs/local_file_system.h"
#include "parquet/reader.h"
#include "parquet/test_batches.h"
#include "parquet/writer.h"

namespace weir::parquet {
namespace {

constexpr int64_t kBigRows = 10'000'000;
constexpr int64_t kBaseMicros = 1767225600000000LL;  // 2026-01-01T00:00:00Z

Status WriteAll(fs::FileSystem* fs, const std::string& dir) {
  WEIR_RETURN_NOT_OK(fs->CreateDirs(dir));
  Batch batch = AllTypesBatch(3000, 7);
  for (auto codec : {compress::Codec::kUncompressed, compress::Codec::kSnappy, compress::Codec::kGzip,
                     compress::Codec::kZstd, compress::Codec::kLz4Raw}) {
    for (bool dictionary : {true, false}) {
      WriterOptions options;
      options.codec = codec;
      options.enable_dictionary = dictionary;
      options.page_bytes = 8192;
      std::string name = "all_" + std::string(compress::CodecName(codec)) + "_" +
                         (dictionary ? "dict" : "plain") + ".parquet";
      WEIR_RETURN_NOT_OK(WriteParquetFile(fs, dir + "/" + name, batch, options));
    }
  }
  WEIR_RETURN_NOT_OK(WriteParquetFile(fs, dir + "/empty.parquet", AllTypesBatch(0, 1)));
  WEIR_RETURN_NOT_OK(WriteParquetFile(fs, dir + "/one_row.parquet", AllTypesBatch(1, 2)));

  Batch fallback(columnar::ParseDdlSchema("s STRING, k INT").ValueOrDie());
  for (int i = 0; i < 40000; ++i) {
    fallback.columns[0].AppendString("a fairly long unique string value number " + std::to_string(i));
    fallback.columns[1].Append<int32_t>(i % 17);
  }
  WriterOptions small_dictionary;
  small_dictionary.dictionary_bytes_limit = 32 * 1024;
  return WriteParquetFile(fs, dir + "/fallback.parquet", fallback, small_dictionary);
}

Status WriteBig(fs::FileSystem* fs, const std::string& path) {
  Schema schema = columnar::ParseDdlSchema("id BIGINT NOT NULL, v BIGINT, s STRING, ts TIMESTAMP, n BIGINT").ValueOrDie();
  WEIR_ASSIGN_OR_RETURN(auto file, fs->OpenForWrite(path));
  WEIR_ASSIGN_OR_RETURN(auto writer, ParquetWriter::Open(std::move(file), schema));
  constexpr int64_t kChunk = 100000;
  for (int64_t begin = 0; begin < kBigRows; begin += kChunk) {
    Batch batch(schema);
    for (auto& c : batch.columns) c.Reserve(kChunk);
    for (int64_t id = begin; id < begin + kChunk; ++id) {
      batch.columns[0].Append<int64_t>(id);
      batch.columns[1].Append<int64_t>(id * 7);
      batch.columns[2].AppendString("row-" + std::to_string(id));
      batch.columns[3].Append<int64_t>(kBaseMicros + id * 1000);
      if (id % 1000 == 0) {
        batch.columns[4].AppendNull();
      } else {
        batch.columns[4].Append<int64_t>(id);
      }
    }
    WEIR_RETURN_NOT_OK(writer->Write(batch));
  }
  return writer->Close();
}

Status VerifyBig(fs::FileSystem* fs, const std::string& path) {
  WEIR_ASSIGN_OR_RETURN(auto reader, ParquetReader::Open(fs, path));
  if (reader->num_rows() != kBigRows) return Status::Internal("big.parquet: wrong row count");
  int64_t id = 0;
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    WEIR_ASSIGN_OR_RETURN(Batch batch, reader->ReadRowGroup(g));
    for (int64_t r = 0; r < batch.num_rows(); ++r, ++id) {
      bool ok = batch.columns[0].Value<int64_t>(r) == id && batch.columns[1].Value<int64_t>(r) == id * 7 &&
                batch.columns[2].StringAt(r) == "row-" + std::to_string(id) &&
                batch.columns[3].Value<int64_t>(r) == kBaseMicros + id * 1000 &&
                (id % 1000 == 0 ? batch.columns[4].IsNull(r) : batch.columns[4].Value<int64_t>(r) == id);
      if (!ok) return Status::Internal("big.parquet: row " + std::to_string(id) + " read back wrong");
    }
  }
  if (id != kBigRows) return Status::Internal("big.parquet: rows missing");
  std::printf("big.parquet: %d row groups, %lld rows verified\n", reader->num_row_groups(),
              static_cast<long long>(id));
  return Status::OK();
}

}  // namespace
}  // namespace weir::parquet

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: weir_parquet_testgen OUT_DIR\n");
    return 2;
  }
  weir::fs::LocalFileSystem fs;
  std::string dir = argv[1];
  weir::Status st = weir::parquet::WriteAll(&fs, dir);
  if (st.ok()) st = weir::parquet::WriteBig(&fs, dir + "/big.parquet");
  if (st.ok()) st = weir::parquet::VerifyBig(&fs, dir + "/big.parquet");
  if (!st.ok()) {
    std::fprintf(stderr, "weir_parquet_testgen: %s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
