// Parquet encode/decode throughput next to the raw compression ceiling, on in-memory files.
// Datasets: ~220-byte JSON order events (unique, realistic entropy), increasing int64 offsets, and
// increasing timestamps with jitter. Bytes/s count the column's raw value bytes (the concatenated
// strings, or 8 bytes per integer), so weir's numbers compare directly with raw/zstd1 and
// raw/snappy on the same bytes. `--dump_dir=DIR` writes each dataset's raw bytes to DIR/<name>.bin
// (for `zstd -b1`, see bench/run.sh) before running the benchmarks.
#include <benchmark/benchmark.h>
#include <snappy.h>
#include <zstd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "columnar/column.h"
#include "columnar/types.h"
#include "compress/compress.h"
#include "fs/file_system.h"
#include "parquet/reader.h"
#include "parquet/writer.h"

namespace weir::bench {
namespace {

constexpr int64_t kStringRows = 100'000;     // ~22 MB of JSON
constexpr int64_t kIntegerRows = 1'000'000;  // 8 MB per integer column
constexpr size_t kZstdChunkBytes = 1 << 20;  // weir's default page size

// ---- In-memory files

class MemoryWritableFile final : public fs::WritableFile {
 public:
  explicit MemoryWritableFile(std::string* out) : WritableFile("memory.parquet"), out_(out) {}
  Status Append(std::string_view data) override {
    out_->append(data);
    return Status::OK();
  }
  Status Sync() override { return Status::OK(); }
  Status Close() override { return Status::OK(); }
  int64_t Size() const override { return static_cast<int64_t>(out_->size()); }

 private:
  std::string* out_;  // not owned; outlives the file
};

class MemoryReadFile final : public fs::RandomAccessFile {
 public:
  explicit MemoryReadFile(std::string_view data)
      : RandomAccessFile("memory.parquet"), data_(data) {}
  Result<int64_t> Size() override { return static_cast<int64_t>(data_.size()); }
  Status ReadAt(int64_t offset, int64_t length, uint8_t* out) override {
    if (offset < 0 || length < 0 || offset + length > static_cast<int64_t>(data_.size())) {
      return Status::Corruption("short read of memory.parquet at " + std::to_string(offset));
    }
    std::memcpy(out, data_.data() + offset, static_cast<size_t>(length));
    return Status::OK();
  }

 private:
  std::string_view data_;  // not owned; outlives the file
};

// ---- Datasets

struct Dataset {
  std::string name;
  columnar::Batch batch;
  std::string raw;  // the values' bytes, concatenated (what the ceilings compress)
};

// Order events like those weir ingests from Kafka: unique ids, a few enumerations, increasing time.
Dataset MakeJsonStrings() {
  static constexpr const char* kStatuses[] = {"created", "paid",      "packed",
                                              "shipped", "delivered", "cancelled"};
  static constexpr const char* kChannels[] = {"web", "ios", "android", "store", "partner"};
  std::mt19937_64 rng(20260608);
  auto pick = [&](auto& options) {
    return options[rng() % (sizeof(options) / sizeof(options[0]))];
  };
  Dataset d{"json_strings",
            columnar::Batch(columnar::Schema{{{"value", columnar::DataType::String()}}}),
            {}};
  columnar::Column& column = d.batch.columns[0];
  column.Reserve(kStringRows);
  int64_t event_ms = 1780909200000;  // 2026-06-08T09:00:00Z
  int64_t order = 4'500'000;
  char buffer[512];
  for (int64_t i = 0; i < kStringRows; ++i) {
    event_ms += static_cast<int64_t>(rng() % 40);
    order += static_cast<int64_t>(rng() % 3);
    const uint64_t id_hi = rng(), id_lo = rng();
    const int64_t seconds = event_ms / 1000;
    const int day_seconds = static_cast<int>(seconds % 86400);
    const int day = 8 + static_cast<int>((seconds - 1780876800) / 86400);  // from 2026-06-08
    const int cents = static_cast<int>(rng() % 250'000);
    const auto customer = static_cast<unsigned>(rng() % 1'000'000);
    const char* status = pick(kStatuses);
    const auto sku = static_cast<unsigned>(rng() % 40'000);
    const auto quantity = static_cast<unsigned>(1 + rng() % 5);
    const char* channel = pick(kChannels);
    const int n = std::snprintf(
        buffer, sizeof(buffer),
        "{\"event_id\":\"%08" PRIx64 "-%04" PRIx64 "-4%03" PRIx64 "-%04" PRIx64 "-%012" PRIx64
        "\",\"order_id\":\"SO-%" PRId64
        "\",\"customer_id\":\"C-%06u\",\"status\":\"%s\","
        "\"amount\":\"%d.%02d\",\"sku\":\"SKU-%05u\",\"quantity\":%u,\"channel\":\"%s\","
        "\"event_time\":\"2026-06-%02dT%02d:%02d:%02d.%03dZ\"}",
        id_hi >> 32, (id_hi >> 16) & 0xffff, id_hi & 0xfff, (id_lo >> 48) & 0xffff,
        id_lo & 0xffffffffffff, order, customer, status, cents / 100, cents % 100, sku, quantity,
        channel, day, day_seconds / 3600, day_seconds / 60 % 60, day_seconds % 60,
        static_cast<int>(event_ms % 1000));
    std::string_view value(buffer, static_cast<size_t>(n));
    column.AppendString(value);
    d.raw.append(value);
  }
  return d;
}

Dataset MakeIntegers(std::string name, columnar::TypePtr type, bool jitter) {
  std::mt19937_64 rng(42);
  Dataset d{std::move(name), columnar::Batch(columnar::Schema{{{"value", type}}}), {}};
  columnar::Column& column = d.batch.columns[0];
  column.Reserve(kIntegerRows);
  int64_t value = jitter ? int64_t{1780909200000000} : int64_t{73'000'000};
  for (int64_t i = 0; i < kIntegerRows; ++i) {
    // Offsets: +1 per record. Timestamps: ~1 ms apart, +-0.5 ms of jitter (out of order at times).
    int64_t v = jitter ? value + static_cast<int64_t>(rng() % 1000) - 500 : value;
    value += jitter ? 1000 : 1;
    column.Append<int64_t>(v);
    d.raw.append(reinterpret_cast<const char*>(&v), sizeof(v));
  }
  return d;
}

const std::vector<Dataset>& Datasets() {
  static const std::vector<Dataset> datasets = [] {
    std::vector<Dataset> all;
    all.push_back(MakeJsonStrings());
    all.push_back(MakeIntegers("int64_offsets", columnar::DataType::Int64(), false));
    all.push_back(MakeIntegers("timestamps", columnar::DataType::Timestamp(), true));
    return all;
  }();
  return datasets;
}

// ---- Benchmarks

void Fail(benchmark::State& state, const Status& status) {
  state.SkipWithError(status.ToString().c_str());
}

// Writes the dataset as one file into `*out` (cleared first; its capacity is reused, so that the
// encode benchmark does not time the growth of an in-memory file).
Status WriteFile(const Dataset& d, const parquet::WriterOptions& options, std::string* out) {
  out->clear();
  WEIR_ASSIGN_OR_RETURN(auto writer,
                        parquet::ParquetWriter::Open(std::make_unique<MemoryWritableFile>(out),
                                                     d.batch.schema, options));
  WEIR_RETURN_NOT_OK(writer->Write(d.batch));
  return writer->Close();
}

void SetThroughput(benchmark::State& state, const Dataset& d, int64_t compressed_bytes) {
  const int64_t raw = static_cast<int64_t>(d.raw.size());
  state.SetBytesProcessed(state.iterations() * raw);
  state.SetItemsProcessed(state.iterations() * d.batch.num_rows());
  state.counters["ratio"] = compressed_bytes > 0 ? static_cast<double>(raw) / compressed_bytes : 0;
}

void Encode(benchmark::State& state, const Dataset* d, parquet::WriterOptions options) {
  options.sync_on_close = false;
  std::string file;
  file.reserve(d->raw.size() + (1 << 20));  // more than any encoding of the dataset takes
  for (auto _ : state) {
    Status status = WriteFile(*d, options, &file);
    if (!status.ok()) return Fail(state, status);
    benchmark::DoNotOptimize(file.data());
  }
  SetThroughput(state, *d, static_cast<int64_t>(file.size()));
}

// A cheap check that decoding worked: same length, same first and last value.
bool SameEnds(const columnar::Column& got, const columnar::Column& want) {
  if (got.size() != want.size() || got.size() == 0) return false;
  const int64_t last = got.size() - 1;
  if (want.type()->is_binary_like()) {
    return got.StringAt(0) == want.StringAt(0) && got.StringAt(last) == want.StringAt(last);
  }
  return got.Value<int64_t>(0) == want.Value<int64_t>(0) &&
         got.Value<int64_t>(last) == want.Value<int64_t>(last);
}

void Decode(benchmark::State& state, const Dataset* d, parquet::WriterOptions options) {
  options.sync_on_close = false;
  std::string file;
  if (Status status = WriteFile(*d, options, &file); !status.ok()) return Fail(state, status);
  for (auto _ : state) {
    auto reader = parquet::ParquetReader::Open(std::make_unique<MemoryReadFile>(file));
    if (!reader.ok()) return Fail(state, reader.status());
    auto batch = (*reader)->ReadAll();
    if (!batch.ok()) return Fail(state, batch.status());
    if (!SameEnds(batch->columns[0], d->batch.columns[0])) {
      return Fail(state, Status::Internal("decoded column differs from the written one"));
    }
    benchmark::DoNotOptimize(batch->columns.data());
  }
  SetThroughput(state, *d, static_cast<int64_t>(file.size()));
}

// ZSTD_compressCCtx on the raw bytes, whole or in `chunk`-byte pieces (0 = whole).
void RawZstdCompress(benchmark::State& state, const Dataset* d, size_t chunk) {
  std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> context(ZSTD_createCCtx(), ZSTD_freeCCtx);
  const size_t piece = chunk == 0 ? d->raw.size() : chunk;
  std::string out(ZSTD_compressBound(piece), '\0');
  int64_t compressed = 0;
  for (auto _ : state) {
    compressed = 0;
    for (size_t at = 0; at < d->raw.size(); at += piece) {
      const size_t n = std::min(piece, d->raw.size() - at);
      size_t written =
          ZSTD_compressCCtx(context.get(), out.data(), out.size(), d->raw.data() + at, n, 1);
      if (ZSTD_isError(written)) return Fail(state, Status::Internal(ZSTD_getErrorName(written)));
      compressed += static_cast<int64_t>(written);
    }
    benchmark::DoNotOptimize(out.data());
  }
  SetThroughput(state, *d, compressed);
}

void RawZstdDecompress(benchmark::State& state, const Dataset* d) {
  std::string compressed(ZSTD_compressBound(d->raw.size()), '\0');
  compressed.resize(
      ZSTD_compress(compressed.data(), compressed.size(), d->raw.data(), d->raw.size(), 1));
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> context(ZSTD_createDCtx(), ZSTD_freeDCtx);
  std::string out(d->raw.size(), '\0');
  for (auto _ : state) {
    size_t got = ZSTD_decompressDCtx(context.get(), out.data(), out.size(), compressed.data(),
                                     compressed.size());
    if (got != d->raw.size()) return Fail(state, Status::Internal("zstd: size mismatch"));
    benchmark::DoNotOptimize(out.data());
  }
  SetThroughput(state, *d, static_cast<int64_t>(compressed.size()));
}

void RawSnappyCompress(benchmark::State& state, const Dataset* d) {
  std::string out(snappy::MaxCompressedLength(d->raw.size()), '\0');
  size_t written = 0;
  for (auto _ : state) {
    snappy::RawCompress(d->raw.data(), d->raw.size(), out.data(), &written);
    benchmark::DoNotOptimize(out.data());
  }
  SetThroughput(state, *d, static_cast<int64_t>(written));
}

void RawSnappyDecompress(benchmark::State& state, const Dataset* d) {
  std::string compressed;
  snappy::Compress(d->raw.data(), d->raw.size(), &compressed);
  std::string out(d->raw.size(), '\0');
  for (auto _ : state) {
    if (!snappy::RawUncompress(compressed.data(), compressed.size(), out.data())) {
      return Fail(state, Status::Internal("snappy: malformed"));
    }
    benchmark::DoNotOptimize(out.data());
  }
  SetThroughput(state, *d, static_cast<int64_t>(compressed.size()));
}

void RegisterAll() {
  struct Variant {
    const char* name;
    compress::Codec codec;
    bool dictionary;
  };
  static constexpr Variant kVariants[] = {{"zstd", compress::Codec::kZstd, true},
                                          {"snappy", compress::Codec::kSnappy, true},
                                          {"zstd_nodict", compress::Codec::kZstd, false},
                                          {"uncompressed", compress::Codec::kUncompressed, true}};
  for (const Dataset& d : Datasets()) {
    for (const Variant& v : kVariants) {
      // Unique strings overflow the dictionary anyway; the no-dictionary run shows its cost.
      // Uncompressed runs show the cost of everything but compression.
      if (!v.dictionary && d.name != "json_strings") continue;
      parquet::WriterOptions options;
      options.codec = v.codec;
      options.enable_dictionary = v.dictionary;
      const std::string suffix = d.name + "/" + v.name;
      benchmark::RegisterBenchmark(("encode/" + suffix).c_str(), Encode, &d, options)
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("decode/" + suffix).c_str(), Decode, &d, options)
          ->Unit(benchmark::kMillisecond);
    }
    benchmark::RegisterBenchmark(("raw_compress/" + d.name + "/zstd1").c_str(), RawZstdCompress, &d,
                                 size_t{0})
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("raw_compress/" + d.name + "/zstd1_1MiB_chunks").c_str(),
                                 RawZstdCompress, &d, kZstdChunkBytes)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("raw_compress/" + d.name + "/snappy").c_str(), RawSnappyCompress,
                                 &d)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("raw_decompress/" + d.name + "/zstd1").c_str(), RawZstdDecompress,
                                 &d)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("raw_decompress/" + d.name + "/snappy").c_str(),
                                 RawSnappyDecompress, &d)
        ->Unit(benchmark::kMillisecond);
  }
}

// Writes every dataset's raw bytes to dir/<name>.bin. False (with a message) on failure.
bool DumpDatasets(const std::string& dir) {
  for (const Dataset& d : Datasets()) {
    const std::string path = dir + "/" + d.name + ".bin";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr || std::fwrite(d.raw.data(), 1, d.raw.size(), f) != d.raw.size() ||
        std::fclose(f) != 0) {
      std::fprintf(stderr, "parquet_bench: cannot write %s\n", path.c_str());
      return false;
    }
  }
  return true;
}

}  // namespace
}  // namespace weir::bench

int main(int argc, char** argv) {
  // Take --dump_dir=DIR out of argv before Google Benchmark parses its flags.
  std::string dump_dir;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.substr(0, 11) == "--dump_dir=") {
      dump_dir = std::string(arg.substr(11));
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!dump_dir.empty() && !weir::bench::DumpDatasets(dump_dir)) return 1;
  weir::bench::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
