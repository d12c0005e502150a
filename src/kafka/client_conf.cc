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

}  // namespace weir::kafka
