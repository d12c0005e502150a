// `weir kafka check` (connection doctor) and `weir kafka read` (a kcat for people who think in
// Spark options): both take the Kafka source's options as --option name=value.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/flags.h"
#include "columnar/text_format.h"
#include "kafka/consumer.h"
#include "kafka/doctor.h"
#include "kafka/options.h"
#include "kafka/planner.h"

namespace weir::cli {
namespace {

void DeclareOptionFlags(Flags& flags) {
  flags.Repeated("option", "NAME=VALUE",
                 "a Kafka source option as Spark names it (subscribe, startingOffsets, "
                 "kafka.bootstrap.servers, kafka.sasl.jaas.config, eventhubs.connectionString, ...)");
  flags.Value("option-file", "FILE",
              "read NAME=VALUE lines from FILE (# comments allowed); keeps secrets off the "
              "command line");
  flags.Value("bootstrap-servers", "HOST:PORT", "shorthand for --option kafka.bootstrap.servers=...");
  flags.Value("topic", "NAME", "shorthand for --option subscribe=NAME");
}

Result<std::map<std::string, std::string>> CollectOptions(const Flags& flags) {
  std::map<std::string, std::string> options;
  auto add = [&](const std::string& item, const std::string& where) -> Status {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument(where + " expects NAME=VALUE, got '" +
                                     item.substr(0, item.find('=')) + "'");
    }
    options[item.substr(0, eq)] = item.substr(eq + 1);
    return Status::OK();
  };
  if (flags.Has("option-file")) {
    std::ifstream in(flags.Get("option-file"));
    if (!in) {
      return Status::IOError("cannot read option file " + flags.Get("option-file"));
    }
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      size_t first = line.find_first_not_of(" \t");
      if (first == std::string::npos || line[first] == '#') continue;
      WEIR_RETURN_NOT_OK(add(line.substr(first), "option file " + flags.Get("option-file")));
    }
  }
  for (const auto& item : flags.GetAll("option")) WEIR_RETURN_NOT_OK(add(item, "--option"));
  if (flags.Has("bootstrap-servers")) options["kafka.bootstrap.servers"] = flags.Get("bootstrap-servers");
  if (flags.Has("topic")) options["subscribe"] = flags.Get("topic");
  return options;
}

// ---------------------------------------------------------------------------------------------
// weir kafka check

int RunCheck(const Flags& flags) {
  auto collected = CollectOptions(flags);
  if (!collected.ok()) return Fail(collected.status());
  auto options = kafka::KafkaSourceOptions::Parse(*collected, kafka::QueryKind::kStreaming);
  if (!options.ok()) {
    std::fprintf(stderr, "weir: options: %s\n", options.status().ToString().c_str());
    return 2;
  }
  auto timeout = flags.GetInt("timeout-ms");
  if (!timeout.ok()) return Fail(timeout.status());
  std::printf("checking %s (%s)\n", options->BootstrapServers().c_str(),
              options->subscription.ToString().c_str());
  for (const auto& note : options->notes) std::printf("  note: %s\n", note.c_str());
  kafka::CheckReport report = kafka::RunConnectionCheck(*options, static_cast<int>(*timeout));
  for (const auto& step : report.steps) {
    std::printf("%-8s %-6s %s\n", step.name.c_str(), step.ok ? "ok" : "FAILED", step.detail.c_str());
    if (!step.hint.empty()) {
      std::printf("%-8s %-6s %s\n", "", step.ok ? "" : "cause", step.hint.c_str());
    }
  }
  if (!report.partitions.empty()) {
    std::printf("\n%-40s %12s %12s %12s\n", "topic-partition", "earliest", "latest", "records");
    for (const auto& p : report.partitions) {
      std::printf("%-40s %12lld %12lld %12lld\n", p.tp.ToString().c_str(),
                  static_cast<long long>(p.earliest), static_cast<long long>(p.latest),
                  static_cast<long long>(p.latest - p.earliest));
    }
  }
  if (!report.ok()) {
    if (flags.GetBool("verbose")) {
      for (const auto& line : report.client_log) std::fprintf(stderr, "  %s\n", line.c_str());
    }
    std::fprintf(stderr, "weir: kafka check failed at step '%s'%s\n",
                 report.steps.empty() ? "?" : report.steps.back().name.c_str(),
                 flags.GetBool("verbose") ? "" : " (--verbose shows the client's log)");
    return 2;
  }
  if (flags.GetBool("verbose")) {
    for (const auto& line : report.client_log) std::printf("  %s\n", line.c_str());
  }
  return 0;
}

int CheckMain(const std::vector<std::string>& args) {
  Flags flags("weir kafka check --option NAME=VALUE ... [--timeout-ms N]",
              "Connection doctor for a Kafka or Event Hubs source: resolves the bootstrap host, "
              "opens a TCP connection, requests metadata (which authenticates), then lists the "
              "subscribed topics' partitions with their earliest and latest offsets. Stops at "
              "the first step that fails and names the likely cause. Exit status 2 on failure.");
  DeclareOptionFlags(flags);
  flags.Value("timeout-ms", "N", "timeout of each step", "10000");
  flags.Bool("verbose", "also print the Kafka client's warnings and errors");
  return RunWithFlags(flags, args, RunCheck);
}

WEIR_REGISTER_COMMAND(kafka_check_command, "kafka check",
                      "check a Kafka / Event Hubs connection step by step", CheckMain);

// ---------------------------------------------------------------------------------------------
// weir kafka read

void AppendBinary(const std::optional<std::string_view>& bytes, std::string* out) {
  if (!bytes) {
    *out += "null";
    return;
  }
  out->push_back('"');
  columnar::AppendBase64(*bytes, out);
  out->push_back('"');
}

// One row in Spark's Kafka schema, binary as base64, timestamp ISO-8601 UTC (microseconds).
void AppendRow(const kafka::RecordView& r, bool include_headers, std::string* out) {
  *out += "{\"key\":";
  AppendBinary(r.key, out);
  *out += ",\"value\":";
  AppendBinary(r.value, out);
  *out += ",\"topic\":";
  columnar::AppendJsonString(r.topic, out);
  *out += ",\"partition\":" + std::to_string(r.partition);
  *out += ",\"offset\":" + std::to_string(r.offset);
  *out += ",\"timestamp\":\"";
  columnar::AppendTimestampMicros(r.timestamp_ms * 1000, out);
  *out += "\",\"timestampType\":" + std::to_string(r.timestamp_type);
  if (include_headers) {
    *out += ",\"headers\":";
    if (r.headers == nullptr) {
      *out += "null";
    } else {
      out->push_back('[');
      for (size_t h = 0; h < r.header_count(); ++h) {
        kafka::HeaderView hv = r.header(h);
        if (h > 0) out->push_back(',');
        *out += "{\"key\":";
        columnar::AppendJsonString(hv.key, out);
        *out += ",\"value\":";
        AppendBinary(hv.value, out);
        out->push_back('}');
      }
      out->push_back(']');
    }
  }
  *out += "}\n";
}

int RunRead(const Flags& flags) {
  auto collected = CollectOptions(flags);
  if (!collected.ok()) return Fail(collected.status());
  const std::string format = flags.Get("format");
  if (format != "jsonl" && format != "none") {
    return Fail(Status::InvalidArgument("--format supports jsonl or none, got '" + format + "'"));
  }
  const bool print_rows = format == "jsonl";
  long long limit = -1;
  if (flags.Has("limit")) {
    auto l = flags.GetInt("limit");
    if (!l.ok()) return Fail(l.status());
    limit = *l;
  }
  auto options = kafka::KafkaSourceOptions::Parse(*collected, kafka::QueryKind::kBatch);
  if (!options.ok()) {
    std::fprintf(stderr, "weir: options: %s\n", options.status().ToString().c_str());
    return 2;
  }
  const bool include_headers = options->include_headers;
  const bool fail_on_data_loss = options->fail_on_data_loss;
  const kafka::OffsetSpec starting = options->starting;
  const kafka::OffsetSpec ending = *options->ending;
  const kafka::NoMatchStrategy strategy = options->no_match_strategy;
  const kafka::RangeSplit split;  // one range per partition
  auto opened = kafka::KafkaSource::Open(std::move(*options));
  if (!opened.ok()) return Fail(opened.status());
  kafka::KafkaSource& source = **opened;

  auto partitions = source.ListPartitions();
  if (!partitions.ok()) return Fail(partitions.status());
  kafka::DataLossReporter reporter(fail_on_data_loss);
  auto start = kafka::ResolveStartingOffsets(starting, strategy, *partitions, source, &reporter);
  if (!start.ok()) return Fail(start.status());
  auto end = kafka::ResolveEndingOffsets(ending, *partitions, source);
  if (!end.ok()) return Fail(end.status());
  auto ranges = kafka::PlanBatchRanges(*start, *end, {}, false, split, &reporter);
  if (!ranges.ok()) return Fail(ranges.status());
  for (const auto& w : reporter.Warnings()) std::fprintf(stderr, "weir: warning: %s\n", w.c_str());

  auto reader = source.Read(*ranges);
  if (!reader.ok()) return Fail(reader.status());
  std::string out;
  long long printed = 0;
  long long bytes = 0;
  const auto started = std::chrono::steady_clock::now();
  while (!(*reader)->done() && (limit < 0 || printed < limit)) {
    auto batch = (*reader)->Next(print_rows ? 4096 : 20000);
    if (!batch.ok()) return Fail(batch.status());
    for (const auto& record : *batch) {
      if (limit >= 0 && printed >= limit) break;
      if (print_rows) {
        AppendRow(record, include_headers, &out);
      } else {
        bytes += static_cast<long long>((record.key ? record.key->size() : 0) +
                                        (record.value ? record.value->size() : 0));
      }
      ++printed;
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    out.clear();
  }
  std::fflush(stdout);
  if (!print_rows) {  // the source alone: records, bytes and rate, for benchmarks
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::fprintf(stderr, "weir: read %lld records (%lld key+value bytes) in %.3f s: %.0f records/s, %.1f MB/s\n",
                 printed, bytes, seconds, printed / std::max(seconds, 1e-9), bytes / std::max(seconds, 1e-9) / 1e6);
  }
  for (const auto& w : (*reader)->stats().warnings) {
    std::fprintf(stderr, "weir: warning: %s\n", w.c_str());
  }
  return 0;
}

int ReadMain(const std::vector<std::string>& args) {
  Flags flags("weir kafka read --option NAME=VALUE ... [--limit N] [--format jsonl]",
              "Reads a Kafka / Event Hubs topic with the Kafka source's options (as a Spark batch "
              "query: startingOffsets defaults to earliest, endingOffsets to latest) and prints "
              "rows in Spark's schema as JSON lines: key and value as base64 (null stays null), "
              "topic, partition, offset, timestamp (ISO-8601 UTC) and timestampType, plus "
              "headers with includeHeaders=true.");
  DeclareOptionFlags(flags);
  flags.Value("limit", "N", "stop after N rows");
  flags.Value("format", "FORMAT", "jsonl, or none (read and count only: the source's raw rate)", "jsonl");
  return RunWithFlags(flags, args, RunRead);
}

WEIR_REGISTER_COMMAND(kafka_read_command, "kafka read",
                      "print a topic's records as Spark rows (JSON lines)", ReadMain);

}  // namespace
}  // namespace weir::cli
