#include "kafka/offset_audit.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <memory>
#include <cstdlib>
#include <numeric>
#include <set>

#include "kafka/client_conf.h"
#include "kafka/consumer.h"
#include "kafka/oauth.h"

namespace weir::kafka {

// ---------------------------------------------------------------------------------------------
// OffsetSet

void OffsetSet::Add(int64_t from, int64_t to) {
  if (from >= to) return;
  if (spans_.empty() || from > spans_.back().to) {  // the usual case: in order
    spans_.push_back({from, to});
    return;
  }
  // First span that ends at or after `from` (touching spans merge).
  auto first = std::lower_bound(spans_.begin(), spans_.end(), from,
                                [](const OffsetSpan& s, int64_t v) { return s.to < v; });
  auto last = first;
  while (last != spans_.end() && last->from <= to) {
    from = std::min(from, last->from);
    to = std::max(to, last->to);
    ++last;
  }
  first = spans_.erase(first, last);
  spans_.insert(first, OffsetSpan{from, to});
}

bool OffsetSet::Contains(int64_t offset) const {
  auto it = std::upper_bound(spans_.begin(), spans_.end(), offset,
                             [](int64_t v, const OffsetSpan& s) { return v < s.from; });
  return it != spans_.begin() && offset < std::prev(it)->to;
}

int64_t OffsetSet::NextChange(int64_t offset) const {
  auto it = std::upper_bound(spans_.begin(), spans_.end(), offset,
                             [](int64_t v, const OffsetSpan& s) { return v < s.from; });
  if (it != spans_.begin() && offset < std::prev(it)->to) return std::prev(it)->to;
  return it == spans_.end() ? std::numeric_limits<int64_t>::max() : it->from;
}

// ---------------------------------------------------------------------------------------------
// Classification

bool IsExplained(GapKind kind) {
  switch (kind) {
    case GapKind::kRetention:
    case GapKind::kMarker:
    case GapKind::kCompactedOrMarker:
    case GapKind::kNoRecord:
    case GapKind::kAborted:
      return true;
    default:
      return false;
  }
}

const char* GapKindName(GapKind kind) {
  switch (kind) {
    case GapKind::kRetention: return "retention";
    case GapKind::kMarker: return "transaction_marker";
    case GapKind::kCompactedOrMarker: return "compacted_or_marker";
    case GapKind::kNoRecord: return "no_record";
    case GapKind::kAborted: return "aborted_transaction";
    case GapKind::kCommitted: return "committed";
    case GapKind::kAbortedDelivered: return "aborted_read_uncommitted";
    case GapKind::kRecord: return "record";
    case GapKind::kOpenTransaction: return "open_transaction";
    case GapKind::kBeyondEnd: return "beyond_end";
    case GapKind::kUnverified: return "unverified";
  }
  return "unverified";
}

namespace {

GapKind KindAt(int64_t offset, const PartitionObservation& o, const GapContext& context) {
  if (o.log_start >= 0 && offset < o.log_start) return GapKind::kRetention;
  if (o.log_end >= 0 && offset >= o.log_end) return GapKind::kBeyondEnd;
  if (!o.uncommitted_read.Contains(offset)) return GapKind::kUnverified;
  if (!o.uncommitted_records.Contains(offset)) {
    // Control records are never delivered, in either isolation level; compaction removes records.
    if (!context.compacted) return GapKind::kNoRecord;
    return *context.compacted ? GapKind::kCompactedOrMarker : GapKind::kMarker;
  }
  if (o.committed_read.Contains(offset)) {
    if (o.committed_records.Contains(offset)) return GapKind::kCommitted;
    return context.flow_read_committed ? GapKind::kAborted : GapKind::kAbortedDelivered;
  }
  if (o.stable_end >= 0 && offset >= o.stable_end) return GapKind::kOpenTransaction;
  // A read_uncommitted flow would have read the record whatever its transaction did.
  return context.flow_read_committed ? GapKind::kUnverified : GapKind::kRecord;
}

std::string Plural(int64_t n, const std::string& word) { return n == 1 ? word : word + "s"; }

}  // namespace

std::vector<GapPart> ClassifyGap(int64_t from, int64_t to, const PartitionObservation& observed,
                                 const GapContext& context) {
  std::vector<GapPart> parts;
  int64_t x = from;
  while (x < to) {
    GapKind kind = KindAt(x, observed, context);
    int64_t next = to;
    for (int64_t t : {observed.log_start, observed.log_end, observed.stable_end}) {
      if (t > x) next = std::min(next, t);
    }
    for (const OffsetSet* s : {&observed.uncommitted_read, &observed.uncommitted_records,
                               &observed.committed_read, &observed.committed_records}) {
      next = std::min(next, s->NextChange(x));
    }
    if (!parts.empty() && parts.back().kind == kind && parts.back().to == x) {
      parts.back().to = next;
    } else {
      parts.push_back({x, next, kind});
    }
    x = next;
  }
  return parts;
}

std::string DescribeGapPart(const GapPart& part, const PartitionObservation& observed,
                            const GapContext& context) {
  const int64_t n = part.to - part.from;
  switch (part.kind) {
    case GapKind::kRetention:
      return "deleted by retention (log start offset " + std::to_string(observed.log_start) + ")";
    case GapKind::kMarker:
      return Plural(n, "transaction marker");
    case GapKind::kCompactedOrMarker:
      return "compacted away (or " + Plural(n, "transaction marker") + ")";
    case GapKind::kNoRecord:
      return "no record at the broker (" + Plural(n, "transaction marker") +
             " or compacted away)";
    case GapKind::kAborted:
      return "aborted transaction";
    case GapKind::kCommitted:
      return Plural(n, "committed record") + " the broker still has";
    case GapKind::kAbortedDelivered:
      return Plural(n, "record") +
             " of aborted transactions, which the flow reads (isolation.level=read_uncommitted)";
    case GapKind::kRecord:
      return Plural(n, "record") + " the broker still has";
    case GapKind::kOpenTransaction:
      return Plural(n, "record") + " of a transaction still open (at or above the last stable offset " +
             std::to_string(observed.stable_end) + ")";
    case GapKind::kBeyondEnd:
      return "beyond the partition's latest offset " + std::to_string(observed.log_end) +
             " (was the topic recreated?)";
    case GapKind::kUnverified:
      return "unverified: " + (observed.unverified_reason.empty() ? std::string("not read from the broker")
                                                                   : observed.unverified_reason);
  }
  return "";
}

std::vector<OffsetSpan> PlanReadSpans(const std::vector<OffsetSpan>& gaps, int64_t merge_records) {
  if (gaps.empty()) return {};
  // Merge the closest neighbours first, while the table offsets read in between stay in budget.
  std::vector<size_t> order(gaps.size() - 1);
  std::iota(order.begin(), order.end(), 0);
  auto separation = [&](size_t i) { return gaps[i + 1].from - gaps[i].to; };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return separation(a) < separation(b); });
  std::vector<bool> merged(gaps.size(), false);  // merged[i]: gap i joins gap i + 1
  int64_t spent = 0;
  for (size_t i : order) {
    if (spent + separation(i) > merge_records) break;
    spent += separation(i);
    merged[i] = true;
  }
  std::vector<OffsetSpan> spans;
  for (size_t i = 0; i < gaps.size(); ++i) {
    if (i > 0 && merged[i - 1]) {
      spans.back().to = gaps[i].to;
    } else {
      spans.push_back(gaps[i]);
    }
  }
  return spans;
}

// ---------------------------------------------------------------------------------------------
// Asking the broker

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Whether `offset` lies in one of `gaps` (sorted, disjoint).
bool InGaps(const std::vector<OffsetSpan>& gaps, int64_t offset) {
  auto it = std::upper_bound(gaps.begin(), gaps.end(), offset,
                             [](int64_t v, const OffsetSpan& s) { return v < s.from; });
  return it != gaps.begin() && offset < std::prev(it)->to;
}

// The options of one audit read: the flow's connection settings, `topic` as the subscription,
// the given isolation level, failOnDataLoss=false (retention is told apart by the log start
// offset), and a shorter poll timeout unless one was set.
Result<KafkaSourceOptions> AuditOptions(const std::map<std::string, std::string>& given,
                                        const std::vector<std::string>& secrets,
                                        const std::string& topic, const char* isolation,
                                        const AuditLimits& limits) {
  static const char* const kReplaced[] = {
      "subscribe", "subscribepattern", "assign", "startingoffsets", "startingoffsetsbytimestamp",
      "startingtimestamp", "startingoffsetsbytimestampstrategy", "endingoffsets",
      "endingoffsetsbytimestamp", "endingtimestamp", "failondataloss", "kafka.isolation.level",
      "weir.commitoffsetstogroup", "maxoffsetspertrigger", "minoffsetspertrigger",
      "maxtriggerdelay"};
  std::map<std::string, std::string> options;
  bool poll_timeout = false;
  for (const auto& [name, value] : given) {
    const std::string lower = Lower(name);
    if (std::find(std::begin(kReplaced), std::end(kReplaced), lower) != std::end(kReplaced)) continue;
    if (lower == "kafkaconsumer.polltimeoutms") poll_timeout = true;
    options[name] = value;
  }
  options["subscribe"] = topic;
  options["failOnDataLoss"] = "false";
  options["kafka.isolation.level"] = isolation;
  if (!poll_timeout) options["kafkaConsumer.pollTimeoutMs"] = std::to_string(limits.poll_timeout_ms);
  auto parsed = KafkaSourceOptions::Parse(options, QueryKind::kStreaming);
  if (!parsed.ok()) {
    Redactor redactor;
    for (const auto& s : secrets) redactor.AddSecret(s);
    return redactor.Scrub(parsed.status());
  }
  for (const auto& s : secrets) parsed->redactor.AddSecret(s);
  return parsed;
}

struct AdminContext {
  std::shared_ptr<OAuthTokenSource> tokens;
  const Redactor* redactor = nullptr;
};

void AdminTokenRefresh(rd_kafka_t* rk, const char* /*config*/, void* opaque) {
  auto* context = static_cast<AdminContext*>(opaque);
  (void)RefreshOAuthBearerToken(rk, *context->tokens, *context->redactor);
}

void IgnoreLog(const rd_kafka_t*, int, const char*, const char*) {}

// The topic's cleanup.policy (DescribeConfigs).
Result<std::string> DescribeCleanupPolicy(const KafkaSourceOptions& options,
                                          std::shared_ptr<OAuthTokenSource> tokens,
                                          const std::string& topic, int timeout_ms) {
  AdminContext context{std::move(tokens), &options.redactor};
  WEIR_ASSIGN_OR_RETURN(rd_kafka_conf_t * conf,
                        NewClientConf(options, options.MakeGroupId(), {},
                                      {{"client.id", "weir-validate"}}));
  rd_kafka_conf_set_opaque(conf, &context);
  rd_kafka_conf_set_log_cb(conf, &IgnoreLog);
  if (context.tokens) rd_kafka_conf_set_oauthbearer_token_refresh_cb(conf, &AdminTokenRefresh);
  WEIR_ASSIGN_OR_RETURN(rd_kafka_t * rk,
                        NewConsumerClient(conf, "for DescribeConfigs", context.tokens != nullptr,
                                          options.redactor));
  rd_kafka_ConfigResource_t* resource =
      rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic.c_str());
  rd_kafka_AdminOptions_t* admin = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS);
  char errstr[256];
  rd_kafka_AdminOptions_set_request_timeout(admin, timeout_ms, errstr, sizeof(errstr));
  rd_kafka_queue_t* queue = rd_kafka_queue_new(rk);
  rd_kafka_DescribeConfigs(rk, &resource, 1, admin, queue);
  rd_kafka_event_t* event = rd_kafka_queue_poll(queue, timeout_ms + 2000);
  Result<std::string> result = Status::Unavailable("no answer within " + std::to_string(timeout_ms) + " ms");
  if (event != nullptr) {
    if (rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR) {
      result = Status::Unavailable(rd_kafka_event_error_string(event));
    } else if (const auto* described = rd_kafka_event_DescribeConfigs_result(event)) {
      size_t count = 0;
      const rd_kafka_ConfigResource_t** resources =
          rd_kafka_DescribeConfigs_result_resources(described, &count);
      result = Status::NotFound("no cleanup.policy in the answer");
      for (size_t i = 0; i < count; ++i) {
        if (rd_kafka_ConfigResource_error(resources[i]) != RD_KAFKA_RESP_ERR_NO_ERROR) {
          const char* text = rd_kafka_ConfigResource_error_string(resources[i]);
          result = Status::Unavailable(
              text != nullptr ? text : rd_kafka_err2str(rd_kafka_ConfigResource_error(resources[i])));
          continue;
        }
        size_t entries = 0;
        const rd_kafka_ConfigEntry_t** configs = rd_kafka_ConfigResource_configs(resources[i], &entries);
        for (size_t e = 0; e < entries; ++e) {
          if (std::string(rd_kafka_ConfigEntry_name(configs[e])) == "cleanup.policy") {
            const char* value = rd_kafka_ConfigEntry_value(configs[e]);
            result = std::string(value != nullptr ? value : "");
          }
        }
      }
    }
    rd_kafka_event_destroy(event);
  }
  rd_kafka_queue_destroy(queue);
  rd_kafka_AdminOptions_destroy(admin);
  rd_kafka_ConfigResource_destroy(resource);
  rd_kafka_destroy_flags(rk, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
  if (!result.ok()) return options.redactor.Scrub(result.status());
  return result;
}

// Reads `spans` (per partition, in order) round by round with `source`: offsets read go to
// `read_of(p)`, records that fall in the partition's gaps to `records_of(p)`. Stops at the
// record budget or the first failed read, leaving the reason with the partitions not finished.
template <typename ReadSet, typename RecordSet>
void ReadRounds(KafkaSource& source, const std::string& topic,
                const std::map<int32_t, std::vector<OffsetSpan>>& spans,
                const std::map<int32_t, std::vector<OffsetSpan>>& gaps,
                BrokerObservation& out, const AuditLimits& limits, ReadSet read_of,
                RecordSet records_of, const char* what) {
  size_t rounds = 0;
  for (const auto& [p, s] : spans) rounds = std::max(rounds, s.size());
  std::string stop_reason;
  for (size_t r = 0; r < rounds; ++r) {
    std::vector<OffsetRange> ranges;
    for (const auto& [p, s] : spans) {
      if (r < s.size() && stop_reason.empty()) ranges.push_back({{topic, p}, s[r].from, s[r].to});
    }
    if (ranges.empty()) break;
    auto reader = source.Read(ranges);
    std::string failure;
    if (!reader.ok()) {
      failure = reader.status().message();
    } else {
      while (!(*reader)->done()) {
        if (out.records_read >= limits.max_records) {
          stop_reason = "the limit of " + std::to_string(limits.max_records) +
                        " records read from the broker was reached";
          break;
        }
        auto batch = (*reader)->Next(static_cast<size_t>(
            std::clamp<int64_t>(limits.max_records - out.records_read, 1, 10000)));
        if (!batch.ok()) {
          failure = batch.status().message();
          break;
        }
        out.records_read += static_cast<int64_t>(batch->size());
        for (const RecordView& v : *batch) {
          auto g = gaps.find(v.partition);
          if (g != gaps.end() && InGaps(g->second, v.offset)) records_of(v.partition).Add(v.offset);
        }
      }
      PartitionOffsets reached = (*reader)->positions();
      for (const OffsetRange& range : ranges) {
        auto it = reached.find(range.tp);
        if (it != reached.end()) read_of(range.tp.partition).Add(range.from, it->second);
      }
    }
    if (!failure.empty()) {
      stop_reason = std::string("the ") + what + " read failed: " + failure;
    }
    if (!stop_reason.empty()) break;
  }
  if (stop_reason.empty()) return;
  for (auto& [p, o] : out.partitions) {
    if (o.unverified_reason.empty()) o.unverified_reason = source.options().redactor.Scrub(stop_reason);
  }
}

}  // namespace

Result<BrokerObservation> ObserveGaps(const std::map<std::string, std::string>& options,
                                      const std::vector<std::string>& secrets,
                                      const std::string& topic,
                                      const std::map<int32_t, std::vector<OffsetSpan>>& gaps,
                                      const AuditLimits& limits) {
  WEIR_ASSIGN_OR_RETURN(KafkaSourceOptions uncommitted,
                        AuditOptions(options, secrets, topic, "read_uncommitted", limits));
  WEIR_ASSIGN_OR_RETURN(KafkaSourceOptions committed,
                        AuditOptions(options, secrets, topic, "read_committed", limits));
  KafkaSourceConfig config;
  config.request_timeout_ms = limits.request_timeout_ms;
  if (auto t = uncommitted.ClientConfig("socket.timeout.ms")) {
    config.request_timeout_ms = std::max(1, std::atoi(t->c_str()));
  }
  if (uncommitted.oauth) {  // one token source for the three clients
    WEIR_ASSIGN_OR_RETURN(config.token_source,
                          MakeTokenSource(*uncommitted.oauth, uncommitted.redactor,
                                          config.request_timeout_ms));
  }
  const Redactor& redactor = uncommitted.redactor;
  BrokerObservation out;
  WEIR_ASSIGN_OR_RETURN(std::unique_ptr<KafkaSource> ru, KafkaSource::Open(uncommitted, config));
  WEIR_ASSIGN_OR_RETURN(std::set<TopicPartition> existing, ru->ListPartitions());
  std::set<TopicPartition> asked;
  for (const auto& [p, g] : gaps) {
    PartitionObservation& o = out.partitions[p];
    if (existing.count({topic, p}) == 0) {
      o.unverified_reason = "the topic " + topic + " has no partition " + std::to_string(p);
    } else {
      asked.insert({topic, p});
    }
  }
  if (asked.empty()) return out;

  auto policy = DescribeCleanupPolicy(uncommitted, config.token_source, topic, config.request_timeout_ms);
  if (policy.ok()) {
    out.cleanup_policy = *policy;
    out.compacted = Lower(*policy).find("compact") != std::string::npos;
  } else {
    out.notes.push_back("cleanup.policy of " + topic + " unknown (DescribeConfigs: " +
                        policy.status().message() + "): offsets without a record are named "
                        "as markers or compacted");
  }

  WEIR_ASSIGN_OR_RETURN(PartitionOffsets earliest, ru->EarliestOffsets(asked));
  WEIR_ASSIGN_OR_RETURN(PartitionOffsets latest, ru->LatestOffsets(asked));
  WEIR_ASSIGN_OR_RETURN(std::unique_ptr<KafkaSource> rc, KafkaSource::Open(committed, config));
  WEIR_ASSIGN_OR_RETURN(PartitionOffsets stable, rc->LatestOffsets(asked));

  // Read spans: gaps merged, clamped to what the log holds, at most max_rounds per partition.
  std::map<int32_t, std::vector<OffsetSpan>> spans;
  for (const TopicPartition& tp : asked) {
    PartitionObservation& o = out.partitions[tp.partition];
    o.log_start = earliest.count(tp) ? earliest[tp] : -1;
    o.log_end = latest.count(tp) ? latest[tp] : -1;
    o.stable_end = stable.count(tp) ? stable[tp] : -1;
    std::vector<OffsetSpan>& s = spans[tp.partition];
    for (OffsetSpan span : PlanReadSpans(gaps.at(tp.partition), limits.merge_records)) {
      span.from = std::max(span.from, o.log_start);
      if (o.log_end >= 0) span.to = std::min(span.to, o.log_end);
      if (span.from < span.to) s.push_back(span);
    }
    if (s.size() > static_cast<size_t>(limits.max_rounds)) {
      s.resize(static_cast<size_t>(limits.max_rounds));
      o.unverified_reason = "more than " + std::to_string(limits.max_rounds) +
                            " separate gap ranges; those after offset " +
                            std::to_string(s.back().to) + " were not read";
    }
  }

  ReadRounds(
      *ru, topic, spans, gaps, out, limits,
      [&](int32_t p) -> OffsetSet& { return out.partitions[p].uncommitted_read; },
      [&](int32_t p) -> OffsetSet& { return out.partitions[p].uncommitted_records; },
      "read_uncommitted");
  ru.reset();

  // read_committed only where read_uncommitted showed records, below the last stable offset.
  std::map<int32_t, std::vector<OffsetSpan>> committed_spans;
  for (const auto& [p, s] : spans) {
    const PartitionObservation& o = out.partitions[p];
    for (const OffsetSpan& span : s) {
      int64_t first = -1, last = -1;
      for (const OffsetSpan& r : o.uncommitted_records.spans()) {
        if (r.to <= span.from || r.from >= span.to) continue;
        if (first < 0) first = std::max(r.from, span.from);
        last = std::min(r.to, span.to);
      }
      if (o.stable_end >= 0) last = std::min(last, o.stable_end);
      if (first >= 0 && first < last) committed_spans[p].push_back({first, last});
    }
  }
  ReadRounds(
      *rc, topic, committed_spans, gaps, out, limits,
      [&](int32_t p) -> OffsetSet& { return out.partitions[p].committed_read; },
      [&](int32_t p) -> OffsetSet& { return out.partitions[p].committed_records; },
      "read_committed");

  // Retention may have moved on while we read: offsets it took since are retention's.
  if (auto after = rc->EarliestOffsets(asked); after.ok()) {
    for (const auto& [tp, offset] : *after) {
      auto& o = out.partitions[tp.partition];
      o.log_start = std::max(o.log_start, offset);
    }
  }
  for (auto& [p, o] : out.partitions) o.unverified_reason = redactor.Scrub(o.unverified_reason);
  return out;
}

}  // namespace weir::kafka
