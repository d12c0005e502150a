// Table properties (metaData.configuration) that weir honours, parsed into typed settings.
// Creating a table or setting properties is strict: a `delta.*` key weir does not know is
// InvalidArgument listing the known ones, because silently ignoring a Delta property would
// mislead. Keys outside the `delta.` namespace pass through untouched. Tables written by other
// engines are parsed leniently (unknown delta.* keys are ignored). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "compress/compress.h"
#include "delta/actions.h"

namespace weir::delta {

inline constexpr int64_t kMillisPerDay = 24LL * 3600 * 1000;

struct TableConfig {
  bool append_only = false;                         // delta.appendOnly
  int64_t checkpoint_interval = 10;                 // delta.checkpointInterval (commits)
  int64_t log_retention_ms = 30 * kMillisPerDay;    // delta.logRetentionDuration
  int64_t deleted_file_retention_ms = 7 * kMillisPerDay;  // delta.deletedFileRetentionDuration
  std::optional<int64_t> set_transaction_retention_ms;    // delta.setTransactionRetentionDuration
  bool enable_expired_log_cleanup = true;           // delta.enableExpiredLogCleanup
  compress::Codec codec = compress::Codec::kZstd;   // delta.parquet.compression.codec
  int64_t target_file_size = 128LL << 20;           // delta.targetFileSize (bytes)
  int32_t num_indexed_cols = 32;                    // delta.dataSkippingNumIndexedCols (-1: all)
  bool checkpoint_write_stats_as_json = true;       // delta.checkpoint.writeStatsAsJson
  bool checkpoint_write_stats_as_struct = false;    // delta.checkpoint.writeStatsAsStruct
};

// The delta.* keys ParseTableConfig understands, sorted.
const std::vector<std::string_view>& KnownTableProperties();

// strict: reject unknown delta.* keys and settings weir cannot honour (e.g. writeStatsAsStruct).
// Values that do not parse are InvalidArgument naming the key in both modes.
Result<TableConfig> ParseTableConfig(const StringMap& configuration, bool strict);

// "interval 30 days", "7 days", "1 hour", "interval 1 day 12 hours" -> milliseconds. Units: week,
// day, hour, minute, second, millisecond, microsecond (singular or plural). InvalidArgument else.
Result<int64_t> ParseIntervalMs(std::string_view text);
// "134217728", "128mb", "1 GB" -> bytes (binary multiples). InvalidArgument else.
Result<int64_t> ParseByteSize(std::string_view text);

}  // namespace weir::delta
