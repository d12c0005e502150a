// A server-side SASL/PLAIN callback handler that accepts what the Event Hubs Kafka endpoint
// accepts: username exactly "$ConnectionString" and, as the password, a whole connection string
// "Endpoint=sb://<namespace>.servicebus.windows.net/;SharedAccessKeyName=<name>;SharedAccessKey=<key>"
// (an optional ";EntityPath=<hub>" is allowed) naming this broker's namespace and one of its
// shared access policies. Everything else fails authentication, the way Event Hubs refuses it.
//
// Configured from the listener's JAAS options (tests/tools/kafka_peer.sh writes them):
//   org.apache.kafka.common.security.plain.PlainLoginModule required
//       namespace="weirtest" policies="/path/policies.properties";
// where policies.properties holds <SharedAccessKeyName>=<SharedAccessKey> lines. The file is
// read on every authentication, so a test can revoke or rotate a key without a restart.
package weir.peer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.plain.PlainAuthenticateCallback;

public class ConnectionStringCallbackHandler implements AuthenticateCallbackHandler {
  private String namespaceHost;
  private String policiesFile;

  @Override
  public void configure(Map<String, ?> configs, String saslMechanism,
                        List<AppConfigurationEntry> jaasConfigEntries) {
    for (AppConfigurationEntry entry : jaasConfigEntries) {
      Object ns = entry.getOptions().get("namespace");
      Object file = entry.getOptions().get("policies");
      if (ns != null) namespaceHost = ns.toString().toLowerCase(Locale.ROOT) + ".servicebus.windows.net";
      if (file != null) policiesFile = file.toString();
    }
    if (namespaceHost == null || policiesFile == null) {
      throw new IllegalArgumentException("ConnectionStringCallbackHandler needs the JAAS options namespace and policies");
    }
  }

  @Override
  public void handle(Callback[] callbacks) throws IOException, UnsupportedCallbackException {
    String username = null;
    for (Callback callback : callbacks) {
      if (callback instanceof NameCallback) {
        username = ((NameCallback) callback).getDefaultName();
      } else if (callback instanceof PlainAuthenticateCallback) {
        PlainAuthenticateCallback plain = (PlainAuthenticateCallback) callback;
        plain.authenticated(authenticate(username, new String(plain.password())));
      } else {
        throw new UnsupportedCallbackException(callback);
      }
    }
  }

  private boolean authenticate(String username, String password) throws IOException {
    if (!"$ConnectionString".equals(username)) return false;
    String endpoint = null, keyName = null, key = null;
    for (String part : password.split(";")) {
      if (part.isBlank()) continue;
      int eq = part.indexOf('=');
      if (eq <= 0) return false;
      String name = part.substring(0, eq).trim().toLowerCase(Locale.ROOT);
      String value = part.substring(eq + 1).trim();
      switch (name) {
        case "endpoint": endpoint = value; break;
        case "sharedaccesskeyname": keyName = value; break;
        case "sharedaccesskey": key = value; break;
        case "entitypath": break;
        default: return false;
      }
    }
    if (endpoint == null || keyName == null || key == null) return false;
    String host = endpoint.toLowerCase(Locale.ROOT);
    if (!host.startsWith("sb://")) return false;
    host = host.substring(5);
    while (host.endsWith("/")) host = host.substring(0, host.length() - 1);
    if (!host.equals(namespaceHost)) return false;
    Properties policies = new Properties();
    try (InputStream in = Files.newInputStream(Paths.get(policiesFile))) {
      policies.load(in);
    }
    String expected = policies.getProperty(keyName);
    return expected != null && MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8),
                                                     key.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public void close() {}
}
