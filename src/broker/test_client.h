// Test-only Kafka client helpers for the broker module's tests: read a topic back completely and
// query watermarks with a real librdkafka consumer. Header-only so the library does not carry it.
#pragma once

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"

namespace weir::broker::testing {

struct ConsumedRecord {
  int32_t partition = 0;
  int64_t offset = 0;
  std::string key;
  std::string value;
  std::vector<std::pair<std::string, std::string>> headers;
};

struct ClientDeleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
using Client = std::unique_ptr<rd_kafka_t, ClientDeleter>;

inline Result<Client> NewConsumer(const std::string& bootstrap) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char errstr[512];
  for (auto [name, value] :
       std::vector<std::pair<const char*, const char*>>{{"group.id", "weir-broker-test"},
                                                        {"enable.auto.commit", "false"},
                                                        {"enable.partition.eof", "true"},
                                                        {"log_level", "0"},
                                                        {"socket.timeout.ms", "3000"}}) {
    rd_kafka_conf_set(conf, name, value, errstr, sizeof(errstr));
  }
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), errstr, sizeof(errstr));
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
  if (rk == nullptr) return Status::Internal(errstr);
  return Client(rk);
}

// (low, high) watermarks of one partition, asked of the leader (ListOffsets).
inline Result<std::pair<int64_t, int64_t>> Watermarks(rd_kafka_t* rk, const std::string& topic,
                                                      int32_t partition, int timeout_ms = 5000) {
  int64_t low = -1, high = -1;
  rd_kafka_resp_err_t err =
      rd_kafka_query_watermark_offsets(rk, topic.c_str(), partition, &low, &high, timeout_ms);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::Unavailable(std::string("watermarks of ") + topic + ": " +
                               rd_kafka_err2name(err));
  }
  return std::make_pair(low, high);
}

// Reads partitions 0..partitions-1 from their log start to their current end.
inline Result<std::vector<ConsumedRecord>> ConsumeAll(const std::string& bootstrap,
                                                      const std::string& topic, int partitions) {
  WEIR_ASSIGN_OR_RETURN(Client consumer, NewConsumer(bootstrap));
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
  int pending = 0;
  for (int p = 0; p < partitions; ++p) {
    WEIR_ASSIGN_OR_RETURN(auto marks, Watermarks(consumer.get(), topic, p));
    if (marks.second == marks.first) continue;
    rd_kafka_topic_partition_list_add(list, topic.c_str(), p)->offset = RD_KAFKA_OFFSET_BEGINNING;
    ++pending;
  }
  rd_kafka_assign(consumer.get(), list);
  rd_kafka_topic_partition_list_destroy(list);
  std::vector<ConsumedRecord> records;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (pending > 0 && std::chrono::steady_clock::now() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer.get(), 200);
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      --pending;
    } else if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      ConsumedRecord r;
      r.partition = m->partition;
      r.offset = m->offset;
      r.key.assign(static_cast<const char*>(m->key), m->key_len);
      r.value.assign(static_cast<const char*>(m->payload), m->len);
      rd_kafka_headers_t* headers = nullptr;
      if (rd_kafka_message_headers(m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
        const char* name;
        const void* value;
        size_t size;
        for (size_t i = 0; rd_kafka_header_get_all(headers, i, &name, &value, &size) ==
                           RD_KAFKA_RESP_ERR_NO_ERROR;
             ++i) {
          r.headers.emplace_back(name, std::string(static_cast<const char*>(value), size));
        }
      }
      records.push_back(std::move(r));
    } else {
      std::string error = rd_kafka_message_errstr(m);
      rd_kafka_message_destroy(m);
      return Status::Unavailable("consuming " + topic + ": " + error);
    }
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(consumer.get());
  if (pending > 0) return Status::Unavailable("timed out reading " + topic + " back");
  return records;
}

}  // namespace weir::broker::testing
