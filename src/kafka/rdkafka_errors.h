// The one place librdkafka error codes become weir Status codes (kafka/ module only):
// Unavailable for retriable and transport faults, DataLoss for offsets out of range,
// InvalidArgument for authentication/authorization/configuration, NotFound for unknown
// topics/partitions, Corruption for undecodable batches. Thread-safe (pure functions).
#pragma once

#include <librdkafka/rdkafka.h>

#include <string>
#include <string_view>

#include "base/status.h"
#include "kafka/options.h"

namespace weir::kafka {

// `context` first, then librdkafka's text and error name:
// "reading orders-0: Local: Broker transport failure (_TRANSPORT)".
Status StatusFromKafkaError(rd_kafka_resp_err_t err, std::string_view context);

// True when librdkafka retries the condition by itself or a later attempt may succeed.
bool IsRetriableKafkaError(rd_kafka_resp_err_t err);

// True for authentication / authorization / configuration failures a retry cannot fix
// (including TLS handshake failures: librdkafka reports an untrusted certificate as _SSL).
bool IsAuthOrConfigKafkaError(rd_kafka_resp_err_t err);

// What the user should check after a permanent connection failure whose text is `evidence`
// (a librdkafka error line or a token request failure), for the credentials in `options`.
std::string AuthFailureHint(const KafkaSourceOptions& options, std::string_view evidence);

}  // namespace weir::kafka
