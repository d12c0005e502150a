// The librdkafka configuration every weir client starts from: the source's client settings
// (bootstrap, TLS, SASL) and a consumer group id, with librdkafka's own offset commits off —
// weir's offsets live in its checkpoint and its table's txns. Shared by the source's consumer
// and the consumer-group offsets committer.
#pragma once

#include <librdkafka/rdkafka.h>

#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "kafka/options.h"

namespace weir::kafka {

using ConfSettings = std::vector<std::pair<std::string, std::string>>;

// Applies options.client_config, group.id, enable.auto.commit=false and
// enable.auto.offset.store=false, then `required`, then each of `defaults` the user did not set.
// InvalidArgument naming a rejected property (scrubbed of secrets). The caller owns the result
// (rd_kafka_new takes it, else rd_kafka_conf_destroy).
Result<rd_kafka_conf_t*> NewClientConf(const KafkaSourceOptions& options,
                                       const std::string& group_id, const ConfSettings& required,
                                       const ConfSettings& defaults);

// rd_kafka_new of a consumer-type client from `conf` (which it takes, also on failure). With
// `oauth_refresh` (a token-refresh callback is set on `conf`) tokens are refreshed on librdkafka's
// background thread, since weir's clients are not polled for them. InvalidArgument naming `what`,
// scrubbed by `redactor`.
Result<rd_kafka_t*> NewConsumerClient(rd_kafka_conf_t* conf, const std::string& what,
                                      bool oauth_refresh, const Redactor& redactor);

}  // namespace weir::kafka
