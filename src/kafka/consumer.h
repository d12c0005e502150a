// KafkaSource: the Kafka source on librdkafka. It lists the partitions the subscription selects
// (new ones appear on every call), answers offset queries (earliest, latest, by timestamp) and
// reads planned offset ranges exactly: [from, until) per partition with assign() (no group
// offsets, no auto commit), in bounded RecordBatches whose RecordViews point into librdkafka's
// fetch buffers (zero copy) until the batch is destroyed.
//
// Threads: a KafkaSource and its RangeReader are used from one thread at a time. librdkafka runs
// its own threads; log lines it produces are collected (secrets scrubbed) for TakeClientLog().
// Lifetime: every RecordBatch and RangeReader must be destroyed before their KafkaSource.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "kafka/fetch_waker.h"
#include "kafka/offsets.h"
#include "kafka/options.h"
#include "kafka/planner.h"

typedef struct rd_kafka_s rd_kafka_t;
typedef struct rd_kafka_message_s rd_kafka_message_t;
typedef struct rd_kafka_headers_s rd_kafka_headers_t;
typedef struct rd_kafka_queue_s rd_kafka_queue_t;
typedef struct rd_kafka_topic_s rd_kafka_topic_t;
typedef struct rd_kafka_metadata rd_kafka_metadata_t;

namespace weir::kafka {

class OAuthTokenSource;
class TopicPattern;
class KafkaSource;
struct AssignedPartition;

struct HeaderView {
  std::string_view key;
  std::optional<std::string_view> value;  // nullopt: a null header value
};

// One record in Spark's schema. Views borrow from the RecordBatch that holds the record.
struct RecordView {
  std::optional<std::string_view> key;    // nullopt: null key (distinct from an empty key)
  std::optional<std::string_view> value;  // nullopt: null value (tombstone)
  std::string_view topic;
  int32_t partition = 0;
  int64_t offset = 0;
  int64_t timestamp_ms = -1;   // -1 when the record carries none
  int32_t timestamp_type = 0;  // Spark's: 0 CreateTime, 1 LogAppendTime, -1 none
  const rd_kafka_headers_t* headers = nullptr;  // null: no headers (or includeHeaders=false)

  size_t header_count() const;
  // REQUIRES: i < header_count().
  HeaderView header(size_t i) const;
};

// Records fetched together. Owns the librdkafka messages; frees them on destruction.
class RecordBatch {
 public:
  RecordBatch() = default;
  RecordBatch(RecordBatch&& other) noexcept;
  RecordBatch& operator=(RecordBatch&& other) noexcept;
  RecordBatch(const RecordBatch&) = delete;
  RecordBatch& operator=(const RecordBatch&) = delete;
  ~RecordBatch();

  size_t size() const { return records_.size(); }
  bool empty() const { return records_.empty(); }
  const RecordView& operator[](size_t i) const { return records_[i]; }
  std::vector<RecordView>::const_iterator begin() const { return records_.begin(); }
  std::vector<RecordView>::const_iterator end() const { return records_.end(); }
  // Key + value + header bytes of the records.
  int64_t payload_bytes() const { return payload_bytes_; }

 private:
  friend class RangeReader;
  void Release();
  std::vector<RecordView> records_;
  std::vector<rd_kafka_message_t*> messages_;
  int64_t payload_bytes_ = 0;
};

// What a read did besides returning records (the consumer's probe).
struct ReadStats {
  int64_t records = 0;
  int64_t payload_bytes = 0;
  int64_t invisible_offsets = 0;  // offsets with no visible record (compaction, txn markers)
  // Where they were: adjacent ranges merged, in the order met; at most kMaxInvisibleRanges (the
  // count above stays exact). `weir validate` can tell such offsets from lost ones with it.
  std::vector<OffsetRange> invisible_ranges;
  static constexpr size_t kMaxInvisibleRanges = 10000;
  int64_t skipped_offsets = 0;    // offsets lost to retention, skipped (failOnDataLoss=false)
  int64_t out_of_range_resets = 0;
  int64_t empty_polls = 0;
  std::vector<std::string> warnings;  // data-loss warnings (Spark's text), fetch restarts

  double AvgRecordBytes() const {
    return records == 0 ? 0 : static_cast<double>(payload_bytes) / static_cast<double>(records);
  }
};

// Reads a set of offset ranges. Created by KafkaSource::Read.
class RangeReader {
 public:
  ~RangeReader();
  RangeReader(const RangeReader&) = delete;
  RangeReader& operator=(const RangeReader&) = delete;

  // Up to `max_records` records (at least one unless done). Waits for data while ranges are
  // unfinished: an empty fetch (throttling, slow broker) is not the end. Fails with
  // Unavailable naming the partition and offset when no progress is made for
  // kafkaConsumer.pollTimeoutMs; DataLoss (Spark's text) when records aged out and
  // failOnDataLoss=true.
  Result<RecordBatch> Next(size_t max_records = 10000);
  bool done() const { return pending_ == 0; }
  const ReadStats& stats() const { return stats_; }
  // The next offset to read per partition (== until once a range is finished).
  PartitionOffsets positions() const;

 private:
  friend class KafkaSource;
  struct PartitionState {
    TopicPartition tp;
    int64_t next = 0;
    int64_t until = 0;
    bool done = false;
    int64_t high_watermark_seen = -1;
    AssignedPartition* slot = nullptr;  // the source's bookkeeping for tp
  };
  RangeReader(KafkaSource* source, std::vector<PartitionState> partitions);
  Status Start();
  void MarkDone(PartitionState* state);
  // Offers one message to the read. Takes ownership: the message ends up in `batch`, in the
  // partition's carry-over (records past the range, kept for the next read) or destroyed.
  Status Offer(rd_kafka_message_t* m, RecordBatch* batch);
  Status Accept(PartitionState* state, rd_kafka_message_t* m, RecordBatch* batch);
  // Offsets [state->next, offset) had no record: invisible or lost. May fail (failOnDataLoss).
  Status HandleGap(PartitionState* state, int64_t offset, bool* take_record);
  Status HandleOutOfRange(PartitionState* state);
  Status Skip(PartitionState* state, int64_t to, const std::string& detail);
  // Wakes the brokers of unfinished ranges when the fetch queue runs low or `starved`.
  void WakeFetchers(bool starved);

  KafkaSource* source_;
  std::vector<PartitionState> partitions_;
  size_t pending_ = 0;
  ReadStats stats_;
  int64_t last_progress_ms_ = 0;
  int64_t last_wake_ms_ = 0;  // when WakeFetchers() last woke the brokers
  bool restarted_fetch_ = false;  // Next() repositioned the consumer after a long silence
  std::vector<rd_kafka_message_t*> scratch_;
};

// The source's view of one assigned partition. Between reads the partition stays assigned and
// librdkafka keeps prefetching; records delivered past a read's range wait in `carry` for the
// next read, so consecutive batches start without a new assignment.
struct AssignedPartition {
  TopicPartition tp;
  const rd_kafka_topic_t* rkt = nullptr;
  int64_t handed = 0;  // the stream continues at this offset (end of the last read)
  std::deque<rd_kafka_message_t*> carry;  // delivered, offsets >= handed, in order
  size_t carry_bytes = 0;
  bool paused = false;
  bool broken = false;  // a fetch error stopped it: reposition before reading again
  int reader_index = -1;  // its PartitionState in the active RangeReader, if any
};

struct KafkaSourceConfig {
  // Timeout of one metadata or offset request; the source's librdkafka socket.timeout.ms (the
  // Java client's request.timeout.ms, which kafka.request.timeout.ms sets) when it is set.
  int request_timeout_ms = 30000;
  // Supplies OAUTHBEARER tokens when options.oauth is set; defaults to the client-credentials
  // flow over HTTPS (kafka/oauth.h).
  std::shared_ptr<OAuthTokenSource> token_source;
};

class KafkaSource : public OffsetLookup {
 public:
  // Creates the librdkafka client (no network I/O until the first call). InvalidArgument for a
  // configuration librdkafka rejects.
  static Result<std::unique_ptr<KafkaSource>> Open(KafkaSourceOptions options,
                                                   KafkaSourceConfig config = {});
  ~KafkaSource() override;
  KafkaSource(const KafkaSource&) = delete;
  KafkaSource& operator=(const KafkaSource&) = delete;

  const KafkaSourceOptions& options() const { return options_; }
  const std::string& group_id() const { return group_id_; }

  // All topic names except internal ones ("__..."), sorted.
  Result<std::vector<std::string>> ListTopics();
  // The topic-partitions the subscription selects now (subscribe: NotFound for a missing
  // topic; subscribePattern: regex search over topic names; assign: the listed partitions that
  // exist).
  Result<std::set<TopicPartition>> ListPartitions();

  // OffsetLookup (ListOffsets via librdkafka; retried fetchOffset.numRetries times).
  Result<PartitionOffsets> EarliestOffsets(const std::set<TopicPartition>& partitions) override;
  Result<PartitionOffsets> LatestOffsets(const std::set<TopicPartition>& partitions) override;
  Result<PartitionOffsets> OffsetsForTimes(const PartitionTimestamps& timestamps) override;
  // Spark's fetchLatestOffsets(knownOffsets): re-asks (up to fetchOffset.numRetries times,
  // fetchOffset.retryIntervalMs apart) while a latest offset is below an already known one.
  Result<PartitionOffsets> LatestOffsets(const std::set<TopicPartition>& partitions,
                                         const PartitionOffsets& known);

  // The first offsets of a new query from the options (startingOffsets & co) over
  // ListPartitions(); data-loss conditions go through `reporter`.
  Result<PartitionOffsets> InitialOffsets(DataLossReporter* reporter);

  // Starts reading `ranges` (empty ones are ignored; several ranges of one partition must be
  // contiguous). Only one RangeReader may be active per source.
  Result<std::unique_ptr<RangeReader>> Read(std::vector<OffsetRange> ranges);

  // librdkafka's recent warnings and errors (scrubbed; at most 200 lines), oldest first.
  std::vector<std::string> TakeClientLog();
  // The most recent client-level error (e.g. authentication, all brokers down), scrubbed.
  std::string LastClientError();
  // A failure no retry can fix, seen since the last successful metadata request: the broker
  // refused the credentials, the TLS handshake failed (untrusted certificate), or the token
  // endpoint refused the Entra ID credentials. Scrubbed; "" when there is none.
  std::string PermanentClientError();

  // Tests only: the librdkafka consumer, to break its state behind the source's back.
  rd_kafka_t* handle_for_testing() const { return rk_; }
  // Tests only: the client of metadata and offset lookups (nullptr before the first lookup).
  rd_kafka_t* lookup_handle_for_testing() const { return lookup_rk_; }

 private:
  friend class RangeReader;
  KafkaSource(KafkaSourceOptions options, KafkaSourceConfig config);
  Status Init();
  // A new librdkafka consumer with this source's configuration and callbacks (not subscribed).
  Result<rd_kafka_t*> NewClient(const std::string& what);
  // The client of metadata and offset lookups, created on first use.
  Result<rd_kafka_t*> LookupClient();
  Result<PartitionOffsets> QueryOffsets(const PartitionTimestamps& query, const char* what);
  // rd_kafka_metadata (all topics) in slices of at most 500 ms, serving the lookup client's
  // error events in between, so that a permanent failure ends the wait at once.
  int FetchMetadata(rd_kafka_t* rk, const rd_kafka_metadata_t** metadata);
  // The Status of a failed client request `err` (an rd_kafka_resp_err_t): InvalidArgument naming
  // the namespace (or brokers) and what to check when a permanent failure was seen, else
  // StatusFromKafkaError with the last client error appended. Scrubbed.
  Status ClientFailure(int err, const std::string& context);
  // "Event Hubs namespace ns.servicebus.windows.net (bootstrap h:9093)" or "the Kafka brokers h:1".
  std::string Peer() const;
  static void LogCallback(const rd_kafka_t* rk, int level, const char* facility, const char* buf);
  static void ErrorCallback(rd_kafka_t* rk, int err, const char* reason, void* opaque);
  static void TokenRefreshCallback(rd_kafka_t* rk, const char* config, void* opaque);
  void AddLog(std::string line);
  int64_t NowMs() const;

  AssignedPartition* FindAssigned(const rd_kafka_message_t* m);
  FetchWaker& Waker();  // created on first use
  // Assigns every partition in assignment_ at its resume offset (carry end, else handed).
  Status Reassign();
  void Pause(AssignedPartition* slot);
  void Resume(const std::vector<AssignedPartition*>& slots);
  static void DropCarry(AssignedPartition* slot);

  KafkaSourceOptions options_;
  KafkaSourceConfig config_;
  std::string group_id_;
  std::unique_ptr<TopicPattern> pattern_;  // subscribePattern, compiled
  rd_kafka_t* rk_ = nullptr;  // fetches
  // Metadata and ListOffsets go over connections of their own: a broker answers the requests of
  // one connection in order, so on rk_'s a lookup waits behind any fetch the broker holds for up to
  // fetch.wait.max.ms (~20-100 ms a batch of a streaming query that is caught up). Spark's
  // KafkaOffsetReader also uses a client apart from the one that fetches.
  rd_kafka_t* lookup_rk_ = nullptr;
  rd_kafka_queue_t* queue_ = nullptr;
  bool reader_active_ = false;
  std::map<TopicPartition, AssignedPartition> assignment_;
  AssignedPartition* last_found_ = nullptr;
  int64_t wake_below_ = 50000;  // queue length under which readers wake the fetchers
  std::unique_ptr<FetchWaker> waker_;

  std::mutex log_mutex_;
  std::deque<std::string> log_;  // GUARDED_BY(log_mutex_)
  std::string last_error_;       // GUARDED_BY(log_mutex_)
  std::string permanent_error_;  // GUARDED_BY(log_mutex_); see PermanentClientError()
};

}  // namespace weir::kafka
