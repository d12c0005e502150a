#include "kafka/consumer.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <thread>

// libstdc++ 12's <regex> trips -Wmaybe-uninitialized at -O1 (a false positive).
#pragma GCC diagnostic push
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <regex>
#pragma GCC diagnostic pop

#include "base/text.h"
#include "kafka/client_conf.h"
#include "kafka/fetch_waker.h"
#include "kafka/oauth.h"
#include "kafka/rdkafka_errors.h"

namespace weir::kafka {

// subscribePattern as Spark applies it: an unanchored search over topic names.
class TopicPattern {
 public:
  explicit TopicPattern(const std::string& pattern) : regex_(pattern, std::regex::ECMAScript) {}
  bool Matches(const std::string& topic) const { return std::regex_search(topic, regex_); }

 private:
  std::regex regex_;
};

namespace {

constexpr size_t kMaxLogLines = 200;


// RAII for rd_kafka_topic_partition_list_t.
struct PartitionList {
  rd_kafka_topic_partition_list_t* list;
  explicit PartitionList(int size) : list(rd_kafka_topic_partition_list_new(size)) {}
  ~PartitionList() { rd_kafka_topic_partition_list_destroy(list); }
  PartitionList(const PartitionList&) = delete;
  PartitionList& operator=(const PartitionList&) = delete;
  rd_kafka_topic_partition_t* Add(const TopicPartition& tp, int64_t offset) {
    rd_kafka_topic_partition_t* p =
        rd_kafka_topic_partition_list_add(list, tp.topic.c_str(), tp.partition);
    p->offset = offset;
    return p;
  }
};

struct MetadataHolder {
  const rd_kafka_metadata_t* md = nullptr;
  ~MetadataHolder() {
    if (md != nullptr) rd_kafka_metadata_destroy(md);
  }
};

std::optional<std::string_view> Bytes(const void* data, size_t size) {
  if (data == nullptr) return std::nullopt;
  return std::string_view(static_cast<const char*>(data), size);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// RecordView / RecordBatch

size_t RecordView::header_count() const {
  return headers == nullptr ? 0 : rd_kafka_header_cnt(headers);
}

HeaderView RecordView::header(size_t i) const {
  const char* name = nullptr;
  const void* value = nullptr;
  size_t size = 0;
  HeaderView out;
  if (rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    out.key = name == nullptr ? std::string_view() : std::string_view(name);
    out.value = Bytes(value, size);
  }
  return out;
}

RecordBatch::RecordBatch(RecordBatch&& other) noexcept
    : records_(std::move(other.records_)),
      messages_(std::move(other.messages_)),
      payload_bytes_(other.payload_bytes_) {
  other.records_.clear();
  other.messages_.clear();
  other.payload_bytes_ = 0;
}

RecordBatch& RecordBatch::operator=(RecordBatch&& other) noexcept {
  if (this != &other) {
    Release();
    records_ = std::move(other.records_);
    messages_ = std::move(other.messages_);
    payload_bytes_ = other.payload_bytes_;
    other.records_.clear();
    other.messages_.clear();
    other.payload_bytes_ = 0;
  }
  return *this;
}

RecordBatch::~RecordBatch() { Release(); }

void RecordBatch::Release() {
  records_.clear();
  for (rd_kafka_message_t* m : messages_) rd_kafka_message_destroy(m);
  messages_.clear();
  payload_bytes_ = 0;
}

// ---------------------------------------------------------------------------------------------
// KafkaSource

KafkaSource::KafkaSource(KafkaSourceOptions options, KafkaSourceConfig config)
    : options_(std::move(options)), config_(std::move(config)) {
  // The user's request timeout bounds offset and metadata lookups too, so that an unreachable
  // broker surfaces as Unavailable within it (and the flow shows as retrying).
  if (std::optional<std::string> timeout = options_.ClientConfig("socket.timeout.ms")) {
    Result<int64_t> ms = ParseInt64(*timeout, "socket.timeout.ms");
    if (ms.ok() && *ms > 0 && *ms <= INT32_MAX) config_.request_timeout_ms = static_cast<int>(*ms);
  }
}

KafkaSource::~KafkaSource() {
  waker_.reset();  // before the client it uses
  for (auto& [tp, slot] : assignment_) DropCarry(&slot);
  if (queue_ != nullptr) rd_kafka_queue_destroy(queue_);
  for (rd_kafka_t* rk : {rk_, lookup_rk_}) {
    if (rk == nullptr) continue;
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
  }
}

FetchWaker& KafkaSource::Waker() {
  if (!waker_) waker_ = std::make_unique<FetchWaker>(rk_);
  return *waker_;
}

int64_t KafkaSource::NowMs() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void KafkaSource::AddLog(std::string line) {
  std::lock_guard<std::mutex> lock(log_mutex_);
  log_.push_back(options_.redactor.Scrub(line));
  if (log_.size() <= kMaxLogLines) return;
  // Over the limit: the oldest librdkafka debug line goes first (kafka.debug floods the log), so
  // errors and warnings — the evidence `weir kafka check` diagnoses from — stay.
  auto is_debug = [](const std::string& l) {
    return l.starts_with("librdkafka ") && !l.starts_with("librdkafka error ") &&
           !l.starts_with("librdkafka warning ");
  };
  auto oldest_debug = std::find_if(log_.begin(), log_.end(), is_debug);
  log_.erase(oldest_debug != log_.end() ? oldest_debug : log_.begin());
}

void KafkaSource::LogCallback(const rd_kafka_t* rk, int level, const char* facility,
                              const char* buf) {
  auto* self = static_cast<KafkaSource*>(rd_kafka_opaque(rk));
  if (self == nullptr) return;
  self->AddLog(std::string("librdkafka ") + (level <= 3 ? "error " : level <= 4 ? "warning " : "") +
               facility + ": " + buf);
}

void KafkaSource::ErrorCallback(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
  auto* self = static_cast<KafkaSource*>(opaque);
  if (self == nullptr) return;
  std::string line = std::string(rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(err))) +
                     ": " + reason;
  line = self->options_.redactor.Scrub(line);
  {
    std::lock_guard<std::mutex> lock(self->log_mutex_);
    self->last_error_ = line;
    if (IsAuthOrConfigKafkaError(static_cast<rd_kafka_resp_err_t>(err))) {
      self->permanent_error_ = line;
    }
  }
  self->AddLog("librdkafka error " + line);
}

void KafkaSource::TokenRefreshCallback(rd_kafka_t* rk, const char* /*config*/, void* opaque) {
  auto* self = static_cast<KafkaSource*>(opaque);
  bool permanent = false;
  std::string failure = RefreshOAuthBearerToken(rk, *self->config_.token_source,
                                                self->options_.redactor, &permanent);
  if (failure.empty()) return;
  self->AddLog(failure);
  std::lock_guard<std::mutex> lock(self->log_mutex_);
  self->last_error_ = failure;
  if (permanent) self->permanent_error_ = failure;
}

Result<std::unique_ptr<KafkaSource>> KafkaSource::Open(KafkaSourceOptions options,
                                                       KafkaSourceConfig config) {
  std::unique_ptr<KafkaSource> source(new KafkaSource(std::move(options), std::move(config)));
  WEIR_RETURN_NOT_OK(source->Init());
  return source;
}

Status KafkaSource::Init() {
  if (options_.subscription.kind == Subscription::Kind::kSubscribePattern) {
    try {
      pattern_ = std::make_unique<TopicPattern>(options_.subscription.pattern);
    } catch (const std::regex_error& e) {
      return Status::InvalidArgument("subscribePattern '" + options_.subscription.pattern +
                                     "' is not a valid regular expression: " + e.what());
    }
  }
  if (options_.oauth && !config_.token_source) {
    WEIR_ASSIGN_OR_RETURN(config_.token_source,
                          MakeTokenSource(*options_.oauth, options_.redactor,
                                          config_.request_timeout_ms));
  }
  group_id_ = options_.MakeGroupId();

  WEIR_ASSIGN_OR_RETURN(rk_, NewClient(""));
  rd_kafka_poll_set_consumer(rk_);
  queue_ = rd_kafka_queue_get_consumer(rk_);
  // Wake the fetchers once the queue is half as long as the length at which they stop.
  char value[32];
  size_t size = sizeof(value);
  if (rd_kafka_conf_get(rd_kafka_conf(rk_), "queued.min.messages", value, &size) ==
      RD_KAFKA_CONF_OK) {
    wake_below_ = std::max<int64_t>(1, std::atoll(value) / 2);
  }
  return Status::OK();
}

Result<rd_kafka_t*> KafkaSource::NewClient(const std::string& what) {
  // Offsets are weir's business: nothing is reset behind its back, and the end of a partition is
  // reported so reads of compacted/transactional tails finish. A fetch waiting for data at a
  // range's end delays the next batch's first fetch: keep the broker-side wait short unless the
  // user chose one. Spark's Kafka consumer reads uncommitted records unless
  // kafka.isolation.level=read_committed is set (the Java client's default); librdkafka's default
  // is read_committed, so weir sets Spark's.
  WEIR_ASSIGN_OR_RETURN(
      rd_kafka_conf_t * conf,
      NewClientConf(options_, group_id_,
                    {{"auto.offset.reset", "error"}, {"enable.partition.eof", "true"}},
                    {{"client.id", "weir"},
                     {"fetch.wait.max.ms", "100"},
                     {"isolation.level", "read_uncommitted"}}));
  rd_kafka_conf_set_opaque(conf, this);
  rd_kafka_conf_set_log_cb(conf, &KafkaSource::LogCallback);
  rd_kafka_conf_set_error_cb(conf, &KafkaSource::ErrorCallback);
  if (config_.token_source) {
    rd_kafka_conf_set_oauthbearer_token_refresh_cb(conf, &KafkaSource::TokenRefreshCallback);
  }
  return NewConsumerClient(conf, what, config_.token_source != nullptr, options_.redactor);
}

Result<rd_kafka_t*> KafkaSource::LookupClient() {
  if (lookup_rk_ == nullptr) {
    WEIR_ASSIGN_OR_RETURN(lookup_rk_, NewClient("for offset lookups"));
  }
  return lookup_rk_;
}

std::vector<std::string> KafkaSource::TakeClientLog() {
  std::lock_guard<std::mutex> lock(log_mutex_);
  std::vector<std::string> out(log_.begin(), log_.end());
  log_.clear();
  return out;
}

std::string KafkaSource::LastClientError() {
  std::lock_guard<std::mutex> lock(log_mutex_);
  return last_error_;
}

std::string KafkaSource::PermanentClientError() {
  std::lock_guard<std::mutex> lock(log_mutex_);
  return permanent_error_;
}

std::string KafkaSource::Peer() const {
  if (!options_.namespace_host.empty()) {
    return "Event Hubs namespace " + options_.namespace_host + " (bootstrap " +
           options_.BootstrapServers() + ")";
  }
  return "the Kafka brokers " + options_.BootstrapServers();
}

int KafkaSource::FetchMetadata(rd_kafka_t* rk, const rd_kafka_metadata_t** metadata) {
  const int64_t deadline = NowMs() + config_.request_timeout_ms;
  while (true) {
    const int64_t left = deadline - NowMs();
    const int slice = static_cast<int>(std::clamp<int64_t>(left, 1, 500));
    rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 1, nullptr, metadata, slice);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      std::lock_guard<std::mutex> lock(log_mutex_);
      permanent_error_.clear();
      return err;
    }
    // The lookup client is never polled otherwise: serve its error events (the fetching client's
    // come through the consumer queue a read serves).
    if (rk == lookup_rk_) rd_kafka_poll(rk, 0);
    const bool timed_out =
        err == RD_KAFKA_RESP_ERR__TIMED_OUT || err == RD_KAFKA_RESP_ERR__TRANSPORT;
    if (!timed_out || NowMs() >= deadline || !PermanentClientError().empty()) return err;
  }
}

Status KafkaSource::ClientFailure(int code, const std::string& context) {
  const auto err = static_cast<rd_kafka_resp_err_t>(code);
  const std::string permanent = PermanentClientError();
  if (!permanent.empty()) {
    return options_.redactor.Scrub(Status::InvalidArgument(
        context + " from " + Peer() + ": the connection was refused: " + permanent + ". " +
        AuthFailureHint(options_, permanent)));
  }
  std::string last = LastClientError();
  return options_.redactor.Scrub(StatusFromKafkaError(
      err, context + " from " + Peer() +
               (last.empty() ? "" : " (last client error: " + last + ")")));
}

Result<std::vector<std::string>> KafkaSource::ListTopics() {
  WEIR_ASSIGN_OR_RETURN(rd_kafka_t* rk, LookupClient());
  MetadataHolder holder;
  int err = FetchMetadata(rk, &holder.md);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return ClientFailure(err, "cannot fetch metadata");
  std::vector<std::string> topics;
  for (int i = 0; i < holder.md->topic_cnt; ++i) {
    std::string name = holder.md->topics[i].topic;
    if (name.rfind("__", 0) == 0) continue;
    if (holder.md->topics[i].err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) continue;
    topics.push_back(std::move(name));
  }
  std::sort(topics.begin(), topics.end());
  return topics;
}

Result<std::set<TopicPartition>> KafkaSource::ListPartitions() {
  WEIR_ASSIGN_OR_RETURN(rd_kafka_t* rk, LookupClient());
  MetadataHolder holder;
  int err = FetchMetadata(rk, &holder.md);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return ClientFailure(err, "cannot fetch metadata");
  std::map<std::string, const rd_kafka_metadata_topic_t*> by_name;
  for (int i = 0; i < holder.md->topic_cnt; ++i) {
    const rd_kafka_metadata_topic_t& t = holder.md->topics[i];
    if (t.err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) continue;
    by_name[t.topic] = &t;
  }
  auto partitions_of = [&](const rd_kafka_metadata_topic_t* t,
                           std::set<TopicPartition>* out) -> Status {
    if (t->err != RD_KAFKA_RESP_ERR_NO_ERROR && t->partition_cnt == 0) {
      return StatusFromKafkaError(t->err, "metadata of topic '" + std::string(t->topic) + "'");
    }
    for (int p = 0; p < t->partition_cnt; ++p) {
      out->insert(TopicPartition{t->topic, t->partitions[p].id});
    }
    return Status::OK();
  };
  std::set<TopicPartition> out;
  const Subscription& sub = options_.subscription;
  switch (sub.kind) {
    case Subscription::Kind::kSubscribe:
      for (const auto& topic : sub.topics) {
        auto it = by_name.find(topic);
        if (it == by_name.end()) {
          std::string known;
          for (const auto& [name, t] : by_name) {
            if (name.rfind("__", 0) == 0) continue;
            known += (known.empty() ? "" : ", ") + name;
          }
          return Status::NotFound("topic '" + topic + "' does not exist on " +
                                  options_.BootstrapServers() + " (topics there: " +
                                  (known.empty() ? "none" : known) +
                                  "); with Event Hubs the topic is the event hub's name");
        }
        WEIR_RETURN_NOT_OK(partitions_of(it->second, &out));
      }
      break;
    case Subscription::Kind::kSubscribePattern:
      for (const auto& [name, t] : by_name) {
        if (name.rfind("__", 0) == 0) continue;  // internal topics
        if (pattern_->Matches(name)) WEIR_RETURN_NOT_OK(partitions_of(t, &out));
      }
      break;
    case Subscription::Kind::kAssign: {
      std::set<TopicPartition> existing;
      for (const auto& tp : sub.partitions) {
        auto it = by_name.find(tp.topic);
        if (it != by_name.end()) {
          for (int p = 0; p < it->second->partition_cnt; ++p) {
            if (it->second->partitions[p].id == tp.partition) existing.insert(tp);
          }
        }
      }
      out = std::move(existing);
      break;
    }
  }
  return out;
}

// Offset lookups retry what Kafka's Java client calls retriable plus UNKNOWN_TOPIC_OR_PART (an
// invalid-metadata error there): metadata is refreshed before each retry, and Spark retries every
// offset-fetch failure fetchOffset.numRetries times. A topic that is really gone still fails then.
static bool IsRetriableOffsetLookupError(rd_kafka_resp_err_t err) {
  return IsRetriableKafkaError(err) || err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
}

Result<PartitionOffsets> KafkaSource::QueryOffsets(const PartitionTimestamps& query,
                                                   const char* what) {
  if (query.empty()) return PartitionOffsets{};
  WEIR_ASSIGN_OR_RETURN(rd_kafka_t* rk, LookupClient());
  Status last;
  for (int attempt = 1; attempt <= options_.fetch_offset_num_retries; ++attempt) {
    if (attempt > 1) {
      std::this_thread::sleep_for(
          std::chrono::milliseconds(options_.fetch_offset_retry_interval_ms));
      // A retriable failure is often a leader that moved: ask for fresh metadata so the retry
      // goes to the current leaders (librdkafka's offset lookups use its cached metadata).
      std::set<std::string> topics;
      for (const auto& [tp, ts] : query) topics.insert(tp.topic);
      for (const auto& topic : topics) {
        rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
        if (rkt == nullptr) continue;
        const rd_kafka_metadata_t* metadata = nullptr;
        if (rd_kafka_metadata(rk, 0, rkt, &metadata, config_.request_timeout_ms) ==
                RD_KAFKA_RESP_ERR_NO_ERROR &&
            metadata != nullptr) {
          rd_kafka_metadata_destroy(metadata);
        }
        rd_kafka_topic_destroy(rkt);
      }
    }
    PartitionList list(static_cast<int>(query.size()));
    for (const auto& [tp, ts] : query) list.Add(tp, ts);
    rd_kafka_resp_err_t err =
        rd_kafka_offsets_for_times(rk, list.list, config_.request_timeout_ms);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_poll(rk, 0);  // the lookup client's error events, for ClientFailure
      last = ClientFailure(err, std::string("cannot list ") + what + " offsets");
      // A permanent client error (refused credentials, bad configuration) is not retried; an
      // error of the request itself is, as the per-partition ones below are. librdkafka reports
      // some per-partition errors (UNKNOWN_TOPIC_OR_PART after a leader move) as the call's.
      if (!IsRetriableOffsetLookupError(err) || last.IsInvalidArgument()) break;
      continue;
    }
    PartitionOffsets out;
    Status partition_error;
    for (int i = 0; i < list.list->cnt; ++i) {
      const rd_kafka_topic_partition_t& p = list.list->elems[i];
      TopicPartition tp{p.topic, p.partition};
      if (p.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        partition_error = StatusFromKafkaError(
            p.err, std::string("cannot list ") + what + " offset of " + tp.ToString());
        if (!IsRetriableOffsetLookupError(p.err)) return options_.redactor.Scrub(partition_error);
        break;
      }
      out[tp] = p.offset;
    }
    if (partition_error.ok()) return out;
    last = partition_error;
  }
  return options_.redactor.Scrub(last);
}

Result<PartitionOffsets> KafkaSource::EarliestOffsets(const std::set<TopicPartition>& partitions) {
  PartitionTimestamps query;
  for (const auto& tp : partitions) query[tp] = RD_KAFKA_OFFSET_BEGINNING;
  return QueryOffsets(query, "earliest");
}

Result<PartitionOffsets> KafkaSource::LatestOffsets(const std::set<TopicPartition>& partitions) {
  PartitionTimestamps query;
  for (const auto& tp : partitions) query[tp] = RD_KAFKA_OFFSET_END;
  return QueryOffsets(query, "latest");
}

Result<PartitionOffsets> KafkaSource::LatestOffsets(const std::set<TopicPartition>& partitions,
                                                    const PartitionOffsets& known) {
  PartitionOffsets latest;
  for (int attempt = 1; attempt <= options_.fetch_offset_num_retries; ++attempt) {
    WEIR_ASSIGN_OR_RETURN(latest, LatestOffsets(partitions));
    bool incorrect = false;
    for (const auto& [tp, offset] : latest) {
      auto it = known.find(tp);
      if (it != known.end() && it->second > offset) {
        incorrect = true;
        AddLog("Found incorrect offsets in some partitions (partition, previous offset, fetched "
               "offset): (" + tp.ToString() + "," + std::to_string(it->second) + "," +
               std::to_string(offset) + ")");
      }
    }
    if (!incorrect) break;
    if (attempt < options_.fetch_offset_num_retries) {
      std::this_thread::sleep_for(
          std::chrono::milliseconds(options_.fetch_offset_retry_interval_ms));
    }
  }
  return latest;
}

Result<PartitionOffsets> KafkaSource::OffsetsForTimes(const PartitionTimestamps& timestamps) {
  for (const auto& [tp, ts] : timestamps) {
    if (ts < 0) {
      return Status::InvalidArgument("timestamp " + std::to_string(ts) + " for " + tp.ToString() +
                                     " is negative; timestamps are milliseconds since the epoch");
    }
  }
  return QueryOffsets(timestamps, "by-timestamp");
}

Result<PartitionOffsets> KafkaSource::InitialOffsets(DataLossReporter* reporter) {
  WEIR_ASSIGN_OR_RETURN(std::set<TopicPartition> assigned, ListPartitions());
  return ResolveStartingOffsets(options_.starting, options_.no_match_strategy, assigned, *this,
                                reporter);
}

Result<std::unique_ptr<RangeReader>> KafkaSource::Read(std::vector<OffsetRange> ranges) {
  if (reader_active_) {
    return Status::Internal("a RangeReader is still active on this Kafka source");
  }
  std::sort(ranges.begin(), ranges.end(), [](const OffsetRange& a, const OffsetRange& b) {
    return a.tp == b.tp ? a.from < b.from : a.tp < b.tp;
  });
  std::vector<RangeReader::PartitionState> states;
  for (const auto& r : ranges) {
    if (r.size() <= 0) continue;
    if (r.from < 0) {
      return Status::InvalidArgument("offset range of " + r.tp.ToString() + " starts at " +
                                     std::to_string(r.from) + "; resolve -1/-2 first");
    }
    if (!states.empty() && states.back().tp == r.tp) {
      if (states.back().until != r.from) {
        return Status::InvalidArgument(
            "offset ranges of " + r.tp.ToString() + " are not contiguous: [.., " +
            std::to_string(states.back().until) + ") then [" + std::to_string(r.from) + ", ..)");
      }
      states.back().until = r.until;
      continue;
    }
    RangeReader::PartitionState s;
    s.tp = r.tp;
    s.next = r.from;
    s.until = r.until;
    states.push_back(std::move(s));
  }
  std::unique_ptr<RangeReader> reader(new RangeReader(this, std::move(states)));
  reader_active_ = true;
  Status st = reader->Start();
  if (!st.ok()) return st;  // the reader's destructor clears reader_active_
  return reader;
}

void KafkaSource::DropCarry(AssignedPartition* slot) {
  for (rd_kafka_message_t* m : slot->carry) rd_kafka_message_destroy(m);
  slot->carry.clear();
  slot->carry_bytes = 0;
}

AssignedPartition* KafkaSource::FindAssigned(const rd_kafka_message_t* m) {
  if (last_found_ != nullptr && last_found_->rkt == m->rkt && last_found_->tp.partition == m->partition) {
    return last_found_;
  }
  for (auto& [tp, slot] : assignment_) {
    if (slot.rkt == m->rkt && tp.partition == m->partition) return last_found_ = &slot;
  }
  const char* topic = rd_kafka_topic_name(m->rkt);
  auto it = assignment_.find(TopicPartition{topic, m->partition});
  if (it == assignment_.end()) return nullptr;
  it->second.rkt = m->rkt;
  return last_found_ = &it->second;
}

Status KafkaSource::Reassign() {
  // A partition paused earlier would stay paused across assign(), so every partition is resumed
  // first. Never after: a pause or resume bumps the partition's op version, and when that happens
  // before librdkafka has served the assignment's fetch start, the fetch start can be dropped as
  // outdated and the partition not fetch again, silently (librdkafka issues 2190 and 5591).
  PartitionList list(static_cast<int>(assignment_.size()));
  for (auto& [tp, slot] : assignment_) {
    list.Add(tp, slot.carry.empty() ? slot.handed : slot.carry.back()->offset + 1);
    slot.broken = false;
    slot.paused = false;
  }
  rd_kafka_resume_partitions(rk_, list.list);
  rd_kafka_resp_err_t err = rd_kafka_assign(rk_, list.list);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return StatusFromKafkaError(err, "cannot assign the partitions to read");
  }
  return Status::OK();
}

void KafkaSource::Pause(AssignedPartition* slot) {
  if (slot->paused) return;
  PartitionList list(1);
  list.Add(slot->tp, RD_KAFKA_OFFSET_INVALID);
  rd_kafka_pause_partitions(rk_, list.list);
  slot->paused = true;
}

void KafkaSource::Resume(const std::vector<AssignedPartition*>& slots) {
  PartitionList list(static_cast<int>(slots.size()));
  for (AssignedPartition* slot : slots) {
    if (!slot->paused) continue;
    list.Add(slot->tp, RD_KAFKA_OFFSET_INVALID);
    slot->paused = false;
  }
  if (list.list->cnt > 0) rd_kafka_resume_partitions(rk_, list.list);
}

// ---------------------------------------------------------------------------------------------
// RangeReader

namespace {
// Records of a partition held back between reads before its fetching is paused.
constexpr size_t kMaxCarryRecords = 10000;
constexpr size_t kMaxCarryBytes = 4 << 20;
// How often at most a read wakes librdkafka's fetchers (RangeReader::WakeFetchers).
constexpr int64_t kWakeIntervalMs = 20;
}  // namespace

RangeReader::RangeReader(KafkaSource* source, std::vector<PartitionState> partitions)
    : source_(source), partitions_(std::move(partitions)), pending_(partitions_.size()) {}

RangeReader::~RangeReader() {
  for (auto& s : partitions_) {
    if (s.slot != nullptr) s.slot->reader_index = -1;
  }
  source_->reader_active_ = false;
}

PartitionOffsets RangeReader::positions() const {
  PartitionOffsets out;
  for (const auto& s : partitions_) out[s.tp] = s.done ? s.until : s.next;
  return out;
}

Status RangeReader::Start() {
  last_progress_ms_ = source_->NowMs();
  if (pending_ == 0) return Status::OK();
  // Partitions whose stream is already at the range start continue; the rest are repositioned.
  std::vector<AssignedPartition*> continuing;
  std::vector<PartitionState*> repositioned;
  for (size_t i = 0; i < partitions_.size(); ++i) {
    PartitionState& s = partitions_[i];
    auto [it, inserted] = source_->assignment_.try_emplace(s.tp);
    AssignedPartition* slot = &it->second;
    s.slot = slot;
    slot->reader_index = static_cast<int>(i);
    if (inserted) slot->tp = s.tp;
    if (inserted || slot->broken || slot->handed != s.next) {
      KafkaSource::DropCarry(slot);
      slot->handed = s.next;
      repositioned.push_back(&s);
    } else {
      continuing.push_back(slot);
    }
  }
  if (repositioned.empty()) {
    source_->Resume(continuing);
    return Status::OK();
  }
  // A repositioned range that starts below the earliest retained offset lost data before we
  // began (retention).
  std::set<TopicPartition> tps;
  for (const PartitionState* s : repositioned) tps.insert(s->tp);
  WEIR_ASSIGN_OR_RETURN(PartitionOffsets earliest, source_->EarliestOffsets(tps));
  for (PartitionState* s : repositioned) {
    auto it = earliest.find(s->tp);
    if (it != earliest.end() && s->next < it->second) {
      int64_t resume = std::min(it->second, s->until);
      WEIR_RETURN_NOT_OK(Skip(s, resume, "Skip missing records in [" + std::to_string(s->next) +
                                             ", " + std::to_string(resume) + ")"));
    }
  }
  return source_->Reassign();
}

void RangeReader::MarkDone(PartitionState* state) {
  if (state->done) return;
  state->done = true;
  --pending_;
  last_progress_ms_ = source_->NowMs();
  state->slot->handed = state->until;
}

Status RangeReader::Skip(PartitionState* state, int64_t to, const std::string& detail) {
  DataLossReporter reporter(source_->options_.fail_on_data_loss);
  WEIR_RETURN_NOT_OK(reporter.Report(
      CouldNotReadOffsetRange(state->tp, state->next, to, source_->group_id_, detail)));
  stats_.skipped_offsets += to - state->next;
  stats_.warnings.push_back(reporter.events().back().warning);
  source_->AddLog("warning: " + reporter.events().back().warning);
  state->next = to;
  state->slot->handed = to;
  if (state->next >= state->until) MarkDone(state);
  return Status::OK();
}

Status RangeReader::HandleGap(PartitionState* state, int64_t offset, bool* take_record) {
  // Spark (KafkaDataConsumer.fetchRecord): offsets below the record that are still >= the
  // earliest available offset are invisible (compaction, transaction markers); otherwise
  // they aged out.
  int64_t low = -1, high = -1;
  rd_kafka_get_watermark_offsets(source_->rk_, state->tp.topic.c_str(), state->tp.partition, &low,
                                 &high);
  if (low < 0) {
    rd_kafka_resp_err_t err =
        rd_kafka_query_watermark_offsets(source_->rk_, state->tp.topic.c_str(), state->tp.partition,
                                         &low, &high, source_->config_.request_timeout_ms);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return source_->options_.redactor.Scrub(StatusFromKafkaError(
          err, "cannot read the earliest offset of " + state->tp.ToString()));
    }
  }
  *take_record = offset < state->until;
  int64_t gap_end = std::min(offset, state->until);
  if (low <= state->next) {
    stats_.invisible_offsets += gap_end - state->next;
    auto& ranges = stats_.invisible_ranges;
    if (!ranges.empty() && ranges.back().tp == state->tp && ranges.back().until == state->next) {
      ranges.back().until = gap_end;
    } else if (gap_end > state->next && ranges.size() < ReadStats::kMaxInvisibleRanges) {
      ranges.push_back(OffsetRange{state->tp, state->next, gap_end});
    }
    state->next = gap_end;
    state->slot->handed = gap_end;
    if (state->next >= state->until) MarkDone(state);
    return Status::OK();
  }
  return Skip(state, gap_end,
              "Skip missing records in [" + std::to_string(state->next) + ", " +
                  std::to_string(gap_end) + ")");
}

Status RangeReader::HandleOutOfRange(PartitionState* state) {
  ++stats_.out_of_range_resets;
  int64_t low = -1, high = -1;
  rd_kafka_resp_err_t err =
      rd_kafka_query_watermark_offsets(source_->rk_, state->tp.topic.c_str(), state->tp.partition,
                                       &low, &high, source_->config_.request_timeout_ms);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return source_->options_.redactor.Scrub(
        StatusFromKafkaError(err, "cannot read the offsets of " + state->tp.ToString() +
                                      " after an out-of-range fetch at offset " +
                                      std::to_string(state->next)));
  }
  KafkaSource::DropCarry(state->slot);
  // KafkaDataConsumer.getEarliestAvailableOffsetBetween.
  if (state->next >= high && state->until > high) {
    // The partition ends before the planned range does; wait for it (the poll timeout names
    // it if it never comes), as Spark's consumer does.
    state->high_watermark_seen = high;
  } else if (low >= state->until) {
    WEIR_RETURN_NOT_OK(Skip(state, state->until,
                            "Cannot fetch offset " + std::to_string(state->next) +
                                "; skip missing records in [" + std::to_string(state->next) +
                                ", " + std::to_string(state->until) + ")"));
  } else if (state->next >= low) {
    source_->AddLog("Found a disappeared offset " + std::to_string(state->next) + " of " +
                    state->tp.ToString() + ". Some data may be lost");
  } else {
    WEIR_RETURN_NOT_OK(Skip(state, low,
                            "Cannot fetch offset " + std::to_string(state->next) +
                                "; skip missing records in [" + std::to_string(state->next) +
                                ", " + std::to_string(low) + ")"));
  }
  state->slot->handed = state->next;
  return source_->Reassign();
}

Status RangeReader::Accept(PartitionState* state, rd_kafka_message_t* m, RecordBatch* batch) {
  const bool include_headers = source_->options_.include_headers;
  RecordView view;
  view.key = Bytes(m->key, m->key_len);
  view.value = Bytes(m->payload, m->len);
  view.topic = rd_kafka_topic_name(m->rkt);
  view.partition = m->partition;
  view.offset = m->offset;
  rd_kafka_timestamp_type_t ts_type;
  view.timestamp_ms = rd_kafka_message_timestamp(m, &ts_type);
  view.timestamp_type = ts_type == RD_KAFKA_TIMESTAMP_CREATE_TIME      ? 0
                        : ts_type == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? 1
                                                                         : -1;
  if (ts_type == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE) view.timestamp_ms = -1;
  int64_t bytes = static_cast<int64_t>(m->key_len + m->len);
  if (include_headers) {
    rd_kafka_headers_t* headers = nullptr;
    if (rd_kafka_message_headers(m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR &&
        headers != nullptr && rd_kafka_header_cnt(headers) > 0) {
      view.headers = headers;
      for (size_t h = 0; h < rd_kafka_header_cnt(headers); ++h) {
        HeaderView hv = view.header(h);
        bytes += static_cast<int64_t>(hv.key.size() + (hv.value ? hv.value->size() : 0));
      }
    }
  }
  batch->records_.push_back(view);
  batch->messages_.push_back(m);
  batch->payload_bytes_ += bytes;
  stats_.records += 1;
  stats_.payload_bytes += bytes;
  state->next = m->offset + 1;
  state->slot->handed = state->next;
  // last_progress_ms_ is advanced once per Next() call that returns records (a clock read per
  // record costs more than the rest of this function).
  if (state->next >= state->until) MarkDone(state);
  return Status::OK();
}

Status RangeReader::Offer(rd_kafka_message_t* m, RecordBatch* batch) {
  AssignedPartition* slot = m->rkt != nullptr ? source_->FindAssigned(m) : nullptr;
  PartitionState* state =
      slot != nullptr && slot->reader_index >= 0 ? &partitions_[slot->reader_index] : nullptr;
  if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    rd_kafka_resp_err_t err = m->err;
    int64_t offset = m->offset;
    std::string text = m->payload != nullptr
                           ? std::string(static_cast<const char*>(m->payload), m->len)
                           : std::string(rd_kafka_err2str(err));
    rd_kafka_message_destroy(m);
    if (err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      if (state != nullptr && !state->done) {
        state->high_watermark_seen = offset;
        // The log ends at or past the range end: what is left is invisible (e.g. a trailing
        // transaction marker) or lost.
        if (offset >= state->until && state->next < state->until &&
            (slot->carry.empty() || slot->carry.front()->offset >= state->until)) {
          bool take = false;
          return HandleGap(state, state->until, &take);
        }
      }
      return Status::OK();
    }
    if (err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET ||
        err == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE) {
      if (state != nullptr && !state->done) return HandleOutOfRange(state);
      if (slot != nullptr) slot->broken = true;
      return Status::OK();
    }
    std::string where = state != nullptr ? "reading " + state->tp.ToString() + " at offset " +
                                                std::to_string(state->next)
                                          : "Kafka consumer";
    if (IsRetriableKafkaError(err)) {
      source_->AddLog("retrying after " + where + ": " + text);
      return Status::OK();
    }
    if (state == nullptr && slot != nullptr) {  // not part of this read: deal with it later
      slot->broken = true;
      source_->AddLog(where + " (" + slot->tp.ToString() + "): " + text);
      return Status::OK();
    }
    return source_->options_.redactor.Scrub(StatusFromKafkaError(err, where + ": " + text));
  }
  if (slot == nullptr) {  // a partition no longer tracked
    rd_kafka_message_destroy(m);
    return Status::OK();
  }
  if (state == nullptr || state->done || m->offset >= state->until) {
    // Past this read: keep it for the next one, which most likely starts right here.
    if (m->offset < slot->handed || (!slot->carry.empty() && m->offset <= slot->carry.back()->offset)) {
      rd_kafka_message_destroy(m);  // stale
    } else {
      slot->carry.push_back(m);
      slot->carry_bytes += m->len + m->key_len;
      if (slot->carry.size() >= kMaxCarryRecords || slot->carry_bytes >= kMaxCarryBytes) {
        source_->Pause(slot);
      }
    }
    if (state != nullptr && !state->done) {
      bool take = false;
      return HandleGap(state, state->until, &take);  // [next, until) had no visible record
    }
    return Status::OK();
  }
  if (m->offset < state->next) {
    rd_kafka_message_destroy(m);  // already returned
    return Status::OK();
  }
  if (m->offset > state->next) {
    bool take = true;
    Status st = HandleGap(state, m->offset, &take);
    if (!st.ok()) {
      rd_kafka_message_destroy(m);
      return st;
    }
  }
  return Accept(state, m, batch);
}

// librdkafka 2.0.2's broker threads stop fetching while the consumer queue holds
// queued.min.messages records, and may sleep up to a second before they fetch a newly assigned or
// resumed partition: when the queue runs low (or no record came) while ranges are unfinished, the
// brokers leading them are woken (kafka/fetch_waker.h; without it they fetched one at a time,
// bronze's encoding thread waiting a third of each batch).
void RangeReader::WakeFetchers(bool starved) {
  const int64_t now_ms = source_->NowMs();
  if (now_ms - last_wake_ms_ < kWakeIntervalMs) return;
  if (!starved &&
      static_cast<int64_t>(rd_kafka_queue_length(source_->queue_)) >= source_->wake_below_) {
    return;
  }
  std::vector<TopicPartition> unfinished;
  int64_t remaining = 0;
  for (const auto& s : partitions_) {
    if (!s.done && !(s.slot != nullptr && s.slot->paused)) {
      unfinished.push_back(s.tp);
      remaining += s.until - s.next;
    }
  }
  // A short queue matters only with a backlog to fetch: at the tail of a stream the queue is
  // always short, and offsets requests every 20 ms there delayed the fetches (time to table).
  if (!starved && remaining <= source_->wake_below_) return;
  last_wake_ms_ = now_ms;
  source_->Waker().Wake(std::move(unfinished));
}

Result<RecordBatch> RangeReader::Next(size_t max_records) {
  RecordBatch batch;
  if (max_records == 0) max_records = 1;
  batch.records_.reserve(std::min<size_t>(max_records, 65536));
  batch.messages_.reserve(std::min<size_t>(max_records, 65536));
  if (scratch_.size() < max_records) scratch_.resize(max_records);
  const int64_t poll_timeout_ms = source_->options_.poll_timeout_ms;

  // Records carried over from the previous read come first.
  for (auto& s : partitions_) {
    auto& carry = s.slot->carry;
    while (!s.done && !carry.empty() && batch.size() < max_records) {
      rd_kafka_message_t* m = carry.front();
      carry.pop_front();
      s.slot->carry_bytes -= std::min(s.slot->carry_bytes, m->len + m->key_len);
      if (m->offset < s.next) {
        rd_kafka_message_destroy(m);
        continue;
      }
      if (m->offset >= s.until) {
        carry.push_front(m);
        s.slot->carry_bytes += m->len + m->key_len;
        bool take = false;
        WEIR_RETURN_NOT_OK(HandleGap(&s, s.until, &take));
        break;
      }
      if (m->offset > s.next) {
        bool take = true;
        Status st = HandleGap(&s, m->offset, &take);
        if (!st.ok()) {
          rd_kafka_message_destroy(m);
          return st;
        }
      }
      WEIR_RETURN_NOT_OK(Accept(&s, m, &batch));
    }
  }

  if (!batch.empty()) last_progress_ms_ = source_->NowMs();

  while (pending_ > 0 && batch.size() < max_records) {
    // Wait for data only while the batch is still empty; otherwise take what is ready.
    // Short waits: records usually arrive within a fetch round trip, and a stalled fetcher is
    // woken below without losing a tenth of a second each time.
    int wait_ms = batch.empty() ? 20 : 0;
    ssize_t n = rd_kafka_consume_batch_queue(source_->queue_, wait_ms, scratch_.data(),
                                             max_records - batch.size());
    if (n < 0) {
      return StatusFromKafkaError(rd_kafka_last_error(), "cannot consume from the fetch queue");
    }
    if (n == 0) {
      if (!batch.empty()) break;
      ++stats_.empty_polls;
      const PartitionState* stuck = nullptr;
      for (const auto& s : partitions_) {
        if (!s.done) {
          stuck = &s;
          break;
        }
      }
      WakeFetchers(/*starved=*/true);
      if (!source_->PermanentClientError().empty()) {
        // Refused credentials or an untrusted certificate: waiting cannot help.
        return source_->ClientFailure(RD_KAFKA_RESP_ERR__AUTHENTICATION,
                                      "cannot read topic-partition " + stuck->tp.ToString() +
                                          " at offset " + std::to_string(stuck->next));
      }
      const int64_t silent_ms = source_->NowMs() - last_progress_ms_;
      if (!restarted_fetch_ && silent_ms > poll_timeout_ms / 4) {
        // Spark retries a task whose poll timed out, with a fresh fetch. Once per read, a quarter
        // into the timeout, the fetches start again at the positions reached: a fetcher that
        // librdkafka left stopped (a streaming run once waited the whole timeout on one partition
        // whose end offset was well ahead) fetches again; a slow broker loses one round trip.
        restarted_fetch_ = true;
        std::string warning = "no records for " + std::to_string(silent_ms) + " ms while reading " +
                              stuck->tp.ToString() + " at offset " + std::to_string(stuck->next) +
                              " (planned end " + std::to_string(stuck->until) +
                              "); fetching again from the positions reached";
        source_->AddLog("warning: " + warning);
        stats_.warnings.push_back(std::move(warning));
        WEIR_RETURN_NOT_OK(source_->Reassign());
        continue;
      }
      if (silent_ms > poll_timeout_ms) {
        std::string last = source_->LastClientError();
        std::string hw = stuck->high_watermark_seen >= 0
                             ? "; the partition's end offset is " +
                                   std::to_string(stuck->high_watermark_seen)
                             : "";
        return source_->options_.redactor.Scrub(Status::Unavailable(
            "no records for " + std::to_string(poll_timeout_ms) +
            " ms (kafkaConsumer.pollTimeoutMs) while reading topic-partition " +
            stuck->tp.ToString() + " at offset " + std::to_string(stuck->next) +
            " (planned end " + std::to_string(stuck->until) + hw + ")" +
            (last.empty() ? "" : "; last client error: " + last) +
            "; the broker may be throttling or unreachable. Retry, or raise "
            "kafkaConsumer.pollTimeoutMs"));
      }
      continue;
    }
    WakeFetchers(/*starved=*/false);
    Status failure;
    const size_t before = batch.size();
    for (ssize_t i = 0; i < n; ++i) {
      if (!failure.ok()) {
        rd_kafka_message_destroy(scratch_[i]);
        continue;
      }
      failure = Offer(scratch_[i], &batch);
    }
    if (!failure.ok()) return failure;
    if (batch.size() > before) last_progress_ms_ = source_->NowMs();
  }
  return batch;
}

}  // namespace weir::kafka
