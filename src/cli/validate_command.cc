// `weir validate PATH`: the migration runbook's validation step (docs/migration.md). Per source
// partition: rows, min and max offset, expected = max - min + 1, duplicate offsets and missing
// ranges, optionally within a time window (--where on the enqueued-time column). --report lists
// every gap and duplicate range; --format json prints the same as one JSON object. Exit 0 when
// every partition is contiguous and duplicate-free, 1 when not (or when no row matched), 2 on
// errors. With the source's options (--pipeline, --option, ...) the broker is asked about every
// gap (cli/validate_audit.h): transaction markers, aborted transactions of a read_committed flow,
// compacted offsets and offsets deleted by retention are named instead of reported as gaps.
#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command.h"
#include "cli/file_systems.h"
#include "cli/flags.h"
#include "cli/partition_scan.h"
#include "cli/validate_audit.h"
#include "delta/table.h"
#include "stream/checkpoint_reset.h"

namespace weir::cli {
namespace {

// A run of consecutive offsets that are missing ([from, to) exclusive, as Spark's offset ranges)
// or present more than once ([from, to] inclusive, `extra_rows` rows beyond one per offset).
struct OffsetRange {
  int64_t from = 0;
  int64_t to = 0;
  int64_t extra_rows = 0;
  std::string reason;  // missing ranges the broker was asked about: kafka::GapKindName
  std::string detail;  // ... and what it showed there
};

struct PartitionReport {
  std::string partition;
  int64_t rows = 0;
  int64_t min = 0;
  int64_t max = 0;
  int64_t duplicates = 0;  // rows beyond the first of their offset
  int64_t missing = 0;     // offsets in [min, max] with no row (the broker did not explain)
  std::vector<OffsetRange> gaps;
  // Offsets without a row that the broker has no record for the flow to read (markers, aborted
  // transactions, compaction, retention): not gaps.
  std::vector<OffsetRange> explained;
  int64_t explained_offsets = 0;
  int64_t retention_offsets = 0;  // of which deleted by retention
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
        ranges.push_back({current, current, 1, {}, {}});
      }
    } else if (current > previous + 1) {
      report.missing += current - previous - 1;
      report.gaps.push_back({previous + 1, current, 0, {}, {}});
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

// Asks the broker about the reports' gaps (with the source's options) and moves what it explains
// from `gaps` to `explained`. nullopt when there is no gap to ask about.
std::optional<GapAudit> NameGapsAtBroker(const Flags& flags, const std::string& path,
                                         const delta::Snapshot& snapshot,
                                         std::vector<PartitionReport>& reports) {
  std::map<std::string, std::vector<kafka::OffsetSpan>> gaps;
  for (const auto& p : reports) {
    for (const auto& g : p.gaps) gaps[p.partition].push_back({g.from, g.to});
  }
  if (gaps.empty()) return std::nullopt;
  GapAudit audit = AuditGaps(flags, path, snapshot, gaps);
  if (!audit.consulted) return audit;
  for (auto& p : reports) {
    if (p.gaps.empty()) continue;
    p.gaps.clear();
    p.missing = 0;
    for (const kafka::GapPart& part : audit.parts[p.partition]) {
      OffsetRange r{part.from, part.to, 0, kafka::GapKindName(part.kind),
                    audit.Describe(p.partition, part)};
      if (kafka::IsExplained(part.kind)) {
        p.explained_offsets += part.to - part.from;
        if (part.kind == kafka::GapKind::kRetention) p.retention_offsets += part.to - part.from;
        p.explained.push_back(std::move(r));
      } else {
        p.missing += part.to - part.from;
        p.gaps.push_back(std::move(r));
      }
    }
  }
  return audit;
}

// The missing ranges of a partition in offset order: a gap per line, adjacent explained ranges on
// one line ("offset 10 transaction marker, offsets 11-20 aborted transaction, ...").
std::vector<std::string> MissingLines(const PartitionReport& p) {
  std::vector<std::string> lines;
  size_t g = 0, e = 0;
  while (g < p.gaps.size() || e < p.explained.size()) {
    if (e == p.explained.size() || (g < p.gaps.size() && p.gaps[g].from < p.explained[e].from)) {
      const OffsetRange& r = p.gaps[g++];
      lines.push_back(RangeText(r, false) + (r.detail.empty() ? "" : ", " + r.detail));
      continue;
    }
    std::string line;
    for (int64_t end = p.explained[e].from; e < p.explained.size() && p.explained[e].from == end; ++e) {
      const OffsetRange& r = p.explained[e];
      line += (line.empty() ? "" : ", ") +
              (r.to - r.from == 1 ? "offset " + std::to_string(r.from)
                                  : "offsets " + std::to_string(r.from) + "-" + std::to_string(r.to - 1)) +
              " " + r.detail;
      end = r.to;
    }
    lines.push_back(line);
  }
  return lines;
}

// ToJson's object with what the broker said: broker {...} (null when not asked), per partition
// explained_offsets and explained ranges, and reason / detail on the gaps it was asked about.
void AddBrokerJson(nlohmann::json& json, const std::vector<PartitionReport>& reports,
                   const std::optional<GapAudit>& audit) {
  auto range_json = [](const OffsetRange& g) {
    nlohmann::json j = {{"from", g.from}, {"to_exclusive", g.to}, {"count", g.to - g.from}};
    if (!g.reason.empty()) j["reason"] = g.reason;
    if (!g.detail.empty()) j["detail"] = g.detail;
    return j;
  };
  for (size_t i = 0; i < reports.size() && i < json["partitions"].size(); ++i) {
    nlohmann::json& p = json["partitions"][i];
    nlohmann::json gaps = nlohmann::json::array(), explained = nlohmann::json::array();
    for (const auto& g : reports[i].gaps) gaps.push_back(range_json(g));
    for (const auto& g : reports[i].explained) explained.push_back(range_json(g));
    p["gaps"] = gaps;
    p["explained"] = explained;
    p["explained_offsets"] = reports[i].explained_offsets;
  }
  if (!audit) {
    json["broker"] = nullptr;
  } else if (!audit->consulted) {
    json["broker"] = {{"consulted", false}, {"error", audit->error}};
  } else {
    json["broker"] = {{"consulted", true},
          {"topic", audit->topic},
          {"bootstrap", audit->bootstrap},
          {"isolation_level", audit->context.flow_read_committed ? "read_committed" : "read_uncommitted"},
          {"cleanup_policy", audit->context.compacted ? nlohmann::json(audit->cleanup_policy)
                                                     : nlohmann::json(nullptr)},
          {"records_read", audit->records_read},
          {"notes", audit->notes}};
  }
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
  if (Status st = CheckGapAuditFlags(flags); !st.ok()) return Fail(st);
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
  // Offsets a `weir checkpoint reset` skipped on purpose (its commits in the table's history,
  // read only when there are gaps) are not gaps: they are named apart, until a backfill fills them.
  std::vector<stream::ResetSkip> deliberate;
  if (std::any_of(reports.begin(), reports.end(), [](const auto& p) { return !p.gaps.empty(); })) {
    auto skips = stream::ReadResetSkips(*fs, path);
    if (!skips.ok()) return Fail(skips.status().WithContext(path));
    ok = stats->rows_without_offset == 0 && stats->rows > 0;
    for (auto& p : reports) {
      std::vector<OffsetRange> gaps;
      for (const auto& g : p.gaps) {
        int64_t at = g.from;
        for (const auto& s : stream::ExplainMissing(*skips, p.partition, g.from, g.to)) {
          if (s.from > at) gaps.push_back({at, s.from, 0, "", ""});
          p.missing -= s.to - s.from;
          deliberate.push_back(s);
          at = s.to;
        }
        if (at < g.to) gaps.push_back({at, g.to, 0, "", ""});
      }
      p.gaps = std::move(gaps);
      if (!p.ok()) ok = false;
    }
  }
  // The broker names the gaps it can explain (with the source's options); ok again without them.
  std::optional<GapAudit> audit;
  if (GapAuditRequested(flags)) audit = NameGapsAtBroker(flags, path, *snapshot, reports);
  const bool named = audit && audit->consulted;
  int64_t explained = 0, retention = 0;
  if (named) {
    ok = stats->rows_without_offset == 0 && stats->rows > 0;
    for (const auto& r : reports) {
      if (!r.ok()) ok = false;
      explained += r.explained_offsets;
      retention += r.retention_offsets;
    }
  }
  if (format == "json") {
    nlohmann::json json = ToJson(path, *columns, flags.Get("where"), *stats, reports, ok);
    AddBrokerJson(json, reports, audit);
    json["skipped_by_reset"] = nlohmann::json::array();
    for (const auto& s : deliberate) {
      json["skipped_by_reset"].push_back({{"partition", std::to_string(s.partition)},
                                          {"version", s.version},
                                          {"from", s.from},
                                          {"to_exclusive", s.to},
                                          {"count", s.to - s.from}});
    }
    std::printf("%s\n", json.dump(1).c_str());
    return ok ? 0 : 1;
  }
  const size_t kDetailLimit = 20;
  std::printf("%-12s %12s %12s %12s %12s %10s %10s%s\n", "partition", "rows", "min", "max",
              "expected", "duplicates", "missing", named ? "  explained" : "");
  for (const auto& p : reports) {
    std::printf("%-12s %12lld %12lld %12lld %12lld %10lld %10lld", p.partition.c_str(),
                static_cast<long long>(p.rows), static_cast<long long>(p.min),
                static_cast<long long>(p.max), static_cast<long long>(p.expected()),
                static_cast<long long>(p.duplicates), static_cast<long long>(p.missing));
    if (named) std::printf(" %10lld", static_cast<long long>(p.explained_offsets));
    std::printf("\n");
  }
  if (audit && !audit->consulted) {
    std::printf("could not consult the broker: %s\n", audit->error.c_str());
  } else if (named) {
    std::printf("broker: topic %s at %s, %s, the flow reads %s; %lld records read\n",
                audit->topic.c_str(), audit->bootstrap.c_str(),
                audit->context.compacted ? ("cleanup.policy=" + audit->cleanup_policy).c_str()
                                         : "cleanup.policy unknown",
                audit->context.flow_read_committed ? "read_committed" : "read_uncommitted",
                static_cast<long long>(audit->records_read));
    for (const auto& note : audit->notes) std::printf("  note: %s\n", note.c_str());
  }
  for (const auto& p : reports) {
    size_t shown = 0;
    for (const auto& line : MissingLines(p)) {
      if (!report_mode && shown++ >= kDetailLimit) break;
      std::printf("  partition %s: %s\n", p.partition.c_str(), line.c_str());
    }
    for (const auto& d : p.duplicate_ranges) {
      if (!report_mode && shown++ >= kDetailLimit) break;
      std::printf("  partition %s: %s\n", p.partition.c_str(), RangeText(d, true).c_str());
    }
    if (!report_mode && shown > kDetailLimit) {
      std::printf("  partition %s: ... (--report lists every range)\n", p.partition.c_str());
    }
  }
  int64_t skipped = 0;
  for (const auto& s : deliberate) {
    std::printf("  %s: %lld offsets, deliberate (not a gap)\n", stream::DescribeSkip(s).c_str(),
                static_cast<long long>(s.to - s.from));
    skipped += s.to - s.from;
  }
  if (ok && skipped > 0) {
    std::printf("OK: every partition is contiguous but for %lld offsets a checkpoint reset skipped "
                "on purpose (listed above; a backfill fills them), no duplicates\n",
                static_cast<long long>(skipped));
    return 0;
  }
  if (stats->rows_without_offset > 0) {
    std::printf("%lld rows have no integer offset in %s\n",
                static_cast<long long>(stats->rows_without_offset), columns->offset.c_str());
  }
  if (stats->rows == 0) {
    std::printf("NO ROWS%s: nothing was validated\n",
                flags.Has("where") ? " matched --where" : " in the table");
  } else if (ok && explained > 0) {
    std::printf("OK: no gaps, no duplicates; the broker explains the %lld offsets without a row "
                "(named above)%s\n",
                static_cast<long long>(explained),
                retention == 0 ? ""
                               : ("; " + std::to_string(retention) +
                                  " of them were deleted by retention: if the table never held "
                                  "them, they were lost")
                                     .c_str());
  } else {
    std::printf(ok ? "OK: every partition is contiguous, no duplicates\n"
                   : "FOUND gaps or duplicates\n");
  }
  return ok ? 0 : 1;
}

int RunValidate(const std::vector<std::string>& args) {
  Flags flags(
      "weir validate PATH [--partition-column C] [--offset-column C] [--where EXPR]\n"
      "                     [--report] [--format text|json]\n"
      "                     [--pipeline FILE [--flow TABLE] | --bootstrap-servers H:P --topic T]\n"
      "                     [--option NAME=VALUE ...] [--broker-max-records N]",
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
      "rows without an offset or no rows at all, 2 on errors.\n"
      "\n"
      "Offsets a Kafka topic legitimately has no record for are not gaps, but validate can\n"
      "only tell them apart by asking the broker: give it the source's options with\n"
      "--pipeline FILE (the read_kafka options of the flow stored at PATH, or --flow), or\n"
      "with --option / --option-file / --bootstrap-servers / --topic as weir kafka read takes\n"
      "them (set kafka.isolation.level=read_committed for a read_committed flow). Each gap is\n"
      "then read from the broker with read_uncommitted and, where that shows records, with\n"
      "read_committed, and its offsets named: 'transaction marker' (no record: a control record),\n"
      "'aborted transaction' (a record only read_uncommitted delivers; for a read_committed\n"
      "flow), 'compacted away (or transaction marker)' on a topic whose cleanup.policy has\n"
      "compact, 'deleted by retention (log start offset N)' below the earliest offset. These\n"
      "are counted as explained, not missing. Records the flow would have read (committed\n"
      "ones; aborted ones for a read_uncommitted flow) stay gaps, named so. The work is\n"
      "bounded: at most --broker-max-records records are read over all gaps (retention and\n"
      "compacted offsets cost nothing; gaps close together are read as one range, reading the\n"
      "table's records between them, at most 10000 per partition; at most 200 ranges per\n"
      "partition); offsets not read stay gaps, 'unverified' with the reason. When the broker\n"
      "cannot be reached, every gap is reported as without these options, after 'could not\n"
      "consult the broker: REASON'. JSON adds broker {consulted, topic, isolation_level,\n"
      "cleanup_policy, records_read | error}, per partition explained_offsets and explained:\n"
      "[{from, to_exclusive, count, reason, detail}], and reason/detail on each gap.\n"
      "\n"

      "Offsets a `weir checkpoint reset` skipped on purpose (recorded in the table's history)\n"
      "are not gaps: they are named \"skipped by checkpoint reset at version V: partition P\n"
      "offsets [from, to)\" (JSON: skipped_by_reset [{partition, version, from, to_exclusive,\n"
      "count}]) until a backfill writes them; a gap no reset explains is reported as before.");
  flags.Positional("PATH", 1, 1);
  flags.Value("partition-column", "C",
              "the column holding the source partition (default: detected)");
  flags.Value("offset-column", "C",
              "the column holding the offset or sequence number (default: detected)");
  flags.Value("where", "EXPR",
              "only rows where this SQL condition is true, e.g. the runbook's time window");
  flags.Bool("report", "list every gap and duplicate range (text shows at most 20 per partition)");
  flags.Value("format", "FORMAT", "text or json (json implies --report)", "text");
  AddGapAuditFlags(flags);
  AddStorageFlags(flags);
  return RunWithFlags(flags, args, ValidateMain);
}

WEIR_REGISTER_COMMAND(validate_cmd, "validate",
                      "check a table for gaps and duplicates per partition", RunValidate);

}  // namespace
}  // namespace weir::cli
