// The engine main thread's deduplication cost, as silver (examples/orders.sql) pays it:
// dropDuplicatesWithinWatermark on a short string event id (5% duplicates, 1% late rows) over
// one 2M-row batch, fed to Deduplicate::Process in 20,000-row chunks the way StreamingQuery
// does, then EvictExpired and Commit. The CPU column is the calling thread's (the state store's
// background writes of full pending-update buffers are not in it; Time is wall clock, and
// includes waiting for them). BM_UpdateBufferSetAndSort isolates the pending-update buffer: 800k
// new keys of the silver state's shape, then the sorted walk a write-out takes.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "columnar/types.h"
#include "fs/local_file_system.h"
#include "stream/deduplicate.h"
#include "stream/update_buffer.h"

namespace weir::bench {
namespace {

constexpr int64_t kRows = 2'000'000;
constexpr int64_t kChunkRows = 20'000;
constexpr int64_t kStartMicros = int64_t{1780909200} * 1000000;  // 2026-06-08T09:00:00Z

std::vector<columnar::Batch> MakeChunks() {
  columnar::Schema schema = columnar::ParseDdlSchema("event_id STRING, event_time TIMESTAMP")
                                .ValueOrDie();
  std::mt19937_64 random(1);
  std::vector<columnar::Batch> chunks;
  int64_t next_id = 0;
  for (int64_t begin = 0; begin < kRows; begin += kChunkRows) {
    columnar::Batch b(schema);
    for (int64_t row = begin; row < begin + kChunkRows; ++row) {
      const uint64_t r = random();
      const int64_t id = r % 100 < 5 && next_id > 0 ? static_cast<int64_t>(random() % next_id)
                                                    : next_id++;
      std::string event_id = "e";
      event_id += std::to_string(id % 32);
      event_id += '-';
      event_id += std::to_string(id);
      b.columns[0].AppendString(event_id);
      // ~1 ms apart; late rows lie before the start (the watermark of the batch before).
      const int64_t micros = r % 100 == 99 ? kStartMicros - 1000000 : kStartMicros + row * 1000;
      b.columns[1].Append<int64_t>(micros);
    }
    chunks.push_back(std::move(b));
  }
  return chunks;
}

void BM_DeduplicateBatch(benchmark::State& state) {
  const std::vector<columnar::Batch> chunks = MakeChunks();
  fs::LocalFileSystem fs;
  int64_t kept = 0;
  for (auto _ : state) {
    state.PauseTiming();
    char dir_template[] = "/tmp/weir-dedup-bench-XXXXXX";
    std::string root = mkdtemp(dir_template);
    stream::DeduplicateOptions options;
    options.mode = stream::DeduplicateMode::kWithinWatermark;
    options.key_columns = {0};
    options.event_time_column = 1;
    options.delay_ms = 30 * 60 * 1000;
    auto op = stream::Deduplicate::Open(&fs, stream::StateStoreDir(root, 0), -1,
                                        chunks[0].schema, options)
                  .ValueOrDie();
    state.ResumeTiming();
    kept = 0;
    for (const columnar::Batch& chunk : chunks) {
      kept += static_cast<int64_t>(op->Process(chunk, kStartMicros / 1000).ValueOrDie().size());
    }
    if (!op->EvictExpired(kStartMicros / 1000 + 60 * 1000).ok()) state.SkipWithError("evict");
    if (!op->Commit(0).ok()) state.SkipWithError("commit");
    state.PauseTiming();
    op.reset();
    std::filesystem::remove_all(root);
    state.ResumeTiming();
  }
  state.counters["kept"] = static_cast<double>(kept);
  state.SetItemsProcessed(state.iterations() * kRows);
}
BENCHMARK(BM_DeduplicateBatch)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_UpdateBufferSetAndSort(benchmark::State& state) {
  constexpr int64_t kKeys = 400'000;
  std::vector<std::string> keys;
  for (int64_t i = 0; i < kKeys; ++i) {
    std::string id = "e";
    id += std::to_string(i % 32);
    id += '-';
    id += std::to_string(i * 7919 % kKeys);
    // State keys: r + key encoding (present byte, length, bytes); i + time + key encoding.
    std::string encoding(1, '\x01');
    encoding += static_cast<char>(id.size());
    encoding += id;
    keys.push_back('r' + encoding);
    std::string index(1, 'i');
    index.append(8, static_cast<char>(i % 251));
    index += encoding;
    keys.push_back(index);
  }
  stream::UpdateBuffer buffer;
  for (auto _ : state) {
    for (size_t i = 0; i < keys.size(); ++i) buffer.Set(keys[i], "12345678", false);
    auto sorted = buffer.Sorted();
    benchmark::DoNotOptimize(sorted.data());
    buffer.Clear();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(keys.size()));
}
BENCHMARK(BM_UpdateBufferSetAndSort)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace weir::bench

BENCHMARK_MAIN();
