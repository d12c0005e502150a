#include "kafka/rdkafka_errors.h"

#include <cctype>

namespace weir::kafka {

namespace {

bool ContainsNoCase(std::string_view text, std::string_view word) {
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  for (size_t i = 0; i + word.size() <= text.size(); ++i) {
    size_t j = 0;
    while (j < word.size() && lower(text[i + j]) == lower(word[j])) ++j;
    if (j == word.size()) return true;
  }
  return false;
}

}  // namespace

std::string AuthFailureHint(const KafkaSourceOptions& options, std::string_view evidence) {
  if (ContainsNoCase(evidence, "OAUTHBEARER token")) {
    return "No token was sent to the broker: the identity service's answer is above";
  }
  // librdkafka's error name first ("_SSL: ..."); "sasl_ssl://" in a broker name is no evidence.
  if (evidence.starts_with("_SSL") || ContainsNoCase(evidence, "SSL handshake") ||
      ContainsNoCase(evidence, "certificate verify")) {
    return "The broker's TLS certificate is not trusted (TLS verification is on): for Event Hubs "
           "use the system's CA store (the default); for another broker set kafka.ssl.ca.location "
           "to the PEM file of the CA that signed its certificate, and check that the bootstrap "
           "host matches the certificate";
  }
  if (options.oauth) {
    return "The broker refused the Entra ID token of " + options.oauth->Describe() +
           ": check that the identity has the 'Azure Event Hubs Data Receiver' role on the "
           "namespace or event hub, that eventhubs.namespace names the namespace the token is "
           "for, and that the machine's clock is right (an expired token is refused)";
  }
  if (options.ClientConfig("sasl.username").value_or("") == "$ConnectionString") {
    return "The broker refused the connection string: check its SharedAccessKeyName and "
           "SharedAccessKey (a shared access policy with Listen rights, not revoked or rotated) "
           "and that its Endpoint names this namespace";
  }
  return "Check kafka.sasl.mechanism and the SASL credentials (kafka.sasl.jaas.config or "
         "kafka.sasl.username/password)";
}

bool IsAuthOrConfigKafkaError(rd_kafka_resp_err_t err) {
  switch (err) {
    case RD_KAFKA_RESP_ERR__AUTHENTICATION:
    case RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED:
    case RD_KAFKA_RESP_ERR_UNSUPPORTED_SASL_MECHANISM:
    case RD_KAFKA_RESP_ERR_ILLEGAL_SASL_STATE:
    case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR__SSL:
    case RD_KAFKA_RESP_ERR__INVALID_ARG:
    case RD_KAFKA_RESP_ERR__INVALID_TYPE:
    case RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE:
    case RD_KAFKA_RESP_ERR_INVALID_CONFIG:
    case RD_KAFKA_RESP_ERR_INVALID_GROUP_ID:
    case RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION:
      return true;
    default:
      return false;
  }
}

bool IsRetriableKafkaError(rd_kafka_resp_err_t err) {
  switch (err) {
    case RD_KAFKA_RESP_ERR__TRANSPORT:
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE:
    case RD_KAFKA_RESP_ERR__RESOLVE:
    case RD_KAFKA_RESP_ERR__MSG_TIMED_OUT:
    case RD_KAFKA_RESP_ERR__WAIT_COORD:
    case RD_KAFKA_RESP_ERR__NODE_UPDATE:
    case RD_KAFKA_RESP_ERR__OUTDATED:
    case RD_KAFKA_RESP_ERR__RETRY:
    case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION:
    case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
    case RD_KAFKA_RESP_ERR_BROKER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_REPLICA_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION:
    case RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_COORDINATOR:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR:
    case RD_KAFKA_RESP_ERR_FETCH_SESSION_ID_NOT_FOUND:
    case RD_KAFKA_RESP_ERR_INVALID_FETCH_SESSION_EPOCH:
    case RD_KAFKA_RESP_ERR_FENCED_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_UNKNOWN_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_PREFERRED_LEADER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_THROTTLING_QUOTA_EXCEEDED:
      return true;
    default:
      return false;
  }
}

Status StatusFromKafkaError(rd_kafka_resp_err_t err, std::string_view context) {
  std::string message(context);
  message += ": ";
  message += rd_kafka_err2str(err);
  message += " (";
  message += rd_kafka_err2name(err);
  message += ")";
  switch (err) {
    case RD_KAFKA_RESP_ERR_NO_ERROR:
      return Status::OK();
    case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
    case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
    case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
      return Status::NotFound(message);
    case RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE:
    case RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET:
      return Status::DataLoss(message);
    case RD_KAFKA_RESP_ERR__BAD_MSG:
    case RD_KAFKA_RESP_ERR__BAD_COMPRESSION:
    case RD_KAFKA_RESP_ERR_INVALID_MSG:
      return Status::Corruption(message);
    case RD_KAFKA_RESP_ERR__DESTROY:
      return Status::Cancelled(message);
    default:
      break;
  }
  if (IsAuthOrConfigKafkaError(err)) return Status::InvalidArgument(message);
  if (IsRetriableKafkaError(err)) return Status::Unavailable(message);
  return Status::Internal(message);
}

}  // namespace weir::kafka
