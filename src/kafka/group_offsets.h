// Consumer-group offsets for external lag monitors (weir.commitOffsetsToGroup): after each
// committed batch the source commits the batch's end offsets (the next offset to read per
// partition) to a consumer group, so Burrow-style tools can compute lag. Best effort and
// write-only: weir never reads them back; the checkpoint and the Delta txns stay the truth.
// Commits respect Event Hubs' limit of 4 offset commits per second per partition.
// Not thread-safe (one caller thread); librdkafka's threads only touch the scrubbed error text.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "base/result.h"
#include "kafka/offsets.h"
#include "kafka/options.h"

typedef struct rd_kafka_s rd_kafka_t;
typedef struct rd_kafka_queue_s rd_kafka_queue_t;

namespace weir::kafka {

class OAuthTokenSource;

// At most one commit per partition every `min_interval_ms` (250 ms: 4 per second). Offsets
// that may not be committed yet wait as pending until their partition's interval has passed;
// an offset equal to the last one committed is not committed again. Pure (the caller passes
// the time); a value type.
class CommitRateLimiter {
 public:
  static constexpr int64_t kEventHubsMinIntervalMs = 250;

  explicit CommitRateLimiter(int64_t min_interval_ms = kEventHubsMinIntervalMs)
      : min_interval_ms_(min_interval_ms) {}

  // Records `offsets` as the newest wanted (pending until taken).
  void Want(const PartitionOffsets& offsets);
  // Pending offsets that may be committed at `now_ms` (counted as committed now).
  PartitionOffsets TakeDue(int64_t now_ms);
  // Want(offsets), then TakeDue(now_ms).
  PartitionOffsets Offer(const PartitionOffsets& offsets, int64_t now_ms) {
    Want(offsets);
    return TakeDue(now_ms);
  }
  // How long until every pending offset may be committed (0 when none is pending).
  int64_t MsUntilAllDue(int64_t now_ms) const;
  const PartitionOffsets& pending() const { return pending_; }

 private:
  int64_t min_interval_ms_;
  std::map<TopicPartition, int64_t> last_commit_ms_;
  PartitionOffsets last_committed_;
  PartitionOffsets pending_;
};

struct GroupOffsetCommitterConfig {
  // How long Flush() (and the destructor) waits for outstanding commits.
  int flush_timeout_ms = 10000;
  // Clock in milliseconds (steady); tests replace it.
  std::function<int64_t()> now_ms;
  // OAUTHBEARER tokens when options.oauth is set; defaults to the client-credentials flow.
  std::shared_ptr<OAuthTokenSource> token_source;
};

class GroupOffsetCommitter {
 public:
  // A librdkafka consumer handle with group.id = `group_id` and the source's connection settings
  // (bootstrap, TLS, SASL/OAuth). It never joins the group: commits carry explicit offsets.
  // `warn` receives one line per failed commit (secret-free). No network I/O until a commit.
  static Result<std::unique_ptr<GroupOffsetCommitter>> Open(
      const KafkaSourceOptions& options, std::string group_id,
      std::function<void(const std::string&)> warn, GroupOffsetCommitterConfig config = {});
  // Flush(), then closes the handle.
  ~GroupOffsetCommitter();
  GroupOffsetCommitter(const GroupOffsetCommitter&) = delete;
  GroupOffsetCommitter& operator=(const GroupOffsetCommitter&) = delete;

  const std::string& group_id() const { return group_id_; }

  // Starts an asynchronous commit of the offsets the rate limit allows now (the others wait
  // for a later Commit, Poll or Flush) and reports the results of earlier commits to `warn`.
  // At most one commit is in flight: while one is, the offsets wait. (librdkafka may send two
  // commits out of order when the first waits for the group coordinator, and the broker keeps
  // the last one it received; an older run's offsets could otherwise win.)
  void Commit(const PartitionOffsets& next_offsets);
  // Commits pending offsets that became due; reports finished commits. Never blocks.
  void Poll();
  // Waits until every pending offset may be committed (at most one interval), commits them and
  // waits up to flush_timeout_ms for all outstanding commits. Unavailable when some commit
  // failed or did not finish in time (also reported to `warn`).
  Status Flush();

  // Offsets whose commit the broker confirmed, per partition (the newest confirmed).
  const PartitionOffsets& confirmed() const { return confirmed_; }
  int64_t commits_sent() const { return commits_sent_; }
  int64_t commits_failed() const { return commits_failed_; }

 private:
  GroupOffsetCommitter(std::string group_id, std::function<void(const std::string&)> warn,
                       GroupOffsetCommitterConfig config, Redactor redactor);
  Status Init(const KafkaSourceOptions& options);
  int64_t NowMs() const;
  void Send(const PartitionOffsets& offsets);
  // Sends the offsets that are due, unless a commit is in flight.
  void SendDue();
  // Serves commit results until none is in flight or `deadline_ms` (steady clock) passed.
  void AwaitOutstanding(int64_t deadline_ms);
  // Handles finished commits, waiting up to `timeout_ms` for the first one. True if any was
  // handled.
  bool ServeResults(int timeout_ms);
  void Warn(const std::string& line);
  static void ErrorCallback(rd_kafka_t* rk, int err, const char* reason, void* opaque);
  static void TokenRefreshCallback(rd_kafka_t* rk, const char* config, void* opaque);

  std::string group_id_;
  std::function<void(const std::string&)> warn_;
  GroupOffsetCommitterConfig config_;
  Redactor redactor_;
  CommitRateLimiter limiter_;
  rd_kafka_t* rk_ = nullptr;
  rd_kafka_queue_t* results_ = nullptr;
  int64_t outstanding_ = 0;  // commits sent whose result has not been served
  int64_t commits_sent_ = 0;
  int64_t commits_failed_ = 0;
  PartitionOffsets confirmed_;

  std::mutex error_mutex_;
  std::string last_error_;  // GUARDED_BY(error_mutex_); scrubbed
};

}  // namespace weir::kafka
