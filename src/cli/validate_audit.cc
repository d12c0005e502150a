#include "cli/validate_audit.h"

#include <charconv>
#include <fstream>
#include <set>

#include "base/text.h"
#include "cli/file_systems.h"
#include "kafka/options.h"
#include "sql/pipeline.h"

namespace weir::cli {
namespace {

using Options = std::map<std::string, std::string>;

// Sets `name` (Spark's option names are case-insensitive: any spelling of it is replaced).
void SetOption(Options& options, const std::string& name, const std::string& value) {
  const std::string lower = AsciiLower(name);
  for (auto it = options.begin(); it != options.end();) {
    it = AsciiLower(it->first) == lower ? options.erase(it) : std::next(it);
  }
  options[name] = value;
}

bool HasOption(const Options& options, const std::string& lower_name) {
  for (const auto& [name, value] : options) {
    if (AsciiLower(name) == lower_name) return true;
  }
  return false;
}

// The read_kafka options of the pipeline's flow that writes `table_path`.
Status PipelineOptions(const Flags& flags, const std::string& table_path, Options* options,
                       std::vector<std::string>* secrets, std::string* flow) {
  const std::string path = flags.Get("pipeline");
  WEIR_ASSIGN_OR_RETURN(std::string text, ReadText(path));
  sql::Variables vars;
  for (const auto& kv : flags.GetAll("set")) {
    size_t eq = kv.find('=');
    if (eq != std::string::npos && eq > 0) vars[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  sql::SecretResolver resolver;
  if (flags.Has("secrets")) {
    WEIR_ASSIGN_OR_RETURN(std::string json, ReadText(flags.Get("secrets")));
    WEIR_RETURN_NOT_OK(resolver.AddSecretsJson(json, flags.Get("secrets")));
  }
  auto pipeline = sql::ParsePipeline(text, vars, resolver);
  if (!pipeline.ok()) return pipeline.status().WithContext(path);
  std::string root = table_path;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  std::vector<const sql::StreamingTableDefinition*> kafka_flows, matches;
  std::string names;
  for (const auto& def : pipeline->tables) {
    if (def.source_kind != sql::FromClause::Kind::kReadKafka) continue;
    kafka_flows.push_back(&def);
    names += (names.empty() ? "" : ", ") + def.name.ToString();
    if (flags.Has("flow")) {
      const std::string wanted = AsciiLower(flags.Get("flow"));
      if (def.name.ToString() == wanted || def.name.table == wanted) matches.push_back(&def);
    } else {
      const std::string rel = def.name.RelativePath();
      if (root == rel || (root.size() > rel.size() &&
                          root.compare(root.size() - rel.size(), rel.size(), rel) == 0 &&
                          root[root.size() - rel.size() - 1] == '/')) {
        matches.push_back(&def);
      }
    }
  }
  if (kafka_flows.empty()) {
    return Status::InvalidArgument(path + " has no flow reading read_kafka");
  }
  if (matches.empty() && !flags.Has("flow") && kafka_flows.size() == 1) matches = kafka_flows;
  if (matches.size() != 1) {
    return Status::InvalidArgument(
        (flags.Has("flow") ? path + " has no read_kafka flow named '" + flags.Get("flow") + "'"
                           : "no read_kafka flow of " + path + " writes " + root) +
        " (its read_kafka flows: " + names + "): name one with --flow");
  }
  *flow = matches[0]->name.ToString();
  for (const auto& [name, value] : matches[0]->kafka_options) {
    // read_kafka's names as Spark's Kafka source names them (stream/sql_flow.cc).
    std::string spark = name == "bootstrapServers"    ? "kafka.bootstrap.servers"
                        : name == "serviceCredential" ? "databricks.serviceCredential"
                                                      : name;
    SetOption(*options, spark, value.Reveal());
    if (value.is_secret()) secrets->push_back(value.Reveal());
  }
  return Status::OK();
}

Status CommandLineOptions(const Flags& flags, Options* options) {
  auto add = [&](const std::string& item, const std::string& where) -> Status {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument(where + " expects NAME=VALUE, got '" +
                                     item.substr(0, item.find('=')) + "'");
    }
    SetOption(*options, item.substr(0, eq), item.substr(eq + 1));
    return Status::OK();
  };
  if (flags.Has("option-file")) {
    std::ifstream in(flags.Get("option-file"));
    if (!in) return Status::IOError("cannot read option file " + flags.Get("option-file"));
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      size_t first = line.find_first_not_of(" \t");
      if (first == std::string::npos || line[first] == '#') continue;
      WEIR_RETURN_NOT_OK(add(line.substr(first), "option file " + flags.Get("option-file")));
    }
  }
  for (const auto& item : flags.GetAll("option")) WEIR_RETURN_NOT_OK(add(item, "--option"));
  if (flags.Has("bootstrap-servers")) {
    SetOption(*options, "kafka.bootstrap.servers", flags.Get("bootstrap-servers"));
  }
  return Status::OK();
}

// Topics the table's weir progress txns ("weir:<flow>:<topic>:<partition>") name, of `flow` if
// it is known.
std::set<std::string> TableTopics(const delta::Snapshot& snapshot, const std::string& flow) {
  std::set<std::string> topics;
  for (const auto& [app_id, txn] : snapshot.transactions()) {
    if (app_id.rfind("weir:", 0) != 0) continue;
    std::string rest = app_id.substr(5);
    size_t colon = rest.find(':');
    if (colon == std::string::npos) continue;
    if (!flow.empty() && rest.substr(0, colon) != flow) continue;
    std::string tp = rest.substr(colon + 1);
    size_t last = tp.rfind(':');
    if (last == std::string::npos || last == 0) continue;
    topics.insert(tp.substr(0, last));
  }
  return topics;
}

std::string Join(const std::set<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

}  // namespace

void AddGapAuditFlags(Flags& flags) {
  flags.Value("pipeline", "FILE",
              "the pipeline file whose read_kafka options reach the table's source: gaps are then "
              "named at the broker (${name} and secret() values from --set / --secrets, as weir run)");
  flags.Value("flow", "TABLE",
              "with --pipeline: the streaming table whose read_kafka to use (default: the one "
              "stored at PATH, else the pipeline's only read_kafka flow)");
  flags.Repeated("option", "NAME=VALUE",
                 "a Kafka source option as weir kafka read takes it (wins over the pipeline's), "
                 "e.g. kafka.bootstrap.servers, eventhubs.connectionString, "
                 "kafka.isolation.level=read_committed for a read_committed flow");
  flags.Value("option-file", "FILE",
              "read NAME=VALUE option lines from FILE (# comments allowed); keeps secrets off "
              "the command line");
  flags.Value("bootstrap-servers", "HOST:PORT", "shorthand for --option kafka.bootstrap.servers=...");
  flags.Value("topic", "NAME",
              "the topic the table holds (default: the options' single topic, else the one the "
              "table's weir progress names)");
  flags.Value("broker-max-records", "N",
              "read at most N records from the broker over all gaps; offsets beyond stay "
              "unverified gaps",
              "100000");
}

bool GapAuditRequested(const Flags& flags) {
  for (const char* name : {"pipeline", "option", "option-file", "bootstrap-servers", "topic"}) {
    if (flags.Has(name)) return true;
  }
  return false;
}

Status CheckGapAuditFlags(const Flags& flags) {
  auto max = flags.GetInt("broker-max-records");
  if (!max.ok() || *max <= 0) {
    return Status::InvalidArgument("--broker-max-records expects a positive count, got '" +
                                   flags.Get("broker-max-records") + "'");
  }
  if (flags.Has("flow") && !flags.Has("pipeline")) {
    return Status::InvalidArgument("--flow names a flow of --pipeline FILE, which is missing");
  }
  return Status::OK();
}

std::string GapAudit::Describe(const std::string& partition, const kafka::GapPart& part) const {
  auto it = observations.find(partition);
  static const kafka::PartitionObservation kNone;
  return kafka::DescribeGapPart(part, it == observations.end() ? kNone : it->second, context);
}

GapAudit AuditGaps(const Flags& flags, const std::string& table_path,
                   const delta::Snapshot& snapshot,
                   const std::map<std::string, std::vector<kafka::OffsetSpan>>& gaps) {
  GapAudit audit;
  Options options;
  std::vector<std::string> secrets;
  kafka::Redactor redactor;  // every secret we know of, for the messages made here
  auto fail = [&](const Status& st) {
    for (const auto& s : secrets) redactor.AddSecret(s);
    for (const auto& [name, value] : options) {
      if (kafka::Redactor::IsSecretName(name)) redactor.AddSecret(value);
    }
    audit.error = redactor.Scrub(st.ToString());
    return audit;
  };
  std::string flow;
  if (flags.Has("pipeline")) {
    if (Status st = PipelineOptions(flags, table_path, &options, &secrets, &flow); !st.ok()) {
      return fail(st);
    }
  }
  if (Status st = CommandLineOptions(flags, &options); !st.ok()) return fail(st);
  const std::set<std::string> table_topics = TableTopics(snapshot, flow);
  if (flags.Has("topic")) {
    audit.topic = flags.Get("topic");
  } else if (!HasOption(options, "subscribe") && !HasOption(options, "subscribepattern") &&
             !HasOption(options, "assign") && table_topics.size() == 1) {
    audit.topic = *table_topics.begin();
  }
  if (!audit.topic.empty()) SetOption(options, "subscribe", audit.topic);
  auto parsed = kafka::KafkaSourceOptions::Parse(options, kafka::QueryKind::kStreaming);
  if (!parsed.ok()) return fail(parsed.status().WithContext("the source's options"));
  for (const auto& s : secrets) parsed->redactor.AddSecret(s);
  audit.bootstrap = parsed->BootstrapServers();
  const auto isolation = parsed->ClientConfig("isolation.level");
  audit.context.flow_read_committed = isolation && AsciiLower(*isolation) == "read_committed";
  if (audit.topic.empty()) {
    const kafka::Subscription& sub = parsed->subscription;
    std::set<std::string> topics;
    if (sub.kind == kafka::Subscription::Kind::kSubscribe) topics.insert(sub.topics.begin(), sub.topics.end());
    if (sub.kind == kafka::Subscription::Kind::kAssign) {
      for (const auto& tp : sub.partitions) topics.insert(tp.topic);
    }
    if (topics.size() != 1) {
      if (table_topics.size() == 1) {
        topics = table_topics;
      } else {
        return fail(Status::InvalidArgument(
            "the source reads " + sub.ToString() +
            (table_topics.empty() ? std::string() : " and the table holds " + Join(table_topics)) +
            ": name the table's topic with --topic"));
      }
    }
    audit.topic = *topics.begin();
  }

  kafka::AuditLimits limits;
  if (auto max = flags.GetInt("broker-max-records"); max.ok() && *max > 0) limits.max_records = *max;
  std::map<int32_t, std::vector<kafka::OffsetSpan>> by_number;
  std::map<int32_t, std::string> names;
  for (const auto& [partition, spans] : gaps) {
    int32_t number = -1;
    auto [end, ec] = std::from_chars(partition.data(), partition.data() + partition.size(), number);
    if (ec != std::errc() || end != partition.data() + partition.size() || number < 0) {
      audit.observations[partition].unverified_reason =
          "'" + partition + "' is not a Kafka partition number";
      continue;
    }
    by_number[number] = spans;
    names[number] = partition;
  }
  if (!by_number.empty()) {
    auto seen = kafka::ObserveGaps(options, secrets, audit.topic, by_number, limits);
    if (!seen.ok()) return fail(seen.status());
    for (auto& [number, observed] : seen->partitions) {
      audit.observations[names[number]] = std::move(observed);
    }
    audit.context.compacted = seen->compacted;
    audit.cleanup_policy = seen->cleanup_policy;
    audit.notes = seen->notes;
    audit.records_read = seen->records_read;
  }
  audit.consulted = true;
  for (const auto& [partition, spans] : gaps) {
    std::vector<kafka::GapPart>& parts = audit.parts[partition];
    const kafka::PartitionObservation& observed = audit.observations[partition];
    for (const kafka::OffsetSpan& gap : spans) {
      for (const kafka::GapPart& part : kafka::ClassifyGap(gap.from, gap.to, observed, audit.context)) {
        parts.push_back(part);
      }
    }
  }
  return audit;
}

}  // namespace weir::cli
