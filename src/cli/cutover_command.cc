// `weir cutover TABLE --topic T`: the migration runbook's restart position (docs/migration.md).
// From the table the old reader wrote, computes where the new Kafka-source flow starts:
//   A. startingTimestamp = max(enqueued time) - --time-margin (ms since the epoch);
//   B. startingOffsets = {"T":{"<p>": max(offset of p) - --margin, ...}} (Spark's JSON).
// Both overlap on purpose; prints the read_kafka option lines and the `--set` form, and warns when
// the overlap cannot be re-read (retention) or would be duplicated (a blind append sink).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command.h"
#include "cli/file_systems.h"
#include "cli/flags.h"
#include "cli/partition_scan.h"
#include "columnar/text_format.h"
#include "delta/table.h"
#include "kafka/options.h"

namespace weir::cli {
namespace {

struct PartitionPosition {
  int64_t rows = 0;
  int64_t max_offset = 0;
  std::optional<int64_t> max_time_micros;
  int64_t start_offset = 0;                  // option B
  std::optional<int64_t> start_time_micros;  // enqueued time of the row at start_offset
};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "2d3h", "10m", "14m21s", "250ms": the largest units, at most two.
std::string DurationText(int64_t ms) {
  if (ms < 1000) return std::to_string(ms) + "ms";
  constexpr struct {
    int64_t ms;
    const char* suffix;
  } kUnits[] = {{86400000, "d"}, {3600000, "h"}, {60000, "m"}, {1000, "s"}};
  std::string out;
  int parts = 0;
  for (const auto& unit : kUnits) {
    if (ms >= unit.ms && parts < 2) {
      out += std::to_string(ms / unit.ms) + unit.suffix;
      ms %= unit.ms;
      ++parts;
    } else if (parts > 0) {
      ++parts;  // a skipped unit ends the text: "1d" not "1d5s"
    }
  }
  return out;
}

// Numeric partitions in numeric order ("2" before "10"), others after, by text.
bool PartitionLess(const std::string& a, const std::string& b) {
  auto numeric = [](const std::string& s) {
    return !s.empty() && s.size() < 10 &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (numeric(a) && numeric(b)) return std::stol(a) < std::stol(b);
  if (numeric(a) != numeric(b)) return numeric(a);
  return a < b;
}

// Single quotes for a shell.
std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int CutoverMain(const Flags& flags) {
  const std::string path = flags.positional()[0];
  const std::string topic = flags.Get("topic");
  if (topic.empty()) {
    return Fail(Status::InvalidArgument("--topic is required (the Kafka topic = event hub name)"));
  }
  const std::string format = flags.Get("format");
  if (format != "text" && format != "json") {
    return Fail(Status::InvalidArgument("--format must be text or json, got '" + format + "'"));
  }
  const std::string sink = flags.Get("sink");
  if (sink != "append" && sink != "merge") {
    return Fail(Status::InvalidArgument("--sink must be append or merge, got '" + sink + "'"));
  }
  auto margin = flags.GetInt("margin");
  if (!margin.ok()) return Fail(margin.status());
  if (*margin < 0) return Fail(Status::InvalidArgument("--margin must be >= 0"));
  auto time_margin_ms = kafka::ParseDurationMs(flags.Get("time-margin"));
  if (!time_margin_ms.ok()) return Fail(time_margin_ms.status().WithContext("--time-margin"));
  std::optional<int64_t> retention_ms;
  if (flags.Has("retention")) {
    auto parsed = kafka::ParseDurationMs(flags.Get("retention"));
    if (!parsed.ok()) return Fail(parsed.status().WithContext("--retention"));
    retention_ms = *parsed;
  }
  std::optional<long long> partition_count;
  if (flags.Has("partitions")) {
    auto parsed = flags.GetInt("partitions");
    if (!parsed.ok()) return Fail(parsed.status());
    partition_count = *parsed;
  }

  auto fs = FileSystemFor(flags, path);
  if (!fs.ok()) return Fail(fs.status());
  auto table = delta::Table::Open(*fs, path);
  if (!table.ok()) return Fail(table.status());
  auto snapshot = (*table)->snapshot();
  auto columns = ResolvePositionColumns(
      snapshot->schema(),
      {flags.Get("partition-column"), flags.Get("offset-column"), flags.Get("time-column")},
      /*need_time=*/false);
  if (!columns.ok()) return Fail(columns.status().WithContext(path));
  const std::string where = flags.Get("where");

  // Pass 1: per partition, the highest offset and the latest enqueued time.
  std::map<std::string, PartitionPosition> partitions;
  auto stats = ScanPositions(snapshot, *columns, where, [&](const Position& p) {
    PartitionPosition& pos = partitions[std::string(p.partition)];
    if (pos.rows == 0 || p.offset > pos.max_offset) pos.max_offset = p.offset;
    if (p.time_micros && (!pos.max_time_micros || *p.time_micros > *pos.max_time_micros)) {
      pos.max_time_micros = p.time_micros;
    }
    ++pos.rows;
  });
  if (!stats.ok()) return Fail(stats.status().WithContext(path));
  if (partitions.empty()) {
    return Fail(
        Status::NotFound("no rows with an offset in " + path +
                         (where.empty() ? std::string() : " matching --where") +
                         ": nothing to cut over from; start the new flow with startingOffsets "
                         "earliest"));
  }
  for (auto& [name, pos] : partitions) {
    pos.start_offset = std::max<int64_t>(0, pos.max_offset - *margin);
  }
  // Pass 2: the enqueued time at each starting offset (how old the overlap's first event is).
  if (!columns->time.empty()) {
    auto second = ScanPositions(snapshot, *columns, where, [&](const Position& p) {
      auto it = partitions.find(std::string(p.partition));
      if (it != partitions.end() && p.offset == it->second.start_offset && p.time_micros) {
        it->second.start_time_micros = p.time_micros;
      }
    });
    if (!second.ok()) return Fail(second.status().WithContext(path));
  }

  std::vector<std::string> order;
  for (const auto& [name, pos] : partitions) order.push_back(name);
  std::sort(order.begin(), order.end(), PartitionLess);

  // Option B: Spark's startingOffsets JSON (partition keys in numeric order).
  std::string offsets_json = "{" + nlohmann::json(topic).dump() + ":{";
  std::vector<std::string> warnings;
  std::vector<std::string> absent;  // partitions of the topic with no row in the table
  if (partition_count) {
    for (long long p = 0; p < *partition_count; ++p) {
      if (!partitions.count(std::to_string(p))) absent.push_back(std::to_string(p));
    }
  }
  std::vector<std::pair<std::string, int64_t>> starts;  // partition -> starting offset
  for (const auto& name : order) starts.emplace_back(name, partitions[name].start_offset);
  for (const auto& name : absent) starts.emplace_back(name, -2);
  std::sort(starts.begin(), starts.end(),
            [](const auto& a, const auto& b) { return PartitionLess(a.first, b.first); });
  for (size_t i = 0; i < starts.size(); ++i) {
    offsets_json += (i == 0 ? "" : ",") + nlohmann::json(starts[i].first).dump() + ":" +
                    std::to_string(starts[i].second);
  }
  offsets_json += "}}";
  if (!absent.empty()) {
    std::string list;
    for (const auto& a : absent) list += (list.empty() ? "" : ", ") + a;
    warnings.push_back("partition(s) " + list + " of " + topic +
                       " have no row in the table; they start from " + "the earliest offset (-2)");
  }
  if (partition_count) {
    for (const auto& name : order) {
      if (!PartitionLess(name, std::to_string(*partition_count))) {
        warnings.push_back("the table has rows of partition " + name + ", but --partitions says " +
                           topic + " has " + std::to_string(*partition_count) +
                           ": check the topic and the partition column");
      }
    }
  } else {
    warnings.push_back(
        "startingOffsets lists the " + std::to_string(partitions.size()) +
        " partitions found in the table; Spark requires every partition of the topic: "
        "pass --partitions N if it has more (they are added as -2, earliest)");
  }

  // Option A: startingTimestamp.
  std::optional<int64_t> max_time_ms;
  for (const auto& [name, pos] : partitions) {
    if (pos.max_time_micros) {
      int64_t ms = *pos.max_time_micros / 1000;
      if (!max_time_ms || ms > *max_time_ms) max_time_ms = ms;
    }
  }
  std::optional<int64_t> starting_timestamp_ms;
  if (max_time_ms) starting_timestamp_ms = *max_time_ms - *time_margin_ms;

  // Retention: the overlap's first events must still be in the source.
  const int64_t now_ms = NowMs();
  if (retention_ms) {
    if (*time_margin_ms > *retention_ms) {
      warnings.push_back(
          "--time-margin " + DurationText(*time_margin_ms) + " exceeds the source's retention " +
          DurationText(*retention_ms) +
          ": option A's startingTimestamp is before the oldest event the source keeps");
    } else if (starting_timestamp_ms && now_ms - *starting_timestamp_ms > *retention_ms) {
      warnings.push_back("option A's startingTimestamp is " +
                         DurationText(now_ms - *starting_timestamp_ms) +
                         " old, more than the source's retention " + DurationText(*retention_ms) +
                         ": events after the table's last one may already be deleted (a gap); keep "
                         "failOnDataLoss=true so the new flow stops instead of skipping them");
    }
    for (const auto& name : order) {
      const auto& pos = partitions[name];
      if (pos.start_time_micros && now_ms - *pos.start_time_micros / 1000 > *retention_ms) {
        warnings.push_back("partition " + name + ": the event at starting offset " +
                           std::to_string(pos.start_offset) + " was enqueued " +
                           DurationText(now_ms - *pos.start_time_micros / 1000) +
                           " ago, more than the retention " + DurationText(*retention_ms) +
                           ": the overlap (or more) may be gone; use a smaller --margin and keep "
                           "failOnDataLoss=true");
      }
    }
  } else {
    warnings.push_back(
        "no --retention given: check that the source still holds the overlap (Event Hubs "
        "retention is 1-90 days)");
  }
  if (sink == "append") {
    warnings.push_back(
        "the new flow appends blindly: the overlap (up to " + std::to_string(*margin + 1) +
        " records per partition with option B) will be DUPLICATED in " + path +
        ". Write through a MERGE on (" + columns->partition + ", " + columns->offset +
        ") or on an event id, or deduplicate downstream (runbook step 6), then check with "
        "`weir validate " +
        path + " --where ...`");
  }

  if (format == "json") {
    nlohmann::json parts = nlohmann::json::array();
    for (const auto& name : order) {
      const auto& pos = partitions[name];
      nlohmann::json p = {{"partition", name},
                          {"rows", pos.rows},
                          {"max_offset", pos.max_offset},
                          {"starting_offset", pos.start_offset}};
      if (pos.max_time_micros)
        p["max_enqueued_time"] = columnar::FormatTimestampMillis(*pos.max_time_micros);
      if (pos.start_time_micros) {
        p["starting_enqueued_time"] = columnar::FormatTimestampMillis(*pos.start_time_micros);
      }
      parts.push_back(p);
    }
    nlohmann::json out = {
        {"table", path},
        {"topic", topic},
        {"partition_column", columns->partition},
        {"offset_column", columns->offset},
        {"time_column", columns->time.empty() ? nlohmann::json() : nlohmann::json(columns->time)},
        {"rows", stats->rows},
        {"margin", *margin},
        {"startingOffsets", offsets_json},
        {"startingTimestamp",
         starting_timestamp_ms ? nlohmann::json(*starting_timestamp_ms) : nlohmann::json()},
        {"partitions", parts},
        {"sink", sink},
        {"warnings", warnings}};
    std::printf("%s\n", out.dump(1).c_str());
    for (const auto& w : warnings) std::fprintf(stderr, "WARNING: %s\n", w.c_str());
    return 0;
  }

  std::printf("table %s: %lld rows, %zu partitions (columns: partition %s, offset %s, time %s)\n",
              path.c_str(), static_cast<long long>(stats->rows), partitions.size(),
              columns->partition.c_str(), columns->offset.c_str(),
              columns->time.empty() ? "(none)" : columns->time.c_str());
  std::printf("\n%-10s %12s %14s %14s  %s\n", "partition", "rows", "max offset", "start offset",
              "enqueued at start offset");
  for (const auto& name : order) {
    const auto& pos = partitions[name];
    std::printf("%-10s %12lld %14lld %14lld  %s\n", name.c_str(), static_cast<long long>(pos.rows),
                static_cast<long long>(pos.max_offset), static_cast<long long>(pos.start_offset),
                pos.start_time_micros
                    ? columnar::FormatTimestampMillis(*pos.start_time_micros).c_str()
                    : "-");
  }
  if (starting_timestamp_ms) {
    std::printf("\nOption A (timestamp): latest enqueued time %s minus %s\n",
                columnar::FormatTimestampMillis(*max_time_ms * 1000).c_str(),
                DurationText(*time_margin_ms).c_str());
    std::printf("  read_kafka:  startingTimestamp => '%lld',\n",
                static_cast<long long>(*starting_timestamp_ms));
    std::printf("  weir run:    --set starting_timestamp=%lld\n",
                static_cast<long long>(*starting_timestamp_ms));
    std::printf("  (the pipeline file reads startingTimestamp => '${starting_timestamp}')\n");
    std::printf(
        "  (test the timestamp lookup against the namespace first; if it is rejected, use option "
        "B)\n");
  } else {
    std::printf(
        "\nOption A (timestamp): not available, the table has no enqueued-time column "
        "(name one with --time-column)\n");
  }
  std::printf("\nOption B (offsets): per partition, max(%s) - %lld\n", columns->offset.c_str(),
              static_cast<long long>(*margin));
  std::printf("  read_kafka:  startingOffsets => '%s',\n", offsets_json.c_str());
  std::printf("  weir run:    --set starting_offsets=%s\n", ShellQuote(offsets_json).c_str());
  std::printf(
      "  (the pipeline file reads startingOffsets => '${starting_offsets}', as\n"
      "   examples/eventhubs_columns.sql does; both apply on the flow's first start only,\n"
      "   so give the new flow a new checkpoint)\n");
  for (const auto& w : warnings) std::fprintf(stderr, "WARNING: %s\n", w.c_str());
  return 0;
}

int RunCutover(const std::vector<std::string>& args) {
  Flags flags(
      "weir cutover TABLE --topic T [--margin N] [--time-margin 10m] [--retention 7d]\n"
      "                   [--sink append|merge] [--partitions N] [--where EXPR] [--format "
      "text|json]\n"
      "                   [--partition-column C] [--offset-column C] [--time-column C]",
      "Computes where a new Kafka-source flow starts when it replaces the reader that wrote\n"
      "TABLE (the Event Hubs Spark connector, a Spark Kafka query, or a weir flow): the migration\n"
      "runbook's step 5 (docs/migration.md). Stop the old reader first. Then:\n"
      "  A. startingTimestamp = max(enqueued time) - --time-margin, in ms since the epoch;\n"
      "  B. startingOffsets = {\"T\":{\"<partition>\": max(offset) - --margin, ...}}.\n"
      "Both overlap the table on purpose (B re-reads margin + 1 records per partition), so the\n"
      "new flow's sink must absorb the overlap (a MERGE on partition and offset, or a downstream\n"
      "dedup). Prints the read_kafka option lines and the `weir run --set` form, and warns when\n"
      "the overlap is older than the source's retention or the new sink is a blind append.\n"
      "Columns are detected when not named: partition = eh_partition | partition; offset =\n"
      "sequenceNumber | eh_offset | offset (the connector's sequenceNumber equals the Kafka\n"
      "offset on the Event Hubs Kafka endpoint; verify on a sample); time = enqueuedTime |\n"
      "enqueued_time | timestamp. --format json prints {startingOffsets, startingTimestamp,\n"
      "partitions, warnings, ...}. Warnings go to stderr (and into the JSON);\n"
      "exit 0 unless the table cannot be read (2).");
  flags.Positional("TABLE", 1, 1);
  flags.Value("topic", "T", "the Kafka topic (the event hub's name) the new flow subscribes to");
  flags.Value("margin", "N", "option B: records to re-read below each partition's highest offset",
              "1000");
  flags.Value("time-margin", "DURATION",
              "option A: how far before the latest enqueued time to start (runbook: 5m-10m)",
              "10m");
  flags.Value("retention", "DURATION",
              "the source's retention (e.g. 7d, 24h): warn when the overlap is older");
  flags.Value("sink", "KIND",
              "the new flow's sink: append (blind, warns about duplicates) or merge", "append");
  flags.Value("partitions", "N",
              "the topic's partition count: partitions absent from the table start at -2");
  flags.Value("where", "EXPR", "only rows where this SQL condition is true (e.g. the last 2 days)");
  flags.Value("partition-column", "C", "the source partition column (default: detected)");
  flags.Value("offset-column", "C", "the offset / sequence number column (default: detected)");
  flags.Value("time-column", "C", "the enqueued time column, a TIMESTAMP (default: detected)");
  flags.Value("format", "FORMAT", "text or json", "text");
  AddStorageFlags(flags);
  return RunWithFlags(flags, args, CutoverMain);
}

WEIR_REGISTER_COMMAND(cutover_cmd, "cutover",
                      "compute a replacement flow's starting offsets / timestamp from a table",
                      RunCutover);

}  // namespace
}  // namespace weir::cli
