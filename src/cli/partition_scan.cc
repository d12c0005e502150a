#include "cli/partition_scan.h"

#include "cli/row_filter.h"
#include "columnar/json_lines.h"
#include "delta/scan.h"

namespace weir::cli {

namespace {

constexpr const char* kPartitionNames[] = {"eh_partition", "partition"};
constexpr const char* kOffsetNames[] = {"sequenceNumber", "eh_offset", "offset"};
constexpr const char* kTimeNames[] = {"enqueuedTime", "enqueued_time", "timestamp"};

template <size_t N>
std::string FirstPresent(const columnar::Schema& schema, const char* const (&names)[N]) {
  for (const char* name : names) {
    int i = schema.FieldIndex(name);
    if (i >= 0) return schema.fields[i].name;
  }
  return "";
}

Status Resolve(const columnar::Schema& schema, const char* what, const char* flag,
               std::string detected, std::string* name) {
  if (name->empty()) {
    if (detected.empty()) {
      return Status::InvalidArgument(std::string("no ") + what +
                                     " column found among the common names; name it with " + flag +
                                     " (the table has " + schema.ToDdl() + ")");
    }
    *name = std::move(detected);
    return Status::OK();
  }
  int i = schema.FieldIndex(*name);
  if (i < 0) {
    return Status::InvalidArgument(std::string("the ") + what + " column '" + *name +
                                   "' is not in the table; it has " + schema.ToDdl());
  }
  *name = schema.fields[i].name;
  return Status::OK();
}

// The value of an integer-like column (int8..int64, or a string holding a non-negative integer).
bool IntegerAt(const columnar::Column& c, int64_t row, int64_t* out) {
  if (c.IsNull(row)) return false;
  switch (c.type_id()) {
    case columnar::TypeId::kInt8:
      *out = c.Value<int8_t>(row);
      return true;
    case columnar::TypeId::kInt16:
      *out = c.Value<int16_t>(row);
      return true;
    case columnar::TypeId::kInt32:
      *out = c.Value<int32_t>(row);
      return true;
    case columnar::TypeId::kInt64:
      *out = c.Value<int64_t>(row);
      return true;
    case columnar::TypeId::kString: {
      std::string_view s = c.StringAt(row);
      if (s.empty() || s.size() > 18) return false;
      int64_t v = 0;
      for (char ch : s) {
        if (ch < '0' || ch > '9') return false;
        v = v * 10 + (ch - '0');
      }
      *out = v;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

Result<PositionColumns> ResolvePositionColumns(const columnar::Schema& schema,
                                               PositionColumns given, bool need_time) {
  WEIR_RETURN_NOT_OK(Resolve(schema, "partition", "--partition-column",
                             FirstPresent(schema, kPartitionNames), &given.partition));
  WEIR_RETURN_NOT_OK(Resolve(schema, "offset (or sequence number)", "--offset-column",
                             FirstPresent(schema, kOffsetNames), &given.offset));
  std::string time = FirstPresent(schema, kTimeNames);
  if (!given.time.empty() || need_time) {
    WEIR_RETURN_NOT_OK(Resolve(schema, "enqueued time", "--time-column", time, &given.time));
  } else {
    given.time = time;
  }
  if (!given.time.empty()) {
    auto id = schema.fields[schema.FieldIndex(given.time)].type->id();
    if (id != columnar::TypeId::kTimestamp && id != columnar::TypeId::kTimestampNtz) {
      if (need_time) {
        return Status::InvalidArgument("the time column '" + given.time +
                                       "' is not a TIMESTAMP; name one with --time-column");
      }
      given.time.clear();
    }
  }
  return given;
}

Result<PositionScanStats> ScanPositions(std::shared_ptr<const delta::Snapshot> snapshot,
                                        const PositionColumns& columns, const std::string& where,
                                        const std::function<void(const Position&)>& on_row) {
  std::vector<std::string> wanted = {columns.partition, columns.offset};
  if (!columns.time.empty()) wanted.push_back(columns.time);
  delta::ScanOptions options;
  if (where.empty()) options.columns = wanted;
  WEIR_ASSIGN_OR_RETURN(auto scan, delta::TableScan::Make(std::move(snapshot), options));
  std::optional<RowFilter> filter;
  if (!where.empty()) {
    WEIR_ASSIGN_OR_RETURN(RowFilter made, RowFilter::Make(where, scan->schema()));
    filter.emplace(std::move(made));
  }
  PositionScanStats stats;
  std::string partition;
  while (true) {
    WEIR_ASSIGN_OR_RETURN(std::optional<columnar::Batch> batch, scan->Next());
    if (!batch) break;
    columnar::Batch rows = std::move(*batch);
    if (filter) {
      WEIR_ASSIGN_OR_RETURN(columnar::Batch kept, filter->Apply(rows));
      WEIR_ASSIGN_OR_RETURN(rows, SelectColumns(kept, wanted));
    }
    const bool has_time = rows.columns.size() > 2;
    for (int64_t r = 0; r < rows.num_rows(); ++r) {
      ++stats.rows;
      Position p;
      if (!IntegerAt(rows.columns[1], r, &p.offset)) {
        ++stats.rows_without_offset;
        continue;
      }
      partition.clear();
      columnar::AppendTextValue(rows.columns[0], r, &partition);
      p.partition = partition;
      if (has_time && !rows.columns[2].IsNull(r)) p.time_micros = rows.columns[2].Value<int64_t>(r);
      on_row(p);
    }
  }
  return stats;
}

}  // namespace weir::cli
