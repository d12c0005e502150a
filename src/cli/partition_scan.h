// Reads the source position columns of an ingested table (the old Event Hubs connector's
// partition / sequenceNumber / enqueuedTime, the Kafka source's partition / offset / timestamp, or
// weir's bronze eh_partition / eh_offset / enqueued_time), for `weir cutover` and `weir validate`.
// Columns the user names win; the common names are detected otherwise. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "base/result.h"
#include "columnar/types.h"
#include "delta/snapshot.h"

namespace weir::cli {

struct PositionColumns {
  std::string partition;  // any type, compared as text
  std::string offset;     // an integer, or a string holding one (the connector's offset)
  std::string time;       // TIMESTAMP / TIMESTAMP_NTZ; empty when the table has none
};

// Fills the empty names of `given` from `schema`: partition = eh_partition | partition; offset =
// sequenceNumber | eh_offset | offset; time = enqueuedTime | enqueued_time | timestamp (first
// present, case-insensitive). InvalidArgument naming the table's columns when a name is missing
// or absent from the schema, or (with `need_time`) when no time column is found.
Result<PositionColumns> ResolvePositionColumns(const columnar::Schema& schema,
                                               PositionColumns given, bool need_time);

// One row's position; `time_micros` is nullopt without a time column or for a null time.
struct Position {
  std::string_view partition;
  int64_t offset = 0;
  std::optional<int64_t> time_micros;
};

struct PositionScanStats {
  int64_t rows = 0;                 // rows that passed `where`
  int64_t rows_without_offset = 0;  // null or non-integer offsets (not passed to the callback)
};

// Calls `on_row` for every row of `snapshot` whose offset is an integer and for which `where`
// (SQL, may be empty) is true. Errors name the data file or the --where problem.
Result<PositionScanStats> ScanPositions(std::shared_ptr<const delta::Snapshot> snapshot,
                                        const PositionColumns& columns, const std::string& where,
                                        const std::function<void(const Position&)>& on_row);

}  // namespace weir::cli
