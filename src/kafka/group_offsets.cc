#include "kafka/group_offsets.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "kafka/client_conf.h"
#include "kafka/oauth.h"

namespace weir::kafka {

// ---------------------------------------------------------------------------------------------
// CommitRateLimiter

void CommitRateLimiter::Want(const PartitionOffsets& offsets) {
  for (const auto& [tp, offset] : offsets) {
    auto last = last_committed_.find(tp);
    if (last != last_committed_.end() && last->second == offset) {
      pending_.erase(tp);  // already committed: nothing to do
    } else {
      pending_[tp] = offset;
    }
  }
}

PartitionOffsets CommitRateLimiter::TakeDue(int64_t now_ms) {
  PartitionOffsets due;
  for (auto it = pending_.begin(); it != pending_.end();) {
    auto last_ms = last_commit_ms_.find(it->first);
    if (last_ms != last_commit_ms_.end() && now_ms - last_ms->second < min_interval_ms_) {
      ++it;
      continue;
    }
    due[it->first] = it->second;
    last_commit_ms_[it->first] = now_ms;
    last_committed_[it->first] = it->second;
    it = pending_.erase(it);
  }
  return due;
}

int64_t CommitRateLimiter::MsUntilAllDue(int64_t now_ms) const {
  int64_t wait = 0;
  for (const auto& [tp, offset] : pending_) {
    auto last_ms = last_commit_ms_.find(tp);
    if (last_ms == last_commit_ms_.end()) continue;
    wait = std::max(wait, last_ms->second + min_interval_ms_ - now_ms);
  }
  return wait;
}

// ---------------------------------------------------------------------------------------------
// GroupOffsetCommitter

namespace {

struct PartitionListHolder {
  rd_kafka_topic_partition_list_t* list;
  explicit PartitionListHolder(int size) : list(rd_kafka_topic_partition_list_new(size)) {}
  ~PartitionListHolder() { rd_kafka_topic_partition_list_destroy(list); }
  PartitionListHolder(const PartitionListHolder&) = delete;
  PartitionListHolder& operator=(const PartitionListHolder&) = delete;
};

int64_t SteadyNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void IgnoreLog(const rd_kafka_t* /*rk*/, int /*level*/, const char* /*facility*/,
               const char* /*buf*/) {}

}  // namespace

GroupOffsetCommitter::GroupOffsetCommitter(std::string group_id,
                                           std::function<void(const std::string&)> warn,
                                           GroupOffsetCommitterConfig config, Redactor redactor)
    : group_id_(std::move(group_id)),
      warn_(std::move(warn)),
      config_(std::move(config)),
      redactor_(std::move(redactor)) {}

Result<std::unique_ptr<GroupOffsetCommitter>> GroupOffsetCommitter::Open(
    const KafkaSourceOptions& options, std::string group_id,
    std::function<void(const std::string&)> warn, GroupOffsetCommitterConfig config) {
  if (group_id.empty()) {
    return Status::InvalidArgument("committing offsets needs a consumer group id");
  }
  std::unique_ptr<GroupOffsetCommitter> committer(new GroupOffsetCommitter(
      std::move(group_id), std::move(warn), std::move(config), options.redactor));
  WEIR_RETURN_NOT_OK(committer->Init(options));
  return committer;
}

Status GroupOffsetCommitter::Init(const KafkaSourceOptions& options) {
  if (options.oauth && !config_.token_source) {
    WEIR_ASSIGN_OR_RETURN(config_.token_source, MakeTokenSource(*options.oauth, options.redactor));
  }
  // The source's connection settings (bootstrap, TLS, SASL) and the group: explicit commits
  // only, never a subscription.
  WEIR_ASSIGN_OR_RETURN(rd_kafka_conf_t * conf,
                        NewClientConf(options, group_id_, {}, {{"client.id", "weir-offsets"}}));
  rd_kafka_conf_set_opaque(conf, this);
  rd_kafka_conf_set_log_cb(conf, &IgnoreLog);  // failures arrive as commit results
  rd_kafka_conf_set_error_cb(conf, &GroupOffsetCommitter::ErrorCallback);
  if (config_.token_source) {
    rd_kafka_conf_set_oauthbearer_token_refresh_cb(conf,
                                                   &GroupOffsetCommitter::TokenRefreshCallback);
  }
  WEIR_ASSIGN_OR_RETURN(rk_, NewConsumerClient(conf, "for committing offsets",
                                               config_.token_source != nullptr, redactor_));
  results_ = rd_kafka_queue_new(rk_);
  return Status::OK();
}

GroupOffsetCommitter::~GroupOffsetCommitter() {
  if (rk_ != nullptr) {
    (void)Flush();  // failures were reported to warn_
    rd_kafka_queue_destroy(results_);
    rd_kafka_destroy_flags(rk_, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);  // never subscribed
  }
}

int64_t GroupOffsetCommitter::NowMs() const {
  return config_.now_ms ? config_.now_ms() : SteadyNowMs();
}

void GroupOffsetCommitter::Warn(const std::string& line) {
  if (warn_) warn_(redactor_.Scrub(line));
}

void GroupOffsetCommitter::ErrorCallback(rd_kafka_t* /*rk*/, int err, const char* reason,
                                         void* opaque) {
  auto* self = static_cast<GroupOffsetCommitter*>(opaque);
  if (self == nullptr) return;
  std::string line =
      std::string(rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(err))) + ": " + reason;
  std::lock_guard<std::mutex> lock(self->error_mutex_);
  self->last_error_ = self->redactor_.Scrub(line);
}

void GroupOffsetCommitter::TokenRefreshCallback(rd_kafka_t* rk, const char* /*config*/,
                                                void* opaque) {
  auto* self = static_cast<GroupOffsetCommitter*>(opaque);
  std::string failure = RefreshOAuthBearerToken(rk, *self->config_.token_source, self->redactor_);
  if (failure.empty()) return;
  std::lock_guard<std::mutex> lock(self->error_mutex_);
  self->last_error_ = failure;
}

void GroupOffsetCommitter::Send(const PartitionOffsets& offsets) {
  if (offsets.empty()) return;
  PartitionListHolder holder(static_cast<int>(offsets.size()));
  for (const auto& [tp, offset] : offsets) {
    rd_kafka_topic_partition_t* p =
        rd_kafka_topic_partition_list_add(holder.list, tp.topic.c_str(), tp.partition);
    p->offset = offset;
  }
  rd_kafka_resp_err_t err = rd_kafka_commit_queue(rk_, holder.list, results_, nullptr, nullptr);
  ++commits_sent_;
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    ++commits_failed_;
    Warn("committing offsets " + PartitionOffsetsToJson(offsets) + " to consumer group '" +
         group_id_ + "' failed: " + rd_kafka_err2str(err) + " (" + rd_kafka_err2name(err) +
         "); lag monitors see older offsets until a later commit succeeds");
    return;
  }
  ++outstanding_;
}

bool GroupOffsetCommitter::ServeResults(int timeout_ms) {
  bool handled = false;
  int wait = timeout_ms;
  while (outstanding_ > 0) {
    rd_kafka_event_t* ev = rd_kafka_queue_poll(results_, wait);
    if (ev == nullptr) break;
    wait = 0;
    if (rd_kafka_event_type(ev) != RD_KAFKA_EVENT_OFFSET_COMMIT) {
      rd_kafka_event_destroy(ev);
      continue;
    }
    --outstanding_;
    handled = true;
    const rd_kafka_topic_partition_list_t* list = rd_kafka_event_topic_partition_list(ev);
    std::string failed;
    const rd_kafka_resp_err_t event_err = rd_kafka_event_error(ev);
    rd_kafka_resp_err_t first_err = event_err;
    if (list != nullptr) {
      for (int i = 0; i < list->cnt; ++i) {
        const rd_kafka_topic_partition_t& p = list->elems[i];
        TopicPartition tp{p.topic, p.partition};
        rd_kafka_resp_err_t err = p.err != RD_KAFKA_RESP_ERR_NO_ERROR ? p.err : event_err;
        if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
          if (first_err == RD_KAFKA_RESP_ERR_NO_ERROR) first_err = err;
          failed +=
              (failed.empty() ? "" : ", ") + tp.ToString() + " at " + std::to_string(p.offset);
          continue;
        }
        auto [it, inserted] = confirmed_.emplace(tp, p.offset);
        if (!inserted) it->second = std::max(it->second, static_cast<int64_t>(p.offset));
      }
    }
    if (first_err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      ++commits_failed_;
      std::string detail;
      {
        std::lock_guard<std::mutex> lock(error_mutex_);
        if (!last_error_.empty()) detail = " (client: " + last_error_ + ")";
      }
      Warn("committing offsets to consumer group '" + group_id_ + "' failed" +
           (failed.empty() ? "" : " for " + failed) + ": " + rd_kafka_err2str(first_err) + " (" +
           rd_kafka_err2name(first_err) + ")" + detail +
           "; the flow goes on (its checkpoint and table are not affected), lag monitors see "
           "older offsets until a later commit succeeds");
    }
    rd_kafka_event_destroy(ev);
  }
  return handled;
}

void GroupOffsetCommitter::SendDue() {
  if (outstanding_ > 0) return;  // the next commit goes out after this one's result
  Send(limiter_.TakeDue(NowMs()));
}

void GroupOffsetCommitter::Commit(const PartitionOffsets& next_offsets) {
  ServeResults(0);
  rd_kafka_poll(rk_, 0);  // serves client error events
  limiter_.Want(next_offsets);
  SendDue();
}

void GroupOffsetCommitter::Poll() {
  ServeResults(0);
  rd_kafka_poll(rk_, 0);
  SendDue();
}

void GroupOffsetCommitter::AwaitOutstanding(int64_t deadline_ms) {
  while (outstanding_ > 0) {
    const int64_t left = deadline_ms - SteadyNowMs();
    if (left <= 0) break;
    ServeResults(static_cast<int>(std::min<int64_t>(left, 100)));
  }
}

Status GroupOffsetCommitter::Flush() {
  const int64_t failed_before = commits_failed_;
  const int64_t deadline_ms = SteadyNowMs() + config_.flush_timeout_ms;
  AwaitOutstanding(deadline_ms);  // one commit in flight at a time
  if (outstanding_ == 0) {
    int64_t wait = limiter_.MsUntilAllDue(NowMs());
    if (wait > 0) std::this_thread::sleep_for(std::chrono::milliseconds(wait));
    // The clock may be a test's: whatever is still pending is committed now.
    Send(limiter_.TakeDue(NowMs() + wait));
    AwaitOutstanding(deadline_ms);
  }
  rd_kafka_poll(rk_, 0);
  if (outstanding_ > 0) {
    std::string msg = std::to_string(outstanding_) + " offset commit(s) to consumer group '" +
                      group_id_ + "' did not finish within " +
                      std::to_string(config_.flush_timeout_ms) +
                      " ms; lag monitors may see older offsets";
    Warn(msg);
    return Status::Unavailable(redactor_.Scrub(msg));
  }
  if (commits_failed_ > failed_before) {
    return Status::Unavailable("committing offsets to consumer group '" + group_id_ +
                               "' failed (see the warnings)");
  }
  return Status::OK();
}

}  // namespace weir::kafka
