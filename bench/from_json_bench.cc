// from_json throughput on the tutorial's order events next to simdjson's own parse rate on the same
// payloads. Dataset: 100k JSON objects of the five fields the tutorial parses (event_id, order_id,
// status, amount as a string, event_time), 150-220 bytes each, in one shared buffer the way the
// Kafka source hands values over. BM_FromJson evaluates `from_json(raw, '<seed schema>')` over
// the whole batch (weir's kernel: padded copy, On Demand parse, typed columns built, decimal
// parsed). BM_SimdjsonParseOnly is the ceiling: the same padded copy per payload, then simdjson
// On Demand iterating every field (key unescaped, string value unescaped), producing nothing.
// Bytes/s count payload bytes, so the two rates compare directly.
// BM_FromJsonOrders is the silver flow's reading thread (examples/orders.sql): ~230-byte events
// of eleven fields of which the schema keeps five (the rest are skipped), 1% malformed, then
// to_timestamp of the event_time field (BM_ToTimestamp alone).
#include <benchmark/benchmark.h>
#include <simdjson.h>

#include <cinttypes>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/column.h"
#include "columnar/types.h"
#include "expr/binder.h"
#include "expr/evaluator.h"
#include "sql/parser.h"

namespace weir::bench {
namespace {

constexpr int64_t kRows = 100'000;
constexpr std::string_view kSchema =
    "event_id STRING, order_id STRING, status STRING, amount DECIMAL(18,2), event_time STRING";

struct Payloads {
  std::shared_ptr<std::string> bytes = std::make_shared<std::string>();
  std::vector<std::string_view> values;
  columnar::Batch batch;

  // Makes `values` and `batch` (one STRING column "raw") of the (offset, size) spans of `bytes`.
  void Index(const std::vector<std::pair<size_t, size_t>>& spans) {
    batch = columnar::Batch(*columnar::ParseDdlSchema("raw STRING"));
    for (auto [at, size] : spans) {
      std::string_view v = std::string_view(*bytes).substr(at, size);
      values.push_back(v);
      batch.columns[0].AppendStringView(v);
    }
    batch.columns[0].AddBufferOwner(bytes);
  }
};

// kRows payloads: `write(rng, i, event_ms, buffer)` formats row i, whose event time event_ms
// advances 0-39 ms a row, into `buffer` (512 bytes) and returns its length.
template <typename Write>
const Payloads* MakePayloads(uint64_t seed, Write write) {
  auto* p = new Payloads;
  std::mt19937_64 rng(seed);
  std::vector<std::pair<size_t, size_t>> spans;
  int64_t event_ms = 1780909200000;  // 2026-06-08T09:00:00Z
  char buffer[512];
  for (int64_t i = 0; i < kRows; ++i) {
    event_ms += static_cast<int64_t>(rng() % 40);
    const int n = write(rng, i, event_ms, buffer);
    spans.emplace_back(p->bytes->size(), static_cast<size_t>(n));
    p->bytes->append(buffer, static_cast<size_t>(n));
  }
  p->Index(spans);
  return p;
}

constexpr const char* kStatuses[] = {"created", "paid",      "packed",
                                     "shipped", "delivered", "cancelled"};

// The tutorial's events: {"event_id": "...", "order_id": "SO-1", "status": "created",
// "amount": "10.50", "event_time": "2026-06-08T09:00:00Z"}, with UUID event ids and a
// producer-chosen spacing.
const Payloads& SeedPayloads() {
  static const Payloads* payloads =
      MakePayloads(20260608, [](std::mt19937_64& rng, int64_t i, int64_t event_ms, char* buffer) {
        const uint64_t hi = rng(), lo = rng();
        const int day_seconds = static_cast<int>(event_ms / 1000 % 86400);
        const int cents = static_cast<int>(rng() % 2'500'000);
        const char* status = kStatuses[rng() % 6];
        // Some producers add a source tag the schema ignores (longer payloads).
        const bool tagged = rng() % 4 == 0;
        return std::snprintf(
            buffer, 512,
            "{\"event_id\": \"%08" PRIx64 "-%04" PRIx64 "-4%03" PRIx64 "-%04" PRIx64 "-%012" PRIx64
            "\", \"order_id\": \"SO-%" PRId64
            "\", \"status\": \"%s\", "
            "\"amount\": \"%d.%02d\", \"event_time\": \"2026-06-08T%02d:%02d:%02d.%03dZ\"%s}",
            hi >> 32, (hi >> 16) & 0xffff, hi & 0xfff, (lo >> 48) & 0xffff, lo & 0xffffffffffff,
            4'500'000 + i / 3, status, cents / 100, cents % 100, day_seconds / 3600,
            day_seconds / 60 % 60, day_seconds % 60, static_cast<int>(event_ms % 1000),
            tagged ? ", \"source\": \"eventhubs-orders-partition-07\"" : "");
      });
  return *payloads;
}

// The silver flow's bronze values: {"event_id":"e1-15","order_id":"SO-10","status":"created",
// "amount":"243.76","currency":"SEK","customer_id":"C-57643","channel":"partner",
// "sku":"SKU-39286","quantity":4,"region":"eu-west","event_time":"2026-06-08T09:00:00.014Z"},
// one in a hundred cut short (malformed).
const Payloads& OrderPayloads() {
  static const Payloads* payloads =
      MakePayloads(20260609, [](std::mt19937_64& rng, int64_t i, int64_t event_ms, char* buffer) {
        static constexpr const char* kCurrencies[] = {"SEK", "EUR", "USD", "NOK"};
        static constexpr const char* kChannels[] = {"partner", "web", "store", "app"};
        static constexpr const char* kRegions[] = {"eu-west", "eu-north", "us-east"};
        const int day_seconds = static_cast<int>(event_ms / 1000 % 86400);
        const int cents = static_cast<int>(rng() % 50'000);
        int n = std::snprintf(buffer, 512,
                              "{\"event_id\":\"e%d-%" PRId64 "\",\"order_id\":\"SO-%" PRId64
                              "\",\"status\":\"%s\",\"amount\":\"%d.%02d\",\"currency\":\"%s\","
                              "\"customer_id\":\"C-%05d\",\"channel\":\"%s\",\"sku\":\"SKU-%05d\","
                              "\"quantity\":%d,\"region\":\"%s\","
                              "\"event_time\":\"2026-06-08T%02d:%02d:%02d.%03dZ\"}",
                              static_cast<int>(rng() % 4), i, i / 3, kStatuses[rng() % 6],
                              cents / 100, cents % 100, kCurrencies[rng() % 4],
                              static_cast<int>(rng() % 100'000), kChannels[rng() % 4],
                              static_cast<int>(rng() % 100'000), static_cast<int>(rng() % 9 + 1),
                              kRegions[rng() % 3], day_seconds / 3600, day_seconds / 60 % 60,
                              day_seconds % 60, static_cast<int>(event_ms % 1000));
        if (rng() % 100 == 0) n /= 2;  // malformed: cut short
        return n;
      });
  return *payloads;
}

// Binds `sql` over `batch` and evaluates it once per iteration; with `all_well_formed`, a row
// from_json finds malformed is an error.
void RunExpression(benchmark::State& state, const columnar::Batch& batch, const std::string& sql,
                   int64_t bytes, bool all_well_formed = false) {
  auto expr = sql::ParseExpression(sql);
  auto bound = expr.ok() ? expr::Binder(batch.schema).Bind(**expr)
                         : Result<expr::BoundExprPtr>(expr.status());
  if (!bound.ok()) {
    state.SkipWithError(bound.status().ToString().c_str());
    return;
  }
  expr::EvalContext context;
  for (auto _ : state) {
    context.StartBatch(batch.num_rows(), 0);
    auto column = expr::Evaluate(**bound, batch, context);
    if (!column.ok()) {
      state.SkipWithError(column.status().ToString().c_str());
      return;
    }
    if (all_well_formed && context.malformed.count() != 0) {
      state.SkipWithError("from_json found malformed rows");
      return;
    }
    benchmark::DoNotOptimize(column->size());
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.SetItemsProcessed(state.iterations() * batch.num_rows());
}

void BM_FromJsonOrders(benchmark::State& state) {
  const Payloads& p = OrderPayloads();
  RunExpression(state, p.batch, "from_json(raw, '" + std::string(kSchema) + "')",
                static_cast<int64_t>(p.bytes->size()));
}

void BM_ToTimestamp(benchmark::State& state) {
  static const columnar::Batch* batch = [] {
    auto* b = new columnar::Batch(*columnar::ParseDdlSchema("t STRING"));
    auto times = std::make_shared<std::string>();
    const Payloads& p = OrderPayloads();
    std::vector<std::pair<size_t, size_t>> spans;
    for (std::string_view v : p.values) {
      size_t at = v.find("\"event_time\":\"");
      if (at == std::string_view::npos) continue;
      std::string_view t = v.substr(at + 14, 24);
      spans.emplace_back(times->size(), t.size());
      times->append(t);
    }
    for (auto [at, size] : spans)
      b->columns[0].AppendStringView(std::string_view(*times).substr(at, size));
    b->columns[0].AddBufferOwner(times);
    return b;
  }();
  RunExpression(state, *batch, "to_timestamp(t)", batch->num_rows() * 24);
}

void BM_FromJson(benchmark::State& state) {
  const Payloads& p = SeedPayloads();
  RunExpression(state, p.batch, "from_json(raw, '" + std::string(kSchema) + "')",
                static_cast<int64_t>(p.bytes->size()), /*all_well_formed=*/true);
}

void BM_SimdjsonParseOnly(benchmark::State& state) {
  const Payloads& p = SeedPayloads();
  simdjson::ondemand::parser parser;
  std::vector<char> padded(4096 + simdjson::SIMDJSON_PADDING);
  for (auto _ : state) {
    size_t total = 0;
    for (std::string_view v : p.values) {
      std::memcpy(padded.data(), v.data(), v.size());
      std::memset(padded.data() + v.size(), 0, simdjson::SIMDJSON_PADDING);
      simdjson::ondemand::document doc;
      simdjson::ondemand::object object;
      if (parser.iterate(padded.data(), v.size(), padded.size()).get(doc) ||
          doc.get_object().get(object)) {
        state.SkipWithError("simdjson failed");
        return;
      }
      for (auto field_result : object) {
        simdjson::ondemand::field field;
        std::string_view key, value;
        if (std::move(field_result).get(field) || field.unescaped_key().get(key) ||
            field.value().get_string().get(value)) {
          state.SkipWithError("simdjson failed");
          return;
        }
        total += key.size() + value.size();
      }
    }
    benchmark::DoNotOptimize(total);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(p.bytes->size()));
  state.SetItemsProcessed(state.iterations() * kRows);
}

BENCHMARK(BM_SimdjsonParseOnly)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FromJson)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FromJsonOrders)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ToTimestamp)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace weir::bench

BENCHMARK_MAIN();
