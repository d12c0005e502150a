#include "kafka/client_conf.h"

namespace weir::kafka {

Result<rd_kafka_conf_t*> NewClientConf(const KafkaSourceOptions& options,
                                       const std::string& group_id, const ConfSettings& required,
                                       const ConfSettings& defaults) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char errstr[512];
  auto set = [&](const std::string& name, const std::string& value) -> Status {
    if (rd_kafka_conf_set(conf, name.c_str(), value.c_str(), errstr, sizeof(errstr)) !=
        RD_KAFKA_CONF_OK) {
      return options.redactor.Scrub(
          Status::InvalidArgument("Kafka client property '" + name + "' rejected: " + errstr));
    }
    return Status::OK();
  };
  ConfSettings settings(options.client_config.begin(), options.client_config.end());
  settings.insert(settings.end(), {{"group.id", group_id},
                                   {"enable.auto.commit", "false"},
                                   {"enable.auto.offset.store", "false"}});
  settings.insert(settings.end(), required.begin(), required.end());
  for (const auto& [name, value] : defaults) {
    if (!options.ClientConfig(name)) settings.emplace_back(name, value);
  }
  for (const auto& [name, value] : settings) {
    Status st = set(name, value);
    if (!st.ok()) {
      rd_kafka_conf_destroy(conf);
      return st;
    }
  }
  return conf;
}

Result<rd_kafka_t*> NewConsumerClient(rd_kafka_conf_t* conf, const std::string& what,
                                      bool oauth_refresh, const Redactor& redactor) {
  if (oauth_refresh) rd_kafka_conf_enable_sasl_queue(conf, 1);
  char errstr[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return redactor.Scrub(Status::InvalidArgument("cannot create the Kafka client" +
                                                  (what.empty() ? "" : " " + what) + ": " + errstr));
  }
  if (oauth_refresh) {
    if (rd_kafka_error_t* error = rd_kafka_sasl_background_callbacks_enable(rk)) {
      std::string msg = rd_kafka_error_string(error);
      rd_kafka_error_destroy(error);
      rd_kafka_destroy(rk);
      // librdkafka refuses when the connection does not use SASL OAUTHBEARER, e.g. Entra ID
      // credentials next to kafka.security.protocol=PLAINTEXT: a configuration mistake.
      return redactor.Scrub(Status::InvalidArgument(
          "OAUTHBEARER client credentials are configured but the connection does not use them (" +
          msg + "): set kafka.security.protocol to SASL_SSL (or SASL_PLAINTEXT) and "
          "kafka.sasl.mechanism to OAUTHBEARER, or remove the credentials"));
    }
  }
  return rk;
}

}  // namespace weir::kafka
