// `weir produce`: sends deterministic sample order events (with duplicates, malformed and late
// ones) to a Kafka topic and optionally writes a manifest of where they landed, for tests.
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "broker/sample_producer.h"
#include "cli/command.h"
#include "cli/flags.h"

namespace weir::cli {
namespace {

// Writes `contents` to a temporary file beside `path` and renames it into place.
Status WriteFileAtomically(const std::string& path, const std::string& contents) {
  std::string temp = path + ".tmp." + std::to_string(::getpid());
  FILE* file = std::fopen(temp.c_str(), "w");
  if (file == nullptr) return Status::IOError("cannot create " + temp);
  bool written = std::fwrite(contents.data(), 1, contents.size(), file) == contents.size();
  if (std::fclose(file) != 0 || !written || std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return Status::IOError("cannot write " + path);
  }
  return Status::OK();
}

Result<double> GetFraction(const Flags& flags, const std::string& name) {
  WEIR_ASSIGN_OR_RETURN(double value, flags.GetDouble(name));
  if (value < 0 || value > 1) {
    return Status::InvalidArgument("option --" + name + " is a fraction in [0, 1], got " +
                                   flags.Get(name));
  }
  return value;
}

Status ParseOptions(const Flags& flags, broker::ProduceOptions* options) {
  for (const char* required : {"bootstrap", "topic", "count"}) {
    if (!flags.Has(required)) {
      return Status::InvalidArgument(std::string("option --") + required + " is required");
    }
  }
  options->bootstrap_servers = flags.Get("bootstrap");
  options->topic = flags.Get("topic");
  WEIR_ASSIGN_OR_RETURN(long long count, flags.GetInt("count"));
  options->count = count;
  WEIR_ASSIGN_OR_RETURN(options->rate, flags.GetDouble("rate"));
  WEIR_ASSIGN_OR_RETURN(options->events.duplicate_fraction, GetFraction(flags, "duplicates"));
  WEIR_ASSIGN_OR_RETURN(options->events.malformed_fraction, GetFraction(flags, "malformed"));
  WEIR_ASSIGN_OR_RETURN(options->events.late_fraction, GetFraction(flags, "late"));
  WEIR_ASSIGN_OR_RETURN(long long seed, flags.GetInt("seed"));
  if (seed < 0) return Status::InvalidArgument("option --seed must not be negative");
  options->events.seed = static_cast<uint64_t>(seed);
  WEIR_ASSIGN_OR_RETURN(long long late_by, flags.GetInt("late-by"));
  options->events.late_by_ms = late_by * 1000;
  options->compression = flags.Get("compression");
  options->headers = flags.GetBool("headers");
  WEIR_ASSIGN_OR_RETURN(long long partitions, flags.GetInt("partitions"));
  options->partitions = static_cast<int>(partitions);
  WEIR_ASSIGN_OR_RETURN(double timeout, flags.GetDouble("timeout"));
  options->timeout_ms = static_cast<int64_t>(timeout * 1000);
  for (const std::string& property : flags.GetAll("property")) {
    size_t eq = property.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("option --property expects NAME=VALUE, got '" + property +
                                     "'");
    }
    options->client_properties.emplace_back(property.substr(0, eq), property.substr(eq + 1));
  }
  return Status::OK();
}

int RunProduce(const Flags& flags) {
  broker::ProduceOptions options;
  Status st = ParseOptions(flags, &options);
  if (!st.ok()) {
    std::fprintf(stderr, "weir: %s\n(see --help)\n", st.message().c_str());
    return 2;
  }
  Result<broker::ProduceReport> report = broker::ProduceSampleEvents(options);
  if (!report.ok()) return Fail(report.status());
  if (flags.Has("manifest")) {
    st = WriteFileAtomically(flags.Get("manifest"), broker::ManifestJson(*report));
    if (!st.ok()) return Fail(st);
  }
  const broker::EventCounts& c = report->counts;
  double seconds = report->seconds > 0 ? report->seconds : 1e-9;
  std::printf(
      "produced %llu events (%.1f MB) to %s in %.2f s (%.0f events/s): %llu distinct "
      "event ids, %llu duplicates, %llu malformed, %llu late, %zu partitions\n",
      static_cast<unsigned long long>(c.total), report->payload_bytes / 1e6, report->topic.c_str(),
      report->seconds, c.total / seconds, static_cast<unsigned long long>(c.distinct_event_ids()),
      static_cast<unsigned long long>(c.duplicates), static_cast<unsigned long long>(c.malformed),
      static_cast<unsigned long long>(c.late), report->partitions.size());
  return 0;
}

int ProduceMain(const std::vector<std::string>& args) {
  Flags flags(
      "weir produce --bootstrap HOST:PORT --topic T --count N [options]",
      "Sends N sample order events shaped like\n"
      R"(  {"event_id":"e1-1","order_id":"SO-1","status":"created","amount":"10.50",...,)"
      "\n"
      R"(   "event_time":"2026-06-08T09:00:00.000Z"})"
      "\n"
      "(about 220 bytes, key = order_id) and waits until the broker acknowledged every one.\n"
      "The same --seed gives the same events in the same partitions. Event time starts at\n"
      "2026-06-08T09:00:00Z + ((seed - 1) mod 1000) hours and advances 1 ms per event.\n"
      "Duplicates re-send a recent on-time event unchanged; malformed events are truncated\n"
      "JSON, plain text, a JSON array or an object without event_id; late events carry an\n"
      "event_time --late-by seconds behind the stream. Exits 2 naming the error if any event\n"
      "was not delivered.");
  flags.Value("bootstrap", "HOST:PORT", "bootstrap servers (required)");
  flags.Value("topic", "T", "topic to send to (required)");
  flags.Value("count", "N", "number of events (required)");
  flags.Value("rate", "R", "at most R events per second; 0 = as fast as possible", "0");
  flags.Value("duplicates", "F", "fraction of events that re-send an earlier event", "0");
  flags.Value("malformed", "F", "fraction of events without a usable event_id", "0");
  flags.Value("late", "F", "fraction of events with an old event_time", "0");
  flags.Value("late-by", "SECONDS", "how far behind the stream late events are", "7200");
  flags.Value("seed", "S", "seed of the deterministic event stream", "1");
  flags.Value("compression", "CODEC", "none, gzip, snappy, lz4 or zstd", "none");
  flags.Bool("headers", "add headers source=weir-produce and seq=<event sequence number>");
  flags.Value("partitions", "P",
              "send to partitions 0..P-1 by key hash (crc32, as librdkafka's default "
              "partitioner); 0 = all of the topic's partitions",
              "0");
  flags.Value("manifest", "FILE",
              "write a JSON manifest: per-partition counts and offsets, distinct event ids, "
              "duplicate/malformed/late counts, (partition, offset) of each malformed event");
  flags.Value("timeout", "SECONDS", "fail if an event is not acknowledged within this time", "30");
  flags.Repeated("property", "NAME=VALUE", "extra librdkafka producer setting");
  return RunWithFlags(flags, args, RunProduce);
}

}  // namespace

WEIR_REGISTER_COMMAND(produce_command, "produce",
                      "send sample order events (with duplicates, malformed, late) to a topic",
                      ProduceMain);

}  // namespace weir::cli
