// `weir validate PATH`: the migration runbook's validation step (docs/migration.md). Per source
// partition: rows, min and max offset, expected = max - min + 1, duplicate offsets and missing
// ranges, optionally within a time window (--where on the enqueued-time column). --report lists
// every gap and duplicate range; --format json prints the same as one JSON object. Exit 0 when
// every partition is contiguous and duplicate-free, 1 when not (or when no row matched), 2 on
// errors.
#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command.h"
#include "cli/file_systems.h"
#include "cli/flags.h"
#include "cli/partition_scan.h"
#include "delta/table.h"

namespace weir::cli {
namespace {

// A run of consecutive offsets that are missing ([from, to) exclusive, as Spark's offset ranges)
// or present more than once ([from, to] inclusive, `extra_rows` rows beyond one per offset).
struct OffsetRange {
  int64_t from = 0;
  int64_t to = 0;
  int64_t extra_rows = 0;
};

struct PartitionReport {
  std::string partition;
  int64_t rows = 0;
  int64_t min = 0;
  int64_t max = 0;
  int64_t duplicates = 0;  // rows beyond the first of their offset
  int64_t missing = 0;     // offsets in [min, max] with no row
  std::vector<OffsetRange> gaps;
  std::vector<OffsetRange> duplicate_ranges;
  int64_t expected() const { return max - min + 1; }
  bool ok() const { return duplicates == 0 && missing == 0; }
};

// REQUIRES: `offsets` is not empty. Sorts it.
PartitionReport Analyze(std::string partition, std::vector<int64_t>& offsets) {
  std::sort(offsets.begin(), offsets.end());
  PartitionReport report;
  report.partition = std::move(partition);
  report.rows = static_cast<int64_t>(offsets.size());
  report.min = offsets.front();
  report.max = offsets.back();
  for (size_t i = 1; i < offsets.size(); ++i) {
    const int64_t previous = offsets[i - 1], current = offsets[i];
    if (current == previous) {
      ++report.duplicates;
      auto& ranges = report.duplicate_ranges;
      if (!ranges.empty() && ranges.back().to >= current - 1) {
        ranges.back().to = current;
        ++ranges.back().extra_rows;
      } else {
        ranges.push_back({current, current, 1});
      }
    } else if (current > previous + 1) {
      report.missing += current - previous - 1;
      report.gaps.push_back({previous + 1, current, 0});
    }
  }
  return report;
}

std::string RangeText(const OffsetRange& r, bool duplicate) {
  if (duplicate) {
    return "duplicate offsets [" + std::to_string(r.from) + ", " + std::to_string(r.to) +
           "]: " + std::to_string(r.extra_rows) + " extra row" + (r.extra_rows == 1 ? "" : "s");
  }
  return "missing offsets [" + std::to_string(r.from) + ", " + std::to_string(r.to) +
         "): " + std::to_string(r.to - r.from) + " offset" + (r.to - r.from == 1 ? "" : "s");
}

nlohmann::json ToJson(const std::string& table, const PositionColumns& columns,
                      const std::string& where, const PositionScanStats& stats,
                      const std::vector<PartitionReport>& reports, bool ok) {
  nlohmann::json partitions = nlohmann::json::array();
  for (const auto& p : reports) {
    nlohmann::json gaps = nlohmann::json::array(), dups = nlohmann::json::array();
    for (const auto& g : p.gaps)
      gaps.push_back({{"from", g.from}, {"to_exclusive", g.to}, {"count", g.to - g.from}});
    for (const auto& d : p.duplicate_ranges) {
      dups.push_back({{"from", d.from}, {"to", d.to}, {"extra_rows", d.extra_rows}});
    }
    partitions.push_back({{"partition", p.partition},
                          {"rows", p.rows},
                          {"min", p.min},
                          {"max", p.max},
                          {"expected", p.expected()},
                          {"duplicates", p.duplicates},
                          {"missing", p.missing},
                          {"gaps", gaps},
                          {"duplicate_ranges", dups}});
  }
  return {{"table", table},
          {"partition_column", columns.partition},
          {"offset_column", columns.offset},
          {"where", where.empty() ? nlohmann::json() : nlohmann::json(where)},
          {"rows", stats.rows},
          {"rows_without_offset", stats.rows_without_offset},
          {"ok", ok},
          {"partitions", partitions}};
}

int ValidateMain(const Flags& flags) {
  const std::string path = flags.positional()[0];
  const std::string format = flags.Get("format");
  if (format != "text" && format != "json") {
    return Fail(Status::InvalidArgument("--format must be text or json, got '" + format + "'"));
  }
  const bool report_mode = flags.GetBool("report") || format == "json";
  auto fs = FileSystemFor(flags, path);
  if (!fs.ok()) return Fail(fs.status());
  auto table = delta::Table::Open(*fs, path);
  if (!table.ok()) return Fail(table.status());
  auto snapshot = (*table)->snapshot();
  auto columns = ResolvePositionColumns(
      snapshot->schema(), {flags.Get("partition-column"), flags.Get("offset-column"), ""},
      /*need_time=*/false);
  if (!columns.ok()) return Fail(columns.status().WithContext(path));
  std::map<std::string, std::vector<int64_t>> offsets;  // partition (text) -> offsets
  auto stats = ScanPositions(snapshot, *columns, flags.Get("where"), [&](const Position& p) {
    offsets[std::string(p.partition)].push_back(p.offset);
  });
  if (!stats.ok()) return Fail(stats.status().WithContext(path));

  std::vector<PartitionReport> reports;
  bool ok = stats->rows_without_offset == 0 && stats->rows > 0;
  for (auto& [partition, values] : offsets) {
    reports.push_back(Analyze(partition, values));
    if (!reports.back().ok()) ok = false;
  }
  if (format == "json") {
    std::printf("%s\n",
                ToJson(path, *columns, flags.Get("where"), *stats, reports, ok).dump(1).c_str());
    return ok ? 0 : 1;
  }
  const size_t kDetailLimit = 20;
  std::printf("%-12s %12s %12s %12s %12s %10s %10s\n", "partition", "rows", "min", "max",
              "expected", "duplicates", "missing");
  for (const auto& p : reports) {
    std::printf("%-12s %12lld %12lld %12lld %12lld %10lld %10lld\n", p.partition.c_str(),
                static_cast<long long>(p.rows), static_cast<long long>(p.min),
                static_cast<long long>(p.max), static_cast<long long>(p.expected()),
                static_cast<long long>(p.duplicates), static_cast<long long>(p.missing));
  }
  for (const auto& p : reports) {
    size_t shown = 0;
    for (const auto& g : p.gaps) {
      if (!report_mode && shown++ >= kDetailLimit) break;
      std::printf("  partition %s: %s\n", p.partition.c_str(), RangeText(g, false).c_str());
    }
    for (const auto& d : p.duplicate_ranges) {
      if (!report_mode && shown++ >= kDetailLimit) break;
      std::printf("  partition %s: %s\n", p.partition.c_str(), RangeText(d, true).c_str());
    }
    if (!report_mode && shown > kDetailLimit) {
      std::printf("  partition %s: ... (--report lists every range)\n", p.partition.c_str());
    }
  }
  if (stats->rows_without_offset > 0) {
    std::printf("%lld rows have no integer offset in %s\n",
                static_cast<long long>(stats->rows_without_offset), columns->offset.c_str());
  }
  if (stats->rows == 0) {
    std::printf("NO ROWS%s: nothing was validated\n",
                flags.Has("where") ? " matched --where" : " in the table");
  } else {
    std::printf(ok ? "OK: every partition is contiguous, no duplicates\n"
                   : "FOUND gaps or duplicates\n");
  }
  return ok ? 0 : 1;
}

int RunValidate(const std::vector<std::string>& args) {
  Flags flags(
      "weir validate PATH [--partition-column C] [--offset-column C] [--where EXPR]\n"
      "                     [--report] [--format text|json]",
      "Checks a Delta table for gaps and duplicates per source partition (the migration\n"
      "runbook's step 8, docs/migration.md): for each partition, rows versus\n"
      "max(offset) - min(offset) + 1, with the duplicate offsets and missing ranges.\n"
      "The columns are detected when not named: partition = eh_partition | partition,\n"
      "offset = sequenceNumber | eh_offset | offset (an integer or a string holding one).\n"
      "Restrict the check to the cutover window with --where on the enqueued-time column:\n"
      "  --where \"enqueued_time BETWEEN '2026-11-13T08:00:00' AND '2026-11-13T10:00:00'\"\n"
      "(timestamps without a zone are UTC). --report lists every gap ([from, to) offsets) and\n"
      "every run of duplicated offsets ([from, to] and the extra rows); --format json prints\n"
      "the same as one JSON object: {table, rows, ok, partitions: [{partition, rows, min, max,\n"
      "expected, duplicates, missing, gaps: [{from, to_exclusive, count}], duplicate_ranges:\n"
      "[{from, to, extra_rows}]}]}. Exits 0 when clean, 1 when it finds gaps, duplicates,\n"
      "rows without an offset or no rows at all, 2 on errors.");
  flags.Positional("PATH", 1, 1);
  flags.Value("partition-column", "C",
              "the column holding the source partition (default: detected)");
  flags.Value("offset-column", "C",
              "the column holding the offset or sequence number (default: detected)");
  flags.Value("where", "EXPR",
              "only rows where this SQL condition is true, e.g. the runbook's time window");
  flags.Bool("report", "list every gap and duplicate range (text shows at most 20 per partition)");
  flags.Value("format", "FORMAT", "text or json (json implies --report)", "text");
  AddStorageFlags(flags);
  return RunWithFlags(flags, args, ValidateMain);
}

WEIR_REGISTER_COMMAND(validate_cmd, "validate",
                      "check a table for gaps and duplicates per partition", RunValidate);

}  // namespace
}  // namespace weir::cli
