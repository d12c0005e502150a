#include "broker/sample_producer.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>

namespace weir::broker {
namespace {

using Clock = std::chrono::steady_clock;

// Collects delivery reports; runs on the thread that calls rd_kafka_poll / rd_kafka_flush.
struct DeliveryTracker {
  std::map<int32_t, PartitionReport> partitions;
  std::vector<std::pair<int32_t, int64_t>> malformed_offsets;
  int64_t delivered = 0;
  int64_t failed = 0;
  std::string first_failure;
  std::string last_client_error;
};

void OnDelivery(rd_kafka_t*, const rd_kafka_message_t* message, void* opaque) {
  auto* tracker = static_cast<DeliveryTracker*>(opaque);
  if (message->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    if (tracker->failed++ == 0) {
      tracker->first_failure = std::string("partition ") + std::to_string(message->partition) +
                               ": " + rd_kafka_err2name(message->err) + " (" +
                               rd_kafka_err2str(message->err) + ")";
    }
    return;
  }
  ++tracker->delivered;
  PartitionReport& p = tracker->partitions[message->partition];
  p.partition = message->partition;
  if (p.count++ == 0) {
    p.first_offset = p.last_offset = message->offset;
  } else {
    p.first_offset = std::min(p.first_offset, message->offset);
    p.last_offset = std::max(p.last_offset, message->offset);
  }
  auto kind = static_cast<EventKind>(reinterpret_cast<uintptr_t>(message->_private));
  if (kind == EventKind::kMalformed) {
    tracker->malformed_offsets.emplace_back(message->partition, message->offset);
  }
}

void OnClientError(rd_kafka_t*, int err, const char* reason, void* opaque) {
  auto* tracker = static_cast<DeliveryTracker*>(opaque);
  tracker->last_client_error =
      std::string(rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(err))) + ": " + reason;
}

struct ProducerDeleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
struct TopicDeleter {
  void operator()(rd_kafka_topic_t* rkt) const { rd_kafka_topic_destroy(rkt); }
};

Status SetProperty(rd_kafka_conf_t* conf, const std::string& name, const std::string& value) {
  char errstr[512];
  if (rd_kafka_conf_set(conf, name.c_str(), value.c_str(), errstr, sizeof(errstr)) !=
      RD_KAFKA_CONF_OK) {
    return Status::InvalidArgument("producer setting " + name + ": " + errstr);
  }
  return Status::OK();
}

Status ValidateOptions(const ProduceOptions& options) {
  if (options.bootstrap_servers.empty()) {
    return Status::InvalidArgument("no bootstrap servers given");
  }
  if (options.topic.empty()) return Status::InvalidArgument("no topic given");
  if (options.count < 0) return Status::InvalidArgument("event count must not be negative");
  if (options.rate < 0 || !std::isfinite(options.rate)) {
    return Status::InvalidArgument("rate must be a non-negative number of events per second");
  }
  if (options.partitions < 0) return Status::InvalidArgument("partitions must not be negative");
  if (options.timeout_ms < 1) return Status::InvalidArgument("timeout must be positive");
  static const char* const kCodecs[] = {"none", "gzip", "snappy", "lz4", "zstd"};
  if (std::none_of(std::begin(kCodecs), std::end(kCodecs),
                   [&](const char* c) { return options.compression == c; })) {
    return Status::InvalidArgument("unknown compression '" + options.compression +
                                   "'; use none, gzip, snappy, lz4 or zstd");
  }
  return ValidateEventGeneratorOptions(options.events);
}

// Headers for one event; ownership passes to librdkafka when the produce call succeeds.
rd_kafka_headers_t* MakeHeaders(uint64_t sequence) {
  rd_kafka_headers_t* headers = rd_kafka_headers_new(2);
  rd_kafka_header_add(headers, "source", -1, "weir-produce", -1);
  std::string seq = std::to_string(sequence);
  rd_kafka_header_add(headers, "seq", -1, seq.data(), static_cast<ssize_t>(seq.size()));
  return headers;
}

}  // namespace

Result<ProduceReport> ProduceSampleEvents(const ProduceOptions& options) {
  WEIR_RETURN_NOT_OK(ValidateOptions(options));
  DeliveryTracker tracker;

  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::unique_ptr<rd_kafka_conf_t, void (*)(rd_kafka_conf_t*)> conf_guard(conf,
                                                                          rd_kafka_conf_destroy);
  const std::vector<std::pair<std::string, std::string>> defaults = {
      {"bootstrap.servers", options.bootstrap_servers},
      {"client.id", "weir-produce"},
      // Idempotence keeps each partition in send order with no retry duplicates, so the only
      // duplicates in the topic are the ones the generator made on purpose.
      {"enable.idempotence", "true"},
      {"linger.ms", "10"},
      {"batch.size", "1000000"},
      {"batch.num.messages", "100000"},
      {"queue.buffering.max.messages", "1000000"},
      {"queue.buffering.max.kbytes", "1048576"},
      {"compression.codec", options.compression},
      {"message.timeout.ms", std::to_string(options.timeout_ms)},
      {"log_level", "0"},
  };
  for (const auto& [name, value] : defaults) WEIR_RETURN_NOT_OK(SetProperty(conf, name, value));
  for (const auto& [name, value] : options.client_properties) {
    WEIR_RETURN_NOT_OK(SetProperty(conf, name, value));
  }
  rd_kafka_conf_set_dr_msg_cb(conf, OnDelivery);
  rd_kafka_conf_set_error_cb(conf, OnClientError);
  rd_kafka_conf_set_opaque(conf, &tracker);

  char errstr[512];
  std::unique_ptr<rd_kafka_t, ProducerDeleter> producer(
      rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr)));
  if (!producer) return Status::InvalidArgument(std::string("cannot create producer: ") + errstr);
  conf_guard.release();  // rd_kafka_new took it
  rd_kafka_t* rk = producer.get();
  std::unique_ptr<rd_kafka_topic_t, TopicDeleter> topic(
      rd_kafka_topic_new(rk, options.topic.c_str(), nullptr));
  if (!topic) {
    return Status::InvalidArgument("cannot use topic " + options.topic + ": " +
                                   rd_kafka_err2str(rd_kafka_last_error()));
  }

  EventGenerator generator(options.events);
  GeneratedEvent event;
  ProduceReport report;
  report.topic = options.topic;
  report.seed = options.events.seed;
  report.first_event_time_ms = generator.base_time_ms();
  report.last_event_time_ms = generator.base_time_ms();

  const Clock::time_point start = Clock::now();
  for (int64_t i = 0; i < options.count; ++i) {
    generator.Next(&event);
    report.payload_bytes += event.payload.size();
    report.last_event_time_ms =
        generator.base_time_ms() + static_cast<int64_t>(event.sequence) * options.events.step_ms;
    int32_t partition = RD_KAFKA_PARTITION_UA;
    if (options.partitions > 0) {
      partition = rd_kafka_msg_partitioner_consistent(
          topic.get(), event.key.data(), event.key.size(), options.partitions, nullptr, nullptr);
    }
    rd_kafka_headers_t* headers = options.headers ? MakeHeaders(event.sequence) : nullptr;
    while (true) {
      rd_kafka_resp_err_t err = rd_kafka_producev(
          rk, RD_KAFKA_V_RKT(topic.get()), RD_KAFKA_V_PARTITION(partition),
          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
          RD_KAFKA_V_KEY(event.key.data(), event.key.size()),
          RD_KAFKA_V_VALUE(event.payload.data(), event.payload.size()),
          RD_KAFKA_V_OPAQUE(reinterpret_cast<void*>(static_cast<uintptr_t>(event.kind))),
          RD_KAFKA_V_HEADERS(headers), RD_KAFKA_V_END);
      if (err == RD_KAFKA_RESP_ERR_NO_ERROR) break;
      if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(rk, 5);  // let deliveries drain the local queue
        continue;
      }
      if (headers != nullptr) rd_kafka_headers_destroy(headers);
      return Status::Unavailable("cannot send event " + std::to_string(event.sequence) +
                                 " to topic " + options.topic + ": " + rd_kafka_err2name(err) +
                                 " (" + rd_kafka_err2str(err) + ")");
    }
    if ((i & 1023) == 0) rd_kafka_poll(rk, 0);
    if (options.rate > 0) {
      auto due = start + std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>((i + 1) / options.rate));
      while (true) {
        auto ahead = std::chrono::duration_cast<std::chrono::milliseconds>(due - Clock::now());
        if (ahead.count() < 1) break;
        rd_kafka_poll(rk, static_cast<int>(std::min<int64_t>(ahead.count(), 100)));
      }
    }
    if (tracker.failed > 0) break;  // stop early; the error is reported below
  }

  // Waits for every acknowledgement (or its timeout); each one runs OnDelivery.
  rd_kafka_resp_err_t flush_err =
      rd_kafka_flush(rk, static_cast<int>(std::min<int64_t>(options.timeout_ms + 5000, INT32_MAX)));
  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  report.counts = generator.counts();

  char fatal_reason[512];
  rd_kafka_resp_err_t fatal = rd_kafka_fatal_error(rk, fatal_reason, sizeof(fatal_reason));
  std::string hint =
      tracker.last_client_error.empty() ? "" : "; last client error: " + tracker.last_client_error;
  if (fatal != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::Unavailable("producer to topic " + options.topic +
                               " failed: " + rd_kafka_err2name(fatal) + ": " + fatal_reason);
  }
  if (tracker.failed > 0) {
    return Status::Unavailable(std::to_string(tracker.failed) + " of " +
                               std::to_string(report.counts.total) +
                               " events were not delivered to topic " + options.topic +
                               "; first failure on " + tracker.first_failure + hint);
  }
  if (flush_err != RD_KAFKA_RESP_ERR_NO_ERROR ||
      tracker.delivered != static_cast<int64_t>(report.counts.total)) {
    return Status::Unavailable(std::to_string(report.counts.total - tracker.delivered) + " of " +
                               std::to_string(report.counts.total) + " events sent to topic " +
                               options.topic +
                               " were not acknowledged in time; check that the brokers at " +
                               options.bootstrap_servers + " are up" + hint);
  }

  for (auto& [partition, p] : tracker.partitions) report.partitions.push_back(p);
  report.malformed_offsets = std::move(tracker.malformed_offsets);
  std::sort(report.malformed_offsets.begin(), report.malformed_offsets.end());
  return report;
}

std::string ManifestJson(const ProduceReport& report) {
  // Topic names are [a-zA-Z0-9._-] in Kafka, but escape anyway so the output is always JSON.
  std::string topic;
  for (char c : report.topic) {
    if (c == '"' || c == '\\') topic.push_back('\\');
    if (static_cast<unsigned char>(c) < 0x20) continue;
    topic.push_back(c);
  }
  std::string out = "{\"topic\":\"" + topic + "\"";
  out += ",\"count\":" + std::to_string(report.counts.total);
  out += ",\"seed\":" + std::to_string(report.seed);
  out += ",\"partitions\":[";
  for (size_t i = 0; i < report.partitions.size(); ++i) {
    const PartitionReport& p = report.partitions[i];
    if (i > 0) out += ",";
    out += "{\"partition\":" + std::to_string(p.partition) +
           ",\"count\":" + std::to_string(p.count) +
           ",\"first_offset\":" + std::to_string(p.first_offset) +
           ",\"last_offset\":" + std::to_string(p.last_offset) + "}";
  }
  out += "],\"valid_distinct_event_ids\":" + std::to_string(report.counts.distinct_event_ids());
  out += ",\"valid\":" + std::to_string(report.counts.valid);
  out += ",\"late\":" + std::to_string(report.counts.late);
  out += ",\"duplicates\":" + std::to_string(report.counts.duplicates);
  out += ",\"malformed\":" + std::to_string(report.counts.malformed);
  out += ",\"malformed_offsets\":[";
  for (size_t i = 0; i < report.malformed_offsets.size(); ++i) {
    if (i > 0) out += ",";
    out.push_back('[');
    out.append(std::to_string(report.malformed_offsets[i].first));
    out.push_back(',');
    out.append(std::to_string(report.malformed_offsets[i].second));
    out.push_back(']');
  }
  out += "],\"first_event_time\":\"" + FormatEventTime(report.first_event_time_ms) + "\"";
  out += ",\"last_event_time\":\"" + FormatEventTime(report.last_event_time_ms) + "\"";
  out += ",\"payload_bytes\":" + std::to_string(report.payload_bytes);
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%.3f", report.seconds);
  out += ",\"seconds\":" + std::string(seconds) + "}\n";
  return out;
}

}  // namespace weir::broker
