#include "stream/streaming_query.h"

#include <chrono>
#include <thread>

#include "delta/table.h"
#include "delta/transaction.h"
#include "kafka/consumer.h"
#include "kafka/offsets.h"
#include "kafka/planner.h"
#include "stream/checkpoint.h"
#include "stream/kafka_rows.h"
#include "stream/prefetcher.h"
#include "stream/table_sink.h"

namespace weir::stream {

namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  int64_t ElapsedMs() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// The per-partition progress txn: "weir:<flow>:<topic>:<partition>".
std::string PartitionAppId(const std::string& flow, const kafka::TopicPartition& tp) {
  return "weir:" + flow + ":" + tp.topic + ":" + std::to_string(tp.partition);
}

// Spark runs a batch when the end offsets differ from the start in any way: new data, new
// partitions, or partitions gone (which the batch then reports as data loss).
bool SameOffsets(const kafka::PartitionOffsets& a, const kafka::PartitionOffsets& b) { return a == b; }

}  // namespace

class StreamingQuery::Impl {
 public:
  Impl(fs::FileSystem* fs, KafkaFlowSpec spec, QueryOptions options)
      : fs_(fs), spec_(std::move(spec)), options_(std::move(options)), run_id_(NewUuid()) {}

  Status Init() {
    WEIR_ASSIGN_OR_RETURN(checkpoint_, Checkpoint::Open(fs_, spec_.checkpoint_dir));
    WEIR_ASSIGN_OR_RETURN(source_, kafka::KafkaSource::Open(spec_.source));
    input_schema_ = KafkaSourceSchema(spec_.source.include_headers);
    output_schema_ = spec_.transform ? spec_.transform->output_schema() : input_schema_;
    auto log = [this](const std::string& line) { Log(line); };
    WEIR_ASSIGN_OR_RETURN(sink_, TableSink::Open(fs_, {.name = spec_.name,
                                                       .path = spec_.table_path,
                                                       .schema = output_schema_,
                                                       .partition_by = spec_.partition_by,
                                                       .table_properties = spec_.table_properties,
                                                       .log = log}));
    const columnar::Schema* quarantine =
        spec_.transform ? spec_.transform->quarantine_schema() : nullptr;
    if (quarantine != nullptr) {
      WEIR_ASSIGN_OR_RETURN(quarantine_sink_, TableSink::Open(fs_, {.name = spec_.quarantine_name,
                                                                    .path = spec_.quarantine_path,
                                                                    .schema = *quarantine,
                                                                    .log = log}));
    }
    return Status::OK();
  }

  const std::string& id() const { return checkpoint_->query_id(); }
  const kafka::PartitionOffsets& next_offsets() const { return start_; }

  Status Run(std::atomic<bool>* stop, int64_t* batches_run, int64_t* rows_written) {
    stop_ = stop;
    WEIR_ASSIGN_OR_RETURN(RestartPlan plan, checkpoint_->PlanRestart());
    int64_t batch_id = plan.batch_id;
    watermark_ms_ = plan.watermark_ms;
    switch (plan.kind) {
      case RestartPlan::Kind::kFresh:
        WEIR_RETURN_NOT_OK(ChooseFreshStart());
        break;
      case RestartPlan::Kind::kNextBatch: {
        WEIR_ASSIGN_OR_RETURN(start_, SourceOffsets(*plan.start, plan.batch_id - 1));
        break;
      }
      case RestartPlan::Kind::kRerun: {
        if (plan.start) {
          WEIR_ASSIGN_OR_RETURN(start_, SourceOffsets(*plan.start, plan.batch_id - 1));
        } else {
          WEIR_ASSIGN_OR_RETURN(start_, InitialOffsetsFromCheckpoint());
        }
        WEIR_ASSIGN_OR_RETURN(kafka::PartitionOffsets end, SourceOffsets(*plan.end, plan.batch_id));
        // Partitions that were new in the logged batch start from their earliest offset, as when
        // the batch was first planned.
        std::set<kafka::TopicPartition> added;
        for (const auto& [tp, offset] : end) {
          if (!start_.count(tp)) added.insert(tp);
        }
        if (!added.empty()) {
          WEIR_ASSIGN_OR_RETURN(new_partition_earliest_, source_->EarliestOffsets(added));
        }
        Log("re-running batch " + std::to_string(batch_id) + " of " + spec_.name +
            " over its logged range (it was not committed)");
        WEIR_RETURN_NOT_OK(RunBatch(batch_id, end, plan.end->batch_timestamp_ms, /*latest=*/end,
                                    /*latest_ms=*/0, /*trigger_start_ms=*/NowMs(), rows_written));
        ++*batches_run;
        start_ = end;
        ++batch_id;
        if (options_.trigger.kind == Trigger::Kind::kOnce) return Status::OK();
        break;
      }
    }
    return Loop(batch_id, batches_run, rows_written);
  }

 private:
  void Log(const std::string& line) {
    if (options_.log) options_.log(line);
  }

  bool Stopping() const { return stop_ != nullptr && stop_->load(); }

  Result<kafka::PartitionOffsets> SourceOffsets(const OffsetSeq& seq, int64_t batch_id) {
    if (seq.sources.size() != 1) {
      return Status::InvalidArgument("There are [" + std::to_string(seq.sources.size()) +
                                     "] sources in the checkpoint offsets and now there are [1] "
                                     "sources requested by the query. Cannot continue. (checkpoint " +
                                     spec_.checkpoint_dir + ")");
    }
    if (!seq.sources[0]) return kafka::PartitionOffsets{};
    auto offsets = kafka::PartitionOffsetsFromJson(*seq.sources[0]);
    if (!offsets.ok()) {
      return offsets.status().WithContext("offsets/" + std::to_string(batch_id) + " in " +
                                          spec_.checkpoint_dir);
    }
    return offsets;
  }

  Result<kafka::PartitionOffsets> InitialOffsetsFromCheckpoint() {
    WEIR_ASSIGN_OR_RETURN(auto json, checkpoint_->ReadInitialOffsets(0));
    if (json) return kafka::PartitionOffsetsFromJson(*json);
    kafka::DataLossReporter reporter(spec_.source.fail_on_data_loss);
    WEIR_ASSIGN_OR_RETURN(auto initial, source_->InitialOffsets(&reporter));
    ReportWarnings(reporter);
    return initial;
  }

  // A new checkpoint: resume from the table's per-partition txns of this flow when it has some
  // (the checkpoint was lost or replaced), else from the source's starting offsets.
  Status ChooseFreshStart() {
    const std::string prefix = "weir:" + spec_.name + ":";
    kafka::PartitionOffsets from_table;
    for (const auto& [app_id, txn] : sink_->table().snapshot()->transactions()) {
      if (app_id.rfind(prefix, 0) != 0) continue;
      std::string rest = app_id.substr(prefix.size());
      size_t colon = rest.rfind(':');
      if (colon == std::string::npos) continue;
      kafka::TopicPartition tp{rest.substr(0, colon), std::stoi(rest.substr(colon + 1))};
      from_table[tp] = txn.version;
    }
    if (!from_table.empty()) {
      WEIR_ASSIGN_OR_RETURN(std::set<kafka::TopicPartition> partitions, source_->ListPartitions());
      kafka::PartitionOffsets start;
      std::set<kafka::TopicPartition> missing;
      for (const auto& tp : partitions) {
        auto it = from_table.find(tp);
        if (it != from_table.end()) {
          start[tp] = it->second;
        } else {
          missing.insert(tp);
        }
      }
      if (!missing.empty()) {  // partitions this flow never wrote: from the earliest offset
        WEIR_ASSIGN_OR_RETURN(auto earliest, source_->EarliestOffsets(missing));
        for (const auto& [tp, offset] : earliest) start[tp] = offset;
      }
      start_ = start;
      Log("no checkpoint for " + spec_.name + " in " + spec_.checkpoint_dir +
          ": resuming every partition from the table's per-partition progress " +
          kafka::PartitionOffsetsToJson(start_) + " (startingOffsets is ignored)");
    } else {
      kafka::DataLossReporter reporter(spec_.source.fail_on_data_loss);
      WEIR_ASSIGN_OR_RETURN(start_, source_->InitialOffsets(&reporter));
      ReportWarnings(reporter);
    }
    Status st = checkpoint_->WriteInitialOffsets(0, kafka::PartitionOffsetsToJson(start_));
    if (st.IsAlreadyExists()) return Status::OK();
    return st;
  }

  void ReportWarnings(const kafka::DataLossReporter& reporter) {
    for (const auto& w : reporter.Warnings()) Log("WARN " + w);
    skipped_offsets_ += reporter.skipped_offsets();
  }

  Status Loop(int64_t batch_id, int64_t* batches_run, int64_t* rows_written) {
    const Trigger& trigger = options_.trigger;
    const kafka::ReadLimits limits = trigger.kind == Trigger::Kind::kOnce
                                         ? kafka::ReadLimits{.all_available = true}
                                         : kafka::ReadLimits::FromOptions(spec_.source);
    std::optional<kafka::PartitionOffsets> available_now_cap;
    int64_t last_trigger_ms = 0;
    while (!Stopping()) {
      const int64_t trigger_start_ms = NowMs();
      Stopwatch latest_watch;
      WEIR_ASSIGN_OR_RETURN(std::set<kafka::TopicPartition> partitions, source_->ListPartitions());
      WEIR_ASSIGN_OR_RETURN(kafka::PartitionOffsets latest, source_->LatestOffsets(partitions, start_));
      new_partition_earliest_.clear();
      std::set<kafka::TopicPartition> added;
      for (const auto& [tp, offset] : latest) {
        if (!start_.count(tp)) added.insert(tp);
      }
      if (!added.empty()) {
        WEIR_ASSIGN_OR_RETURN(new_partition_earliest_, source_->EarliestOffsets(added));
      }
      if (trigger.kind == Trigger::Kind::kAvailableNow && !available_now_cap) {
        available_now_cap = latest;  // taken once, at the start
        backfill_total_ = 0;
        for (const auto& [tp, cap] : latest) {
          auto from = start_.find(tp);
          int64_t first = from != start_.end() ? from->second : new_partition_earliest_.count(tp)
                                                                   ? new_partition_earliest_.at(tp)
                                                                   : cap;
          if (cap > first) backfill_total_ += cap - first;
        }
      }
      const kafka::PartitionOffsets& target = available_now_cap ? *available_now_cap : latest;
      kafka::PartitionOffsets end = kafka::PlanBatchEnd(start_, target, new_partition_earliest_, limits,
                                                        trigger_start_ms, &last_trigger_ms);
      const int64_t latest_ms = latest_watch.ElapsedMs();
      if (SameOffsets(start_, end)) {  // no new data
        if (trigger.kind != Trigger::Kind::kProcessingTime) return Status::OK();
        SleepUntil(trigger.NextTriggerMs(trigger_start_ms));
        continue;
      }
      WEIR_RETURN_NOT_OK(RunBatch(batch_id, end, trigger_start_ms, latest, latest_ms, trigger_start_ms,
                                  rows_written));
      ++*batches_run;
      start_ = end;
      ++batch_id;
      if (trigger.kind == Trigger::Kind::kOnce) return Status::OK();
      if (trigger.kind == Trigger::Kind::kProcessingTime) {
        int64_t next = trigger.NextTriggerMs(trigger_start_ms);
        int64_t now = NowMs();
        if (trigger.interval_ms > 0 && now > next) {
          Log("WARN Current batch is falling behind. The trigger interval is " +
              std::to_string(trigger.interval_ms) + " milliseconds, but spent " +
              std::to_string(now - trigger_start_ms) + " milliseconds");
        } else {
          SleepUntil(next);
        }
      }
    }
    return Status::OK();
  }

  void SleepUntil(int64_t when_ms) {
    while (!Stopping()) {
      int64_t now = NowMs();
      if (now >= when_ms) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int64_t>(100, when_ms - now)));
    }
  }

  // Runs batch `batch_id` from start_ to `end`.
  Status RunBatch(int64_t batch_id, const kafka::PartitionOffsets& end, int64_t batch_timestamp_ms,
                  const kafka::PartitionOffsets& latest, int64_t latest_ms, int64_t trigger_start_ms,
                  int64_t* rows_written) {
    Stopwatch total;
    QueryProgress progress;
    progress.duration_ms["latestOffset"] = latest_ms;

    // walCommit: offsets/N before anything is written (skipped when re-running a logged batch).
    Stopwatch wal;
    auto existing = checkpoint_->ReadOffsets(batch_id);
    if (!existing.ok()) {
      if (!existing.status().IsNotFound()) return existing.status();
      OffsetSeq seq;
      seq.batch_watermark_ms = watermark_ms_;
      seq.batch_timestamp_ms = batch_timestamp_ms;
      seq.conf = {{"spark.sql.streaming.multipleWatermarkPolicy", "min"},
                  {"spark.sql.shuffle.partitions", "200"}};
      seq.sources.push_back(kafka::PartitionOffsetsToJson(end));
      WEIR_RETURN_NOT_OK(checkpoint_->WriteOffsets(batch_id, seq));
    }
    progress.duration_ms["walCommit"] = wal.ElapsedMs();

    // getBatch: the ranges to read, with data-loss checks.
    Stopwatch get_batch;
    kafka::DataLossReporter reporter(spec_.source.fail_on_data_loss);
    WEIR_ASSIGN_OR_RETURN(std::vector<kafka::OffsetRange> ranges,
                          kafka::PlanBatchRanges(start_, end, new_partition_earliest_,
                                                 spec_.source.group_id.has_value(),
                                                 kafka::RangeSplit{}, &reporter));
    ReportWarnings(reporter);
    progress.duration_ms["getBatch"] = get_batch.ElapsedMs();
    progress.duration_ms["queryPlanning"] = 0;

    // addBatch: read, transform, write files, commit them with the batch's txns (the quarantine
    // table first, so that a batch in the main table is complete in both).
    Stopwatch add_batch;
    int64_t input_rows = 0, output_rows = 0, files_written = 0;
    WEIR_ASSIGN_OR_RETURN(bool done, sink_->IsCommitted(id(), batch_id));
    bool quarantine_done = true;
    if (!done && quarantine_sink_) {
      WEIR_ASSIGN_OR_RETURN(quarantine_done, quarantine_sink_->IsCommitted(id(), batch_id));
    }
    if (done) {
      Log("Skipping already complete epoch " + std::to_string(batch_id) + ", in query " + id() +
          " (" + spec_.name + ": its Delta commit is already in the table)");
      for (const auto& r : ranges) input_rows += r.size();
    } else {
      WEIR_ASSIGN_OR_RETURN(std::shared_ptr<kafka::RangeReader> reader, source_->Read(ranges));
      // Fetching (and laying records out as columns) runs a chunk ahead of transforming and
      // encoding, on its own thread.
      BatchPrefetcher prefetcher(
          [this, reader]() -> Result<std::optional<columnar::Batch>> {
            while (!reader->done()) {
              WEIR_ASSIGN_OR_RETURN(kafka::RecordBatch records,
                                    reader->Next(static_cast<size_t>(options_.chunk_records)));
              if (records.empty()) continue;
              auto shared = std::make_shared<const kafka::RecordBatch>(std::move(records));
              columnar::Batch input(input_schema_);
              AppendKafkaRecords(shared, spec_.source.include_headers, &input);
              return std::optional<columnar::Batch>(std::move(input));
            }
            return std::optional<columnar::Batch>();
          },
          /*depth=*/1);
      auto fail = [&](Status st) {
        prefetcher.Stop();
        sink_->Abort();
        if (quarantine_sink_) quarantine_sink_->Abort();
        return st.WithContext(spec_.name + " batch " + std::to_string(batch_id));
      };
      while (true) {
        if (Stopping()) {
          return fail(Status::Cancelled("stopped during the batch; it will be re-run on restart"));
        }
        auto next = prefetcher.Next();
        if (!next.ok()) return fail(next.status());
        if (!*next) break;
        const columnar::Batch& input = **next;
        input_rows += input.num_rows();
        if (options_.on_backfill && backfill_total_ > 0) {
          backfill_done_ += input.num_rows();
          options_.on_backfill(BackfillStatus{spec_.name, backfill_done_, backfill_total_});
        }
        if (!spec_.transform) {
          output_rows += input.num_rows();
          Status st = sink_->Write(input);
          if (!st.ok()) return fail(st);
          continue;
        }
        auto out = spec_.transform->Apply(input, batch_timestamp_ms);
        if (!out.ok()) return fail(out.status());
        output_rows += out->rows.num_rows();
        Status st = sink_->Write(out->rows);
        if (st.ok() && quarantine_sink_ && !quarantine_done) st = quarantine_sink_->Write(out->quarantined);
        if (!st.ok()) return fail(st);
      }
      prefetcher.Stop();
      for (const auto& w : reader->stats().warnings) Log("WARN " + w);
      skipped_offsets_ += reader->stats().skipped_offsets;
      avg_record_bytes_ = reader->stats().AvgRecordBytes();
      if (quarantine_sink_ && !quarantine_done) {
        auto committed = quarantine_sink_->Commit(id(), batch_id, {});
        if (!committed.ok()) return fail(committed.status());
      }
      std::map<std::string, int64_t> partition_txns;
      for (const auto& [tp, offset] : end) partition_txns[PartitionAppId(spec_.name, tp)] = offset;
      auto committed = sink_->Commit(id(), batch_id, partition_txns);
      if (!committed.ok()) return fail(committed.status());
      files_written = *committed;
      *rows_written += output_rows;
    }
    progress.duration_ms["addBatch"] = add_batch.ElapsedMs();

    // commitOffsets: commits/N after the sink commit.
    Stopwatch commit_watch;
    Status st = checkpoint_->WriteCommit(batch_id, CommitMetadata{watermark_ms_});
    if (!st.ok() && !st.IsAlreadyExists()) return st;
    WEIR_RETURN_NOT_OK(checkpoint_->Purge(batch_id));
    progress.duration_ms["commitOffsets"] = commit_watch.ElapsedMs();
    progress.duration_ms["triggerExecution"] = total.ElapsedMs();

    // Progress, with Spark's rates: input rate over the time since the previous trigger start.
    progress.id = id();
    progress.run_id = run_id_;
    progress.name = spec_.name;
    progress.timestamp_ms = trigger_start_ms;
    progress.batch_id = batch_id;
    progress.batch_duration_ms = total.ElapsedMs();
    progress.num_input_rows = input_rows;
    double since_last = last_trigger_start_ms_ > 0
                            ? static_cast<double>(trigger_start_ms - last_trigger_start_ms_) / 1000.0
                            : 0.0;
    progress.input_rows_per_second = since_last > 0 ? static_cast<double>(input_rows) / since_last : 0.0;
    double seconds = static_cast<double>(std::max<int64_t>(progress.batch_duration_ms, 1)) / 1000.0;
    progress.processed_rows_per_second = static_cast<double>(input_rows) / seconds;
    last_trigger_start_ms_ = trigger_start_ms;
    SourceProgress source;
    source.description = "KafkaV2[" + spec_.source.subscription.ToString() + "]";
    source.start_offset = kafka::PartitionOffsetsToJson(start_);
    source.end_offset = kafka::PartitionOffsetsToJson(end);
    source.latest_offset = kafka::PartitionOffsetsToJson(latest);
    source.num_input_rows = input_rows;
    source.input_rows_per_second = progress.input_rows_per_second;
    source.processed_rows_per_second = progress.processed_rows_per_second;
    auto lag = kafka::ComputeLag(end, latest, avg_record_bytes_ > 0 ? std::optional<double>(avg_record_bytes_)
                                                                    : std::nullopt);
    if (lag) source.metrics = lag->ToSparkMetrics();
    if (skipped_offsets_ > 0) source.metrics["weir.skippedOffsets"] = std::to_string(skipped_offsets_);
    progress.sources.push_back(std::move(source));
    progress.sink_description = "DeltaSink[" + spec_.table_path + "]";
    progress.sink_num_output_rows = output_rows;
    progress.extra["weir"] = "{\"filesWritten\":" + std::to_string(files_written) + "}";
    if (spec_.transform) {
      if (auto quality = spec_.transform->TakeMetrics()) progress.extra["data_quality"] = quality->ToJson();
    }
    if (options_.on_progress) options_.on_progress(progress);
    return Status::OK();
  }

  fs::FileSystem* fs_;
  KafkaFlowSpec spec_;
  QueryOptions options_;
  std::string run_id_;
  std::unique_ptr<Checkpoint> checkpoint_;
  std::unique_ptr<kafka::KafkaSource> source_;
  std::unique_ptr<TableSink> sink_;
  std::unique_ptr<TableSink> quarantine_sink_;  // when the flow has a quarantine table
  columnar::Schema input_schema_;
  columnar::Schema output_schema_;
  kafka::PartitionOffsets start_;
  kafka::PartitionOffsets new_partition_earliest_;
  int64_t watermark_ms_ = 0;
  int64_t last_trigger_start_ms_ = 0;
  int64_t skipped_offsets_ = 0;
  int64_t backfill_total_ = 0;  // availableNow: offsets between the start and the cap
  int64_t backfill_done_ = 0;
  double avg_record_bytes_ = 0;
  std::atomic<bool>* stop_ = nullptr;
};

StreamingQuery::StreamingQuery(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StreamingQuery::~StreamingQuery() = default;

Result<std::unique_ptr<StreamingQuery>> StreamingQuery::Open(fs::FileSystem* fs, KafkaFlowSpec spec,
                                                             QueryOptions options) {
  auto impl = std::make_unique<Impl>(fs, std::move(spec), std::move(options));
  WEIR_RETURN_NOT_OK(impl->Init());
  return std::unique_ptr<StreamingQuery>(new StreamingQuery(std::move(impl)));
}

Status StreamingQuery::Run() { return impl_->Run(&stop_, &batches_run_, &rows_written_); }

const std::string& StreamingQuery::id() const { return impl_->id(); }

std::string StreamingQuery::next_offsets_json() const {
  return kafka::PartitionOffsetsToJson(impl_->next_offsets());
}

}  // namespace weir::stream
