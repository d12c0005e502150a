#include "stream/deduplicate.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace weir::stream {

namespace {

static_assert(std::endian::native == std::endian::little,
              "the key encoding copies little-endian values as they are in memory");

using columnar::Column;
using columnar::TypeId;

constexpr char kNull = 0x00;
constexpr char kPresent = 0x01;

int64_t MillisToMicros(int64_t ms) {
  int64_t out;
  if (__builtin_mul_overflow(ms, int64_t{1000}, &out)) {
    return ms < 0 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
  }
  return out;
}

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out)) {
    return b < 0 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
  }
  return out;
}

int64_t NanosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              start)
      .count();
}

void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

template <typename T>
void AppendFixed(T v, std::string* out) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  out->append(bytes, sizeof(T));
}

void EncodeValue(const Column& col, int64_t row, std::string* out) {
  if (col.IsNull(row)) {
    out->push_back(kNull);
    return;
  }
  out->push_back(kPresent);
  switch (col.type_id()) {
    case TypeId::kBoolean:
      out->push_back(col.Value<uint8_t>(row) != 0 ? 1 : 0);
      break;
    case TypeId::kInt8:
      AppendFixed(col.Value<int8_t>(row), out);
      break;
    case TypeId::kInt16:
      AppendFixed(col.Value<int16_t>(row), out);
      break;
    case TypeId::kInt32:
    case TypeId::kDate:
      AppendFixed(col.Value<int32_t>(row), out);
      break;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      AppendFixed(col.Value<int64_t>(row), out);
      break;
    case TypeId::kFloat: {
      float f = col.Value<float>(row);
      uint32_t bits;
      if (std::isnan(f)) {
        bits = 0x7fc00000u;
      } else {
        if (f == 0.0f) f = 0.0f;  // -0.0 and 0.0 are one key
        std::memcpy(&bits, &f, sizeof(bits));
      }
      AppendFixed(bits, out);
      break;
    }
    case TypeId::kDouble: {
      double d = col.Value<double>(row);
      uint64_t bits;
      if (std::isnan(d)) {
        bits = 0x7ff8000000000000ull;
      } else {
        if (d == 0.0) d = 0.0;
        std::memcpy(&bits, &d, sizeof(bits));
      }
      AppendFixed(bits, out);
      break;
    }
    case TypeId::kDecimal:
      AppendFixed(col.Value<columnar::Int128>(row), out);
      break;
    case TypeId::kString:
    case TypeId::kBinary: {
      std::string_view s = col.StringAt(row);
      AppendVarint(s.size(), out);
      out->append(s);
      break;
    }
    case TypeId::kStruct:
      for (int i = 0; i < col.num_children(); ++i) EncodeValue(col.child(i), row, out);
      break;
    case TypeId::kList: {
      int32_t begin = col.offsets()[row];
      int32_t end = col.offsets()[row + 1];
      AppendVarint(static_cast<uint64_t>(end - begin), out);
      for (int32_t i = begin; i < end; ++i) EncodeValue(col.child(0), i, out);
      break;
    }
    case TypeId::kMap: {
      int32_t begin = col.offsets()[row];
      int32_t end = col.offsets()[row + 1];
      AppendVarint(static_cast<uint64_t>(end - begin), out);
      for (int32_t i = begin; i < end; ++i) {
        EncodeValue(col.child(0), i, out);
        EncodeValue(col.child(1), i, out);
      }
      break;
    }
  }
}

bool IsTimestamp(const columnar::TypePtr& type) {
  return type->id() == TypeId::kTimestamp || type->id() == TypeId::kTimestampNtz;
}

}  // namespace

void EncodeKey(const columnar::Batch& batch, int64_t row, const std::vector<int>& columns,
               std::string* out) {
  for (int c : columns) EncodeValue(batch.columns[c], row, out);
}

void AppendOrderedTime(int64_t micros, std::string* out) {
  uint64_t u = static_cast<uint64_t>(micros) ^ (uint64_t{1} << 63);
  char bytes[8];
  for (int i = 7; i >= 0; --i) {
    bytes[i] = static_cast<char>(u & 0xff);
    u >>= 8;
  }
  out->append(bytes, 8);
}

int64_t DecodeOrderedTime(std::string_view bytes) {
  uint64_t u = 0;
  for (int i = 0; i < 8; ++i) u = (u << 8) | static_cast<uint8_t>(bytes[i]);
  return static_cast<int64_t>(u ^ (uint64_t{1} << 63));
}

Deduplicate::Deduplicate(DeduplicateOptions options, columnar::Schema schema,
                         std::unique_ptr<StateStore> store)
    : options_(std::move(options)),
      schema_(std::move(schema)),
      store_(std::move(store)),
      fingerprints_(/*with_values=*/options_.mode == DeduplicateMode::kWithinWatermark) {
  if (options_.mode == DeduplicateMode::kWithinWatermark) {
    rows_by_time_ = true;
  } else if (options_.event_time_column >= 0) {
    for (size_t i = 0; i < options_.key_columns.size(); ++i) {
      if (options_.key_columns[i] == options_.event_time_column) {
        event_time_key_position_ = static_cast<int>(i);
        index_by_time_ = true;
        break;
      }
    }
  }
  progress_.operator_name = std::string(operator_name());
}

Result<std::unique_ptr<Deduplicate>> Deduplicate::Open(fs::FileSystem* fs, std::string state_dir,
                                                       int64_t version,
                                                       const columnar::Schema& input_schema,
                                                       DeduplicateOptions options) {
  const int n = input_schema.num_fields();
  if (options.key_columns.empty()) {
    for (int i = 0; i < n; ++i) options.key_columns.push_back(i);
  }
  if (options.key_columns.empty()) {
    return Status::InvalidArgument("deduplication needs at least one column (the input has none)");
  }
  for (int c : options.key_columns) {
    if (c < 0 || c >= n) {
      return Status::InvalidArgument("deduplication key column index " + std::to_string(c) +
                                     " is out of range for an input of " + std::to_string(n) +
                                     " columns");
    }
  }
  if (options.event_time_column >= n || options.event_time_column < -1) {
    return Status::InvalidArgument(
        "event-time column index " + std::to_string(options.event_time_column) +
        " is out of range for an input of " + std::to_string(n) + " columns");
  }
  if (options.event_time_column >= 0) {
    const columnar::Field& f = input_schema.fields[options.event_time_column];
    if (!IsTimestamp(f.type)) {
      return Status::InvalidArgument("the watermark column " + f.name +
                                     " must be TIMESTAMP or TIMESTAMP_NTZ, not " + f.type->ToDdl());
    }
  }
  if (options.delay_ms < 0) {
    return Status::InvalidArgument("watermark delay must not be negative, got " +
                                   std::to_string(options.delay_ms) + " ms");
  }
  const bool within = options.mode == DeduplicateMode::kWithinWatermark;
  if (within && options.event_time_column < 0) {
    return Status::InvalidArgument(
        "dropDuplicatesWithinWatermark needs a watermark: declare one on the event-time column "
        "(WATERMARK col DELAY OF INTERVAL ...) before deduplicating");
  }
  // The state's layout, checked against the checkpoint's on every open.
  std::string schema = within ? "dedupeWithinWatermark" : "dedupe";
  schema += " keys=(";
  bool event_time_in_keys = false;
  for (size_t i = 0; i < options.key_columns.size(); ++i) {
    if (i > 0) schema += ",";
    schema += input_schema.fields[options.key_columns[i]].type->ToDdl();
    if (options.key_columns[i] == options.event_time_column) event_time_in_keys = true;
  }
  schema += ")";
  if (within) {
    // The layout before rows were keyed by time: upgraded on open (UpgradeState).
    options.store.upgradable_schema = schema + " value=expiresAtMicros index=expiresAt";
    schema += " rows=expiresAt+key";
  } else if (event_time_in_keys) {
    schema += " value=empty index=eventTime";
  } else {
    schema += " value=empty";
  }
  options.store.schema = schema;
  WEIR_ASSIGN_OR_RETURN(std::unique_ptr<StateStore> store,
                        StateStore::Open(fs, std::move(state_dir), version, options.store));
  std::unique_ptr<Deduplicate> dedup(
      new Deduplicate(std::move(options), input_schema, std::move(store)));
  WEIR_RETURN_NOT_OK(dedup->UpgradeState());
  WEIR_RETURN_NOT_OK(dedup->LoadFingerprints());
  return dedup;
}

Status Deduplicate::UpgradeState() {
  if (store_->loaded_schema() == options_.store.schema) return Status::OK();
  // Only within-watermark state has an earlier layout: rows r + key -> expiresAt with index
  // entries i + time(expiresAt) + key. Each index entry becomes the row r + time(expiresAt) + key.
  // The old rows go first: an old key's bytes may equal a new one's.
  WEIR_ASSIGN_OR_RETURN(std::unique_ptr<StateStore::Cursor> index,
                        store_->Scan(StateStore::Keyspace::kIndex));
  int64_t old_rows = 0;
  {
    WEIR_ASSIGN_OR_RETURN(std::unique_ptr<StateStore::Cursor> rows,
                          store_->Scan(StateStore::Keyspace::kRows));
    for (; rows->Valid(); rows->Next()) {
      WEIR_RETURN_NOT_OK(
          store_->Remove(rows->key(), StateStore::Keyspace::kRows, /*known_present=*/true));
      ++old_rows;
    }
    WEIR_RETURN_NOT_OK(rows->status());
  }
  int64_t entries = 0;
  for (; index->Valid(); index->Next()) {
    if (index->key().size() <= kTimeBytes) {
      return Status::Corruption("deduplication index entry of " + std::to_string(index->key().size()) +
                                " bytes in " + store_->dir());
    }
    WEIR_RETURN_NOT_OK(store_->Remove(index->key(), StateStore::Keyspace::kIndex));
    WEIR_RETURN_NOT_OK(
        store_->Put(index->key(), {}, StateStore::Keyspace::kRows, /*known_absent=*/true));
    ++entries;
  }
  WEIR_RETURN_NOT_OK(index->status());
  if (entries != old_rows) {
    return Status::Corruption("deduplication state in " + store_->dir() + " has " +
                              std::to_string(old_rows) + " rows but " + std::to_string(entries) +
                              " index entries; restore the checkpoint or start with a new one");
  }
  return Status::OK();
}

Status Deduplicate::LoadFingerprints() {
  fingerprints_.Clear();
  evicted_fingerprints_.clear();
  WEIR_ASSIGN_OR_RETURN(std::unique_ptr<StateStore::Cursor> cursor,
                        store_->Scan(StateStore::Keyspace::kRows));
  for (; cursor->Valid(); cursor->Next()) {
    std::string_view key = cursor->key();
    if (!rows_by_time_) {
      fingerprints_.Insert(fingerprints_.Fingerprint(key));
      continue;
    }
    if (key.size() <= kTimeBytes) {
      return Status::Corruption("deduplication state row of " + std::to_string(key.size()) +
                                " bytes in " + store_->dir());
    }
    fingerprints_.Insert(fingerprints_.Fingerprint(key.substr(kTimeBytes)),
                         DecodeOrderedTime(key.substr(0, kTimeBytes)));
  }
  return cursor->status();
}

std::string_view Deduplicate::operator_name() const {
  return options_.mode == DeduplicateMode::kWithinWatermark ? "dedupeWithinWatermark" : "dedupe";
}

Result<std::vector<int32_t>> Deduplicate::Process(const columnar::Batch& input,
                                                  int64_t late_events_watermark_ms) {
  auto start = std::chrono::steady_clock::now();
  if (input.columns.size() != schema_.fields.size()) {
    return Status::InvalidArgument("deduplication input has " +
                                   std::to_string(input.columns.size()) + " columns, expected " +
                                   std::to_string(schema_.fields.size()));
  }
  for (int c : options_.key_columns) {
    if (!input.columns[c].type()->Equals(*schema_.fields[c].type)) {
      return Status::InvalidArgument("deduplication key column " + schema_.fields[c].name +
                                     " has type " + input.columns[c].type()->ToDdl() +
                                     ", expected " + schema_.fields[c].type->ToDdl());
    }
  }
  const Column* event_time = nullptr;
  if (options_.event_time_column >= 0) {
    event_time = &input.columns[options_.event_time_column];
    if (!IsTimestamp(event_time->type())) {
      return Status::InvalidArgument("the watermark column must be a timestamp, got " +
                                     event_time->type()->ToDdl());
    }
  }
  const bool within = options_.mode == DeduplicateMode::kWithinWatermark;
  const int64_t late_micros = MillisToMicros(late_events_watermark_ms);
  const int64_t delay_micros = MillisToMicros(options_.delay_ms);
  const int64_t rows = input.num_rows();
  std::vector<int32_t> keep;
  keep.reserve(static_cast<size_t>(rows));
  // Rows go in blocks. First every row of a block is encoded and fingerprinted, and the table
  // slots it will touch (fingerprint set, pending updates) are prefetched; then the rows are
  // judged in order, by which time those slots are in the cache: the block's cache misses
  // overlap instead of following one another.
  // String key values are views into the source's buffers, often far apart: the next block's
  // are prefetched while this block is encoded.
  std::vector<const Column*> string_keys;
  for (int c : options_.key_columns) {
    const TypeId type = input.columns[c].type_id();
    if (type == TypeId::kString || type == TypeId::kBinary) string_keys.push_back(&input.columns[c]);
  }
  for (int64_t begin = 0; begin < rows; begin += kBlockRows) {
    const int64_t end = std::min(rows, begin + kBlockRows);
    block_.clear();
    block_keys_.clear();
    for (int64_t row = begin; row < end; ++row) {
      if (row + kBlockRows < rows) {
        for (const Column* column : string_keys) {
          if (!column->IsNull(row + kBlockRows)) {
            __builtin_prefetch(column->StringAt(row + kBlockRows).data());
          }
        }
      }
      const bool time_null = event_time == nullptr || event_time->IsNull(row);
      // A NULL reads as 0 where Spark takes the long out of the row (expiresAt); it is never late
      // (NULL <= watermark is not true).
      const int64_t time = time_null ? 0 : event_time->Value<int64_t>(row);
      if (!time_null && time <= late_micros) {
        ++rows_dropped_by_watermark_;
        continue;
      }
      BlockRow r;
      r.row = static_cast<int32_t>(row);
      if (within) {
        r.evict_at = SaturatingAdd(time, delay_micros);
        r.indexed = true;
      } else if (event_time_key_position_ >= 0 && !time_null) {
        r.evict_at = time;
        r.indexed = true;
      }
      if (r.indexed && r.evict_at <= std::max(evicted_through_micros_, evicting_through_micros_)) {
        // Below what was (or is being) evicted: the next eviction looks there too.
        straggler_min_micros_ =
            has_stragglers_ ? std::min(straggler_min_micros_, r.evict_at) : r.evict_at;
        straggler_max_micros_ =
            has_stragglers_ ? std::max(straggler_max_micros_, r.evict_at) : r.evict_at;
        has_stragglers_ = true;
        stragglers_evicted_ = false;
      }
      // time(evict_at) + key: the index entry's key, whose suffix is the row's key.
      r.begin = block_keys_.size();
      AppendOrderedTime(r.evict_at, &block_keys_);
      EncodeKey(input, row, options_.key_columns, &block_keys_);
      r.end = block_keys_.size();
      const std::string_view index_key(block_keys_.data() + r.begin, r.end - r.begin);
      const std::string_view key = index_key.substr(kTimeBytes);
      r.fingerprint = fingerprints_.Fingerprint(key);
      fingerprints_.Prefetch(r.fingerprint);
      // Index entries are only appended: only the row's slot is worth loading.
      store_->Prefetch(rows_by_time_ ? index_key : key, StateStore::Keyspace::kRows);
      block_.push_back(r);
    }
    for (const BlockRow& r : block_) {
      const std::string_view index_key(block_keys_.data() + r.begin, r.end - r.begin);
      const std::string_view key = index_key.substr(kTimeBytes);
      // Most keys are new: their fingerprint is absent and the store is not asked.
      WEIR_ASSIGN_OR_RETURN(bool present, Contains(r, index_key));
      if (present) {
        ++duplicates_dropped_;
        continue;
      }
      if (rows_by_time_) {
        WEIR_RETURN_NOT_OK(
            store_->Put(index_key, {}, StateStore::Keyspace::kRows, /*known_absent=*/true));
      } else {
        WEIR_RETURN_NOT_OK(
            store_->Put(key, {}, StateStore::Keyspace::kRows, /*known_absent=*/true));
        if (r.indexed) {
          WEIR_RETURN_NOT_OK(store_->Put(index_key, {}, StateStore::Keyspace::kIndex));
        }
      }
      fingerprints_.Insert(r.fingerprint, r.evict_at);
      ++rows_updated_;
      keep.push_back(r.row);
    }
  }
  updates_time_ns_ += NanosSince(start);
  return keep;
}

Result<bool> Deduplicate::Contains(const BlockRow& r, std::string_view index_key) {
  const std::string_view key = index_key.substr(kTimeBytes);
  if (!rows_by_time_) {
    if (!fingerprints_.MayContain(r.fingerprint)) return false;
    return store_->Contains(key);
  }
  // The row of an earlier occurrence is keyed by its own expiresAt, which the fingerprint's
  // value gives (one per occurrence of the fingerprint: the key's, and rarely another key's).
  Status error;
  bool present = fingerprints_.AnyValue(r.fingerprint, [&](int64_t expires_at) {
    std::string_view row_key = index_key;
    if (expires_at != r.evict_at) {
      probe_key_.clear();
      AppendOrderedTime(expires_at, &probe_key_);
      probe_key_.append(key);
      row_key = probe_key_;
    }
    Result<bool> found = store_->Contains(row_key);
    if (!found.ok()) {
      error = found.status();
      return true;
    }
    return *found;
  });
  WEIR_RETURN_NOT_OK(error);
  return present;
}

Status Deduplicate::EvictExpired(int64_t eviction_watermark_ms) {
  if (!index_by_time_ && !rows_by_time_) return Status::OK();
  auto start = std::chrono::steady_clock::now();
  const int64_t watermark_micros = MillisToMicros(eviction_watermark_ms);
  // Index entries are ordered by time: the expired ones (time <= watermark) are a prefix, of which
  // only the stragglers and the part above evicted_through_micros_ can still be there.
  if (has_stragglers_) {
    WEIR_RETURN_NOT_OK(EvictRange(straggler_min_micros_,
                                  std::min(straggler_max_micros_, watermark_micros)));
    stragglers_evicted_ = straggler_max_micros_ <= watermark_micros;
  }
  evicting_through_micros_ = std::max(evicted_through_micros_, watermark_micros);
  if (watermark_micros > evicted_through_micros_) {
    const int64_t from = evicted_through_micros_ == std::numeric_limits<int64_t>::min()
                             ? evicted_through_micros_
                             : evicted_through_micros_ + 1;
    WEIR_RETURN_NOT_OK(EvictRange(from, watermark_micros));
  }
  removals_time_ns_ += NanosSince(start);
  return Status::OK();
}

Status Deduplicate::EvictRange(int64_t from_micros, int64_t through_micros) {
  if (from_micros > through_micros) return Status::OK();
  std::string lower, upper;
  if (from_micros > std::numeric_limits<int64_t>::min()) AppendOrderedTime(from_micros, &lower);
  std::optional<std::string_view> bound;
  if (through_micros < std::numeric_limits<int64_t>::max()) {
    AppendOrderedTime(through_micros + 1, &upper);
    bound = upper;
  }
  // Rows keyed by time are their own eviction order; otherwise the index is.
  const StateStore::Keyspace keyspace =
      rows_by_time_ ? StateStore::Keyspace::kRows : StateStore::Keyspace::kIndex;
  WEIR_ASSIGN_OR_RETURN(std::unique_ptr<StateStore::Cursor> cursor,
                        store_->Scan(keyspace, lower, bound));
  for (; cursor->Valid(); cursor->Next()) {
    std::string_view time_key = cursor->key();
    if (time_key.size() < kTimeBytes) {
      return Status::Corruption("deduplication state entry shorter than 8 bytes in " +
                                store_->dir());
    }
    const std::string_view key = time_key.substr(kTimeBytes);
    // Leaves the filter only once the removal is committed (an aborted batch keeps the row).
    evicted_fingerprints_.push_back(
        {fingerprints_.Fingerprint(key), DecodeOrderedTime(time_key.substr(0, kTimeBytes))});
    if (rows_by_time_) {
      WEIR_RETURN_NOT_OK(
          store_->Remove(time_key, StateStore::Keyspace::kRows, /*known_present=*/true));
    } else {
      // Index and rows change together, so the index entry proves the row is there.
      WEIR_RETURN_NOT_OK(
          store_->Remove(key, StateStore::Keyspace::kRows, /*known_present=*/true));
      WEIR_RETURN_NOT_OK(store_->Remove(time_key, StateStore::Keyspace::kIndex));
    }
    ++rows_removed_;
  }
  return cursor->status();
}

Status Deduplicate::Commit(int64_t batch_id) {
  StateStoreMetrics before = store_->metrics();
  WEIR_RETURN_NOT_OK(store_->Commit(batch_id));
  for (const auto& [fingerprint, evict_at] : evicted_fingerprints_) {
    fingerprints_.EraseOne(fingerprint, evict_at);
  }
  evicted_fingerprints_.clear();
  evicted_through_micros_ = std::max(evicted_through_micros_, evicting_through_micros_);
  if (stragglers_evicted_) has_stragglers_ = false;
  StateStoreMetrics after = store_->metrics();
  StateOperatorProgress p;
  p.operator_name = std::string(operator_name());
  p.num_rows_total = after.num_rows_total;
  p.num_rows_updated = rows_updated_;
  p.num_rows_removed = rows_removed_;
  p.all_updates_time_ms = updates_time_ns_ / 1000000;
  p.all_removals_time_ms = removals_time_ns_ / 1000000;
  p.commit_time_ms = after.commit_time_ms;
  p.memory_used_bytes = after.memory_used_bytes + fingerprints_.memory_bytes();
  p.num_rows_dropped_by_watermark = rows_dropped_by_watermark_;
  p.custom_metrics["numDroppedDuplicateRows"] = duplicates_dropped_;
  p.custom_metrics["rocksdbCommitFlushLatency"] = after.commit_flush_ms;
  p.custom_metrics["rocksdbCommitCheckpointLatency"] = after.commit_checkpoint_ms;
  p.custom_metrics["rocksdbCommitFileSyncLatencyMs"] = after.commit_file_sync_ms;
  p.custom_metrics["rocksdbSstFileSize"] = after.sst_file_bytes;
  p.custom_metrics["rocksdbGetCount"] = before.get_count;
  p.custom_metrics["rocksdbPutCount"] = before.put_count;
  progress_ = std::move(p);
  ResetBatchMetrics();
  return Status::OK();
}

Status Deduplicate::Abort() {
  ResetBatchMetrics();
  WEIR_RETURN_NOT_OK(store_->Abort());
  WEIR_RETURN_NOT_OK(UpgradeState());  // the store is back at a version of the earlier layout
  // The batch's inserts left fingerprints behind: start again from the store's keys.
  return LoadFingerprints();
}

void Deduplicate::ResetBatchMetrics() {
  rows_updated_ = 0;
  rows_removed_ = 0;
  rows_dropped_by_watermark_ = 0;
  duplicates_dropped_ = 0;
  updates_time_ns_ = 0;
  removals_time_ns_ = 0;
  evicting_through_micros_ = std::numeric_limits<int64_t>::min();
  stragglers_evicted_ = false;
}

}  // namespace weir::stream
