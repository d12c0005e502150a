// `weir validate PATH --partition-column C --offset-column C`: seed 000 step 8's gap and duplicate
// check. Per partition: rows, min and max offset, expected = max - min + 1; duplicate offsets and
// missing ranges listed. Exit 0 when every partition is contiguous and duplicate-free, 1 otherwise.
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

#include "cli/command.h"
#include "cli/flags.h"
#include "cli/row_filter.h"
#include "columnar/json_lines.h"
#include "delta/scan.h"
#include "delta/table.h"
#include "fs/local_file_system.h"

namespace weir::cli {
namespace {

// The value of an integer-like column (int8..int64, or a decimal/string holding an integer) as int64.
bool IntegerAt(const columnar::Column& c, int64_t row, int64_t* out) {
  if (c.IsNull(row)) return false;
  switch (c.type_id()) {
    case columnar::TypeId::kInt8: *out = c.Value<int8_t>(row); return true;
    case columnar::TypeId::kInt16: *out = c.Value<int16_t>(row); return true;
    case columnar::TypeId::kInt32: *out = c.Value<int32_t>(row); return true;
    case columnar::TypeId::kInt64: *out = c.Value<int64_t>(row); return true;
    case columnar::TypeId::kString: {
      std::string_view s = c.StringAt(row);
      if (s.empty() || s.size() > 19) return false;
      int64_t v = 0;
      for (char ch : s) {
        if (ch < '0' || ch > '9') return false;
        v = v * 10 + (ch - '0');
      }
      *out = v;
      return true;
    }
    default: return false;
  }
}

int ValidateMain(const Flags& flags) {
  auto* fs = fs::LocalFileSystem::Default();
  auto table = delta::Table::Open(fs, flags.positional()[0]);
  if (!table.ok()) return Fail(table.status());
  std::string partition_column = flags.Get("partition-column");
  std::string offset_column = flags.Get("offset-column");
  delta::ScanOptions options;
  if (!flags.Has("where")) options.columns = {partition_column, offset_column};
  auto scan = delta::TableScan::Make((*table)->snapshot(), options);
  if (!scan.ok()) return Fail(scan.status());
  std::optional<RowFilter> filter;
  if (flags.Has("where")) {
    auto made = RowFilter::Make(flags.Get("where"), (*scan)->schema());
    if (!made.ok()) return Fail(made.status());
    filter = std::move(*made);
  }
  std::map<std::string, std::vector<int64_t>> offsets;  // partition (text) -> offsets
  int64_t null_offsets = 0;
  while (true) {
    auto batch = (*scan)->Next();
    if (!batch.ok()) return Fail(batch.status());
    if (!batch->has_value()) break;
    columnar::Batch rows = std::move(**batch);
    if (filter) {
      auto kept = filter->Apply(rows);
      if (!kept.ok()) return Fail(kept.status());
      auto selected = SelectColumns(*kept, {partition_column, offset_column});
      if (!selected.ok()) return Fail(selected.status());
      rows = std::move(*selected);
    }
    const columnar::Batch& b = rows;
    for (int64_t r = 0; r < b.num_rows(); ++r) {
      std::string partition;
      columnar::AppendTextValue(b.columns[0], r, &partition);
      int64_t offset;
      if (!IntegerAt(b.columns[1], r, &offset)) {
        ++null_offsets;
        continue;
      }
      offsets[partition].push_back(offset);
    }
  }
  int64_t limit = 20;
  bool problems = null_offsets > 0;
  std::printf("%-12s %12s %12s %12s %12s %10s %10s\n", "partition", "rows", "min", "max", "expected",
              "duplicates", "missing");
  for (auto& [partition, values] : offsets) {
    std::sort(values.begin(), values.end());
    int64_t duplicates = 0, missing = 0;
    std::vector<std::string> details;
    for (size_t i = 1; i < values.size(); ++i) {
      if (values[i] == values[i - 1]) {
        ++duplicates;
        if (static_cast<int64_t>(details.size()) < limit) {
          details.push_back("duplicate offset " + std::to_string(values[i]));
        }
      } else if (values[i] > values[i - 1] + 1) {
        missing += values[i] - values[i - 1] - 1;
        if (static_cast<int64_t>(details.size()) < limit) {
          details.push_back("missing offsets [" + std::to_string(values[i - 1] + 1) + ", " +
                            std::to_string(values[i]) + ")");
        }
      }
    }
    int64_t expected = values.back() - values.front() + 1;
    std::printf("%-12s %12zu %12lld %12lld %12lld %10lld %10lld\n", partition.c_str(), values.size(),
                static_cast<long long>(values.front()), static_cast<long long>(values.back()),
                static_cast<long long>(expected), static_cast<long long>(duplicates),
                static_cast<long long>(missing));
    for (const auto& d : details) std::printf("  partition %s: %s\n", partition.c_str(), d.c_str());
    if (duplicates > 0 || missing > 0) problems = true;
  }
  if (null_offsets > 0) std::printf("%lld rows have no integer offset\n", static_cast<long long>(null_offsets));
  std::printf(problems ? "FOUND gaps or duplicates\n" : "OK: every partition is contiguous, no duplicates\n");
  return problems ? 1 : 0;
}

int RunValidate(const std::vector<std::string>& args) {
  Flags flags("weir validate PATH --partition-column C --offset-column C",
              "Checks a Delta table for gaps and duplicates per source partition (the migration\n"
              "runbook's step 8): for each partition, rows versus max(offset) - min(offset) + 1.\n"
              "Lists duplicate offsets and missing ranges. Exits 0 when clean, 1 when it finds any.");
  flags.Positional("PATH", 1, 1);
  flags.Value("partition-column", "C", "the column holding the source partition", "eh_partition");
  flags.Value("offset-column", "C", "the column holding the offset (or sequence number)", "eh_offset");
  flags.Value("where", "EXPR",
              "only rows where this SQL condition is true, e.g. the runbook's time window\n"
              "                            \"enqueued_time BETWEEN '2026-11-13T08:00:00' AND '2026-11-13T10:00:00'\"");
  return RunWithFlags(flags, args, ValidateMain);
}

WEIR_REGISTER_COMMAND(validate_cmd, "validate", "check a table for gaps and duplicates per partition",
                      RunValidate);

}  // namespace
}  // namespace weir::cli
