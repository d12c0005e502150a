#include "delta/table_config.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace weir::delta {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  s = Trim(s);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<bool> ParseBool(std::string_view s) {
  std::string l = Lower(Trim(s));
  if (l == "true") return true;
  if (l == "false") return false;
  return std::nullopt;
}

Status BadValue(std::string_view key, std::string_view value, std::string_view expected) {
  return Status::InvalidArgument("table property " + std::string(key) + " = '" +
                                 std::string(value) + "' is invalid: expected " +
                                 std::string(expected));
}

}  // namespace

const std::vector<std::string_view>& KnownTableProperties() {
  static const std::vector<std::string_view> kKnown = {
      "delta.appendOnly",
      "delta.autoOptimize.autoCompact",
      "delta.autoOptimize.optimizeWrite",
      "delta.checkpoint.writeStatsAsJson",
      "delta.checkpoint.writeStatsAsStruct",
      "delta.checkpointInterval",
      "delta.dataSkippingNumIndexedCols",
      "delta.deletedFileRetentionDuration",
      "delta.enableExpiredLogCleanup",
      "delta.logRetentionDuration",
      "delta.parquet.compression.codec",
      "delta.setTransactionRetentionDuration",
      "delta.targetFileSize",
  };
  return kKnown;
}

Result<int64_t> ParseIntervalMs(std::string_view text) {
  std::string s = Lower(Trim(text));
  std::string_view rest = s;
  if (rest.substr(0, 8) == "interval") rest.remove_prefix(8);
  int64_t total = 0;
  bool any = false;
  auto fail = [&] {
    std::string message = "not an interval such as 'interval 30 days' (units: week, day, hour, "
                          "minute, second, millisecond, microsecond): ";
    message.append(text);
    return Status::InvalidArgument(std::move(message));
  };
  while (true) {
    rest = Trim(rest);
    if (rest.empty()) break;
    size_t digits = 0;
    while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
    if (digits == 0) return fail();
    auto n = ParseInt(rest.substr(0, digits));
    if (!n) return fail();
    rest = Trim(rest.substr(digits));
    size_t letters = 0;
    while (letters < rest.size() && std::isalpha(static_cast<unsigned char>(rest[letters]))) ++letters;
    std::string unit(rest.substr(0, letters));
    rest = rest.substr(letters);
    if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
    int64_t micros_per_unit;
    if (unit == "week") {
      micros_per_unit = 7 * kMillisPerDay * 1000;
    } else if (unit == "day") {
      micros_per_unit = kMillisPerDay * 1000;
    } else if (unit == "hour") {
      micros_per_unit = 3600LL * 1000000;
    } else if (unit == "minute") {
      micros_per_unit = 60LL * 1000000;
    } else if (unit == "second") {
      micros_per_unit = 1000000;
    } else if (unit == "millisecond") {
      micros_per_unit = 1000;
    } else if (unit == "microsecond") {
      micros_per_unit = 1;
    } else {
      return fail();
    }
    if (*n > INT64_MAX / micros_per_unit) return fail();
    total += *n * micros_per_unit / 1000;
    any = true;
  }
  if (!any) return fail();
  return total;
}

Result<int64_t> ParseByteSize(std::string_view text) {
  std::string s = Lower(Trim(text));
  size_t digits = 0;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
  auto n = ParseInt(std::string_view(s).substr(0, digits));
  std::string unit(Trim(std::string_view(s).substr(digits)));
  int64_t multiplier = 0;
  if (unit.empty() || unit == "b") multiplier = 1;
  if (unit == "k" || unit == "kb" || unit == "kib") multiplier = 1LL << 10;
  if (unit == "m" || unit == "mb" || unit == "mib") multiplier = 1LL << 20;
  if (unit == "g" || unit == "gb" || unit == "gib") multiplier = 1LL << 30;
  if (!n || multiplier == 0 || *n <= 0 || *n > INT64_MAX / multiplier) {
    std::string message = "not a positive size such as 134217728 or 128mb: ";
    message.append(text);
    return Status::InvalidArgument(std::move(message));
  }
  return *n * multiplier;
}

Result<TableConfig> ParseTableConfig(const StringMap& configuration, bool strict) {
  TableConfig c;
  for (const auto& [key, value] : configuration) {
    if (key.rfind("delta.", 0) != 0) continue;
    if (key == "delta.appendOnly") {
      auto b = ParseBool(value);
      if (!b) return BadValue(key, value, "true or false");
      c.append_only = *b;
    } else if (key == "delta.checkpointInterval") {
      auto n = ParseInt(value);
      if (!n || *n <= 0) return BadValue(key, value, "a positive number of commits");
      c.checkpoint_interval = *n;
    } else if (key == "delta.logRetentionDuration") {
      auto ms = ParseIntervalMs(value);
      if (!ms.ok()) return BadValue(key, value, "an interval such as 'interval 30 days'");
      c.log_retention_ms = *ms;
    } else if (key == "delta.deletedFileRetentionDuration") {
      auto ms = ParseIntervalMs(value);
      if (!ms.ok()) return BadValue(key, value, "an interval such as 'interval 7 days'");
      c.deleted_file_retention_ms = *ms;
    } else if (key == "delta.setTransactionRetentionDuration") {
      auto ms = ParseIntervalMs(value);
      if (!ms.ok()) return BadValue(key, value, "an interval such as 'interval 30 days'");
      c.set_transaction_retention_ms = *ms;
    } else if (key == "delta.enableExpiredLogCleanup") {
      auto b = ParseBool(value);
      if (!b) return BadValue(key, value, "true or false");
      c.enable_expired_log_cleanup = *b;
    } else if (key == "delta.parquet.compression.codec") {
      auto codec = compress::CodecFromName(Trim(value));
      if (!codec.ok() || *codec == compress::Codec::kBrotli) {
        return BadValue(key, value, "one of uncompressed, snappy, gzip, lz4, lz4_raw, zstd");
      }
      c.codec = *codec;
    } else if (key == "delta.targetFileSize") {
      auto size = ParseByteSize(value);
      if (!size.ok()) return BadValue(key, value, "a size in bytes such as 134217728 or 128mb");
      c.target_file_size = *size;
    } else if (key == "delta.dataSkippingNumIndexedCols") {
      auto n = ParseInt(value);
      if (!n || *n < -1 || *n > INT32_MAX) return BadValue(key, value, "-1 or a number of columns");
      c.num_indexed_cols = static_cast<int32_t>(*n);
    } else if (key == "delta.autoOptimize.autoCompact") {
      // Read by delta::MaybeAutoCompact after each streaming commit (optimize.h).
      std::string v = Lower(Trim(value));
      if (v != "true" && v != "false" && v != "auto" && v != "legacy") {
        return BadValue(key, value, "true, false, auto or legacy");
      }
    } else if (key == "delta.autoOptimize.optimizeWrite") {
      // A streaming batch is already written as one file per partition it touches.
      if (!ParseBool(value)) return BadValue(key, value, "true or false");
    } else if (key == "delta.checkpoint.writeStatsAsJson") {
      auto b = ParseBool(value);
      if (!b) return BadValue(key, value, "true or false");
      c.checkpoint_write_stats_as_json = *b;
    } else if (key == "delta.checkpoint.writeStatsAsStruct") {
      auto b = ParseBool(value);
      if (!b) return BadValue(key, value, "true or false");
      if (*b && strict) {
        return Status::InvalidArgument(
            "table property delta.checkpoint.writeStatsAsStruct=true is not supported: weir "
            "writes checkpoint statistics as JSON only; leave it unset or false");
      }
      c.checkpoint_write_stats_as_struct = *b;
    } else if (strict) {
      std::string known;
      for (std::string_view k : KnownTableProperties()) known += (known.empty() ? "" : ", ") + std::string(k);
      return Status::InvalidArgument("unknown Delta table property '" + key +
                                     "'; weir honours: " + known +
                                     " (keys outside the delta. namespace are kept as they are)");
    }
  }
  return c;
}

}  // namespace weir::delta
