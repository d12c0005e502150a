#include "cli/file_systems.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <vector>

#include "azure/blob_file_system.h"
#include "fs/local_file_system.h"

namespace weir::cli {
namespace {

constexpr std::string_view kSparkHadoopPrefix = "spark.hadoop.";

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::string> settings;  // GUARDED_BY(mutex)
  sql::SecretResolver secrets;                  // GUARDED_BY(mutex)
  // "<endpoint>/<container>" → the container's file system. GUARDED_BY(mutex)
  std::map<std::string, std::unique_ptr<fs::FileSystem>> open;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed: file systems outlive main()
  return *registry;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string Trim(std::string_view text) {
  size_t b = 0;
  size_t e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
  return std::string(text.substr(b, e - b));
}

// Parses a quoted SQL string literal at `text[*pos]` ('...' or "...", doubled quotes escape).
std::optional<std::string> ParseQuoted(std::string_view text, size_t* pos) {
  while (*pos < text.size() && std::isspace(static_cast<unsigned char>(text[*pos]))) ++*pos;
  if (*pos >= text.size() || (text[*pos] != '\'' && text[*pos] != '"')) return std::nullopt;
  char quote = text[(*pos)++];
  std::string out;
  while (*pos < text.size()) {
    char c = text[(*pos)++];
    if (c != quote) {
      out += c;
      continue;
    }
    if (*pos < text.size() && text[*pos] == quote) {
      out += quote;
      ++*pos;
      continue;
    }
    return out;
  }
  return std::nullopt;
}

// A setting's value: secret('scope', 'key') (as in a pipeline's SET) and {{secrets/scope/key}}
// (as in a Databricks cluster's Spark config) are looked up; anything else is the value itself.
Result<std::string> ResolveValue(const std::string& name, const std::string& raw,
                                 const sql::SecretResolver& secrets) {
  std::string text = Trim(raw);
  std::string scope;
  std::string key;
  if (Lower(text).starts_with("secret(") && text.back() == ')') {
    size_t pos = 7;
    auto s = ParseQuoted(text, &pos);
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    bool comma = pos < text.size() && text[pos] == ',';
    if (comma) ++pos;
    auto k = comma ? ParseQuoted(text, &pos) : std::nullopt;
    if (!s || !k || Trim(text.substr(pos)) != ")") {
      return Status::InvalidArgument("setting " + name +
                                     ": expected secret('scope', 'key') as its value");
    }
    scope = *s;
    key = *k;
  } else if (text.starts_with("{{secrets/") && text.ends_with("}}")) {
    std::string inner = text.substr(10, text.size() - 12);
    size_t slash = inner.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == inner.size()) {
      return Status::InvalidArgument("setting " + name +
                                     ": expected {{secrets/scope/key}} as its value");
    }
    scope = inner.substr(0, slash);
    key = inner.substr(slash + 1);
  } else {
    // Plain values may be quoted (SET k = 'v').
    if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"')) {
      size_t pos = 0;
      auto unquoted = ParseQuoted(text, &pos);
      if (unquoted && pos == text.size()) return *unquoted;
    }
    return text;
  }
  auto value = secrets.Resolve(scope, key);
  if (!value.ok()) return value.status().WithContext("setting " + name);
  return value->Reveal();
}

// The settings of one account: each hadoop-azure key is looked up with the account's suffixes
// (".<account>.dfs.core.windows.net", ".<account>.blob.core.windows.net", the endpoint's own
// host) first, then without one.
class AccountSettings {
 public:
  AccountSettings(const azure::BlobLocation& location,
                  const std::map<std::string, std::string>& settings,
                  const sql::SecretResolver& secrets)
      : location_(location), settings_(settings), secrets_(secrets) {
    const std::string& account = location.account;
    std::string suffix = "core.windows.net";
    // https://<account>.blob.<suffix>: a sovereign cloud's suffix.
    std::string host = location.endpoint.substr(location.endpoint.find("://") + 3);
    host = host.substr(0, host.find('/'));
    std::string prefix = account + ".blob.";
    if (host.starts_with(prefix)) suffix = host.substr(prefix.size());
    suffixes_ = {"." + account + ".dfs." + suffix, "." + account + ".blob." + suffix,
                 "." + account};
  }

  // The value of `name` for this account (resolved), the name found, or nullopt.
  Result<std::optional<std::string>> Get(const std::string& name, bool account_only = false) {
    std::vector<std::string> candidates;
    for (const std::string& s : suffixes_) candidates.push_back(name + s);
    if (!account_only) candidates.push_back(name);
    for (const std::string& candidate : candidates) {
      auto it = settings_.find(candidate);
      if (it == settings_.end()) continue;
      WEIR_ASSIGN_OR_RETURN(std::string value, ResolveValue(candidate, it->second, secrets_));
      found_ = candidate;
      return std::optional<std::string>(std::move(value));
    }
    return std::optional<std::string>();
  }

  Result<std::string> Require(const std::string& name, const std::string& why) {
    WEIR_ASSIGN_OR_RETURN(auto value, Get(name));
    if (!value || value->empty()) {
      return Status::InvalidArgument(why + " needs the setting " + name + "." +
                                     location_.account + ".dfs.core.windows.net (or " + name +
                                     "); set it with SET in the pipeline or --set");
    }
    return *value;
  }

  // The container-scoped SAS of hadoop's WASB driver: fs.azure.sas.<container>.<account>.blob...
  Result<std::optional<std::string>> ContainerSas() {
    return Get("fs.azure.sas." + location_.container, /*account_only=*/true);
  }

  const std::string& found() const { return found_; }

 private:
  const azure::BlobLocation& location_;
  const std::map<std::string, std::string>& settings_;
  const sql::SecretResolver& secrets_;
  std::vector<std::string> suffixes_;
  std::string found_;
};

// "https://login.microsoftonline.com/<tenant>/oauth2/token" (or /oauth2/v2.0/token) → the
// authority host and the tenant.
Status ParseOAuthEndpoint(const std::string& endpoint, azure::AzureCredentials* credentials) {
  size_t scheme = endpoint.find("://");
  size_t host_end = scheme == std::string::npos ? std::string::npos : endpoint.find('/', scheme + 3);
  size_t tenant_end = host_end == std::string::npos ? std::string::npos
                                                    : endpoint.find('/', host_end + 1);
  if (tenant_end == std::string::npos || tenant_end == host_end + 1) {
    return Status::InvalidArgument(
        "fs.azure.account.oauth2.client.endpoint must look like "
        "https://login.microsoftonline.com/<tenant-id>/oauth2/token, got '" + endpoint + "'");
  }
  WEIR_ASSIGN_OR_RETURN(credentials->authority_host,
                        azure::NormalizeAuthorityHost(endpoint.substr(0, host_end),
                                                      "fs.azure.account.oauth2.client.endpoint"));
  credentials->tenant_id = endpoint.substr(host_end + 1, tenant_end - host_end - 1);
  return Status::OK();
}

// hadoop-azure's WorkloadIdentityTokenProvider: fs.azure.account.oauth2.msi.tenant,
// fs.azure.account.oauth2.client.id and fs.azure.account.oauth2.token.file (else the variables
// the AKS workload identity webhook sets, else hadoop's default token path), the authority from
// fs.azure.account.oauth2.msi.authority (else AZURE_AUTHORITY_HOST).
Result<azure::AzureCredentials> WorkloadIdentityCredentials(
    AccountSettings& s, const std::string& account,
    const azure::AzureCredentials::Environment& env) {
  WEIR_ASSIGN_OR_RETURN(auto tenant, s.Get("fs.azure.account.oauth2.msi.tenant"));
  WEIR_ASSIGN_OR_RETURN(auto client_id, s.Get("fs.azure.account.oauth2.client.id"));
  WEIR_ASSIGN_OR_RETURN(auto token_file, s.Get("fs.azure.account.oauth2.token.file"));
  WEIR_ASSIGN_OR_RETURN(auto authority, s.Get("fs.azure.account.oauth2.msi.authority"));
  auto pick = [&](const std::optional<std::string>& setting, const char* variable) {
    if (setting && !setting->empty()) return *setting;
    return env(variable).value_or("");
  };
  azure::AzureCredentials c = azure::AzureCredentials::WorkloadIdentity(
      pick(tenant, "AZURE_TENANT_ID"), pick(client_id, "AZURE_CLIENT_ID"),
      pick(token_file, "AZURE_FEDERATED_TOKEN_FILE"));
  if (c.federated_token_file.empty()) c.federated_token_file = azure::kDefaultFederatedTokenFile;
  std::vector<std::string> missing;
  const std::string suffix = "." + account + ".dfs.core.windows.net";
  if (c.tenant_id.empty()) {
    missing.push_back("fs.azure.account.oauth2.msi.tenant" + suffix + " (or AZURE_TENANT_ID)");
  }
  if (c.client_id.empty()) {
    missing.push_back("fs.azure.account.oauth2.client.id" + suffix + " (or AZURE_CLIENT_ID)");
  }
  if (!missing.empty()) {
    std::string list;
    for (const std::string& m : missing) list += (list.empty() ? "" : " and ") + m;
    return Status::InvalidArgument("WorkloadIdentityTokenProvider needs " + list +
                                   "; set it with SET in the pipeline or --set");
  }
  if (authority && !authority->empty()) {
    const std::string setting = "fs.azure.account.oauth2.msi.authority";
    WEIR_ASSIGN_OR_RETURN(c.authority_host, azure::NormalizeAuthorityHost(*authority, setting));
  } else if (auto host = env("AZURE_AUTHORITY_HOST")) {
    WEIR_ASSIGN_OR_RETURN(c.authority_host,
                          azure::NormalizeAuthorityHost(*host, "AZURE_AUTHORITY_HOST"));
  }
  c.source = "WorkloadIdentityTokenProvider settings";
  return c;
}

Result<azure::AzureCredentials> OAuthCredentials(AccountSettings& s, const std::string& account,
                                                 const azure::AzureCredentials::Environment& env) {
  WEIR_ASSIGN_OR_RETURN(auto provider, s.Get("fs.azure.account.oauth.provider.type"));
  std::string p = provider ? Trim(*provider) : "";
  // The class name without its package (org.apache.hadoop.fs.azurebfs.oauth2., or Databricks'
  // shaded.databricks.org.apache...).
  std::string name = p.substr(p.rfind('.') == std::string::npos ? 0 : p.rfind('.') + 1);
  if (name == "MsiTokenProvider") {
    WEIR_ASSIGN_OR_RETURN(auto client_id, s.Get("fs.azure.account.oauth2.client.id"));
    auto credentials = azure::AzureCredentials::ManagedIdentity(client_id.value_or(""));
    WEIR_ASSIGN_OR_RETURN(auto msi_endpoint, s.Get("fs.azure.account.oauth2.msi.endpoint"));
    if (msi_endpoint && !msi_endpoint->empty()) {
      credentials.imds_endpoint = *msi_endpoint;
    } else {
      credentials.ApplyManagedIdentityEnvironment(env);  // App Service, AKS pod identity
    }
    credentials.source = "MsiTokenProvider settings";
    return credentials;
  }
  if (name == "WorkloadIdentityTokenProvider") return WorkloadIdentityCredentials(s, account, env);
  if (!name.empty() && name != "ClientCredsTokenProvider") {
    return Status::InvalidArgument(
        "fs.azure.account.oauth.provider.type " + p +
        " is not supported: weir authenticates with ClientCredsTokenProvider (client id and "
        "secret), WorkloadIdentityTokenProvider (AKS workload identity) or MsiTokenProvider "
        "(managed identity)");
  }
  const std::string why = "OAuth with a client secret";
  WEIR_ASSIGN_OR_RETURN(std::string client_id,
                        s.Require("fs.azure.account.oauth2.client.id", why));
  WEIR_ASSIGN_OR_RETURN(std::string secret,
                        s.Require("fs.azure.account.oauth2.client.secret", why));
  WEIR_ASSIGN_OR_RETURN(std::string endpoint,
                        s.Require("fs.azure.account.oauth2.client.endpoint", why));
  azure::AzureCredentials credentials =
      azure::AzureCredentials::ClientSecret("", std::move(client_id), std::move(secret));
  WEIR_RETURN_NOT_OK(ParseOAuthEndpoint(endpoint, &credentials));
  credentials.source = "fs.azure.account.oauth2.* settings";
  return credentials;
}

Result<std::optional<std::string>> SasToken(AccountSettings& s) {
  WEIR_ASSIGN_OR_RETURN(auto fixed, s.Get("fs.azure.sas.fixed.token"));
  if (fixed && !fixed->empty()) return fixed;
  return s.ContainerSas();
}

// Settings win over the environment; both may name only one credential.
Result<std::optional<azure::AzureCredentials>> SettingsCredentials(
    AccountSettings& s, const azure::BlobLocation& location,
    const azure::AzureCredentials::Environment& env) {
  using Found = std::optional<azure::AzureCredentials>;
  WEIR_ASSIGN_OR_RETURN(auto auth_type, s.Get("fs.azure.account.auth.type"));
  std::string type = auth_type ? Lower(Trim(*auth_type)) : "";
  if (type == "sharedkey") {
    WEIR_ASSIGN_OR_RETURN(std::string key,
                          s.Require("fs.azure.account.key", "auth type SharedKey"));
    return Found(azure::AzureCredentials::SharedKey(std::move(key)));
  }
  if (type == "sas") {
    WEIR_ASSIGN_OR_RETURN(auto sas, SasToken(s));
    if (!sas || sas->empty()) {
      return Status::InvalidArgument(
          "auth type SAS needs fs.azure.sas.fixed.token." + location.account +
          ".dfs.core.windows.net (weir cannot run fs.azure.sas.token.provider.type classes)");
    }
    return Found(azure::AzureCredentials::Sas(std::move(*sas)));
  }
  if (type == "oauth") {
    WEIR_ASSIGN_OR_RETURN(auto c, OAuthCredentials(s, location.account, env));
    return Found(std::move(c));
  }
  if (!type.empty()) {
    return Status::InvalidArgument("fs.azure.account.auth.type " + *auth_type +
                                   " is not supported: use SharedKey, SAS or OAuth");
  }
  // No auth type: whichever credential is configured.
  WEIR_ASSIGN_OR_RETURN(auto key, s.Get("fs.azure.account.key"));
  if (key && !key->empty()) return Found(azure::AzureCredentials::SharedKey(std::move(*key)));
  WEIR_ASSIGN_OR_RETURN(auto sas, SasToken(s));
  if (sas && !sas->empty()) return Found(azure::AzureCredentials::Sas(std::move(*sas)));
  WEIR_ASSIGN_OR_RETURN(auto client_id, s.Get("fs.azure.account.oauth2.client.id"));
  WEIR_ASSIGN_OR_RETURN(auto provider, s.Get("fs.azure.account.oauth.provider.type"));
  if ((client_id && !client_id->empty()) || provider) {
    WEIR_ASSIGN_OR_RETURN(auto c, OAuthCredentials(s, location.account, env));
    return Found(std::move(c));
  }
  return Found();
}

std::optional<std::string> GetEnv(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

}  // namespace

bool IsRemotePath(const std::string& path) { return azure::IsAzureUrl(path); }

void ConfigureStorage(const std::map<std::string, std::string>& settings,
                      sql::SecretResolver secrets) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.settings.clear();
  for (const auto& [key, value] : settings) {
    std::string_view name = key;
    if (name.starts_with(kSparkHadoopPrefix)) name.remove_prefix(kSparkHadoopPrefix.size());
    r.settings[std::string(name)] = value;
  }
  r.secrets = std::move(secrets);
}

void AddStorageFlags(Flags& flags) {
  flags.Repeated("set", "name=value",
                 "a storage setting, e.g. fs.azure.account.key.ACCOUNT.dfs.core.windows.net="
                 "secret('scope','key') (docs/azure.md)");
  flags.Value("secrets", "FILE", "JSON {\"scope\": {\"key\": \"value\"}} for secret('scope','key')");
}

Status ConfigureStorageFromFlags(const Flags& flags,
                                 const std::map<std::string, std::string>& settings) {
  std::map<std::string, std::string> merged = settings;
  for (const std::string& kv : flags.GetAll("set")) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      // Never echo the value: it may be a key.
      return Status::InvalidArgument("--set expects name=value, got a value without '='");
    }
    merged[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  sql::SecretResolver secrets;
  if (flags.Has("secrets")) {
    WEIR_ASSIGN_OR_RETURN(std::string json, ReadText(flags.Get("secrets")));
    WEIR_RETURN_NOT_OK(secrets.AddSecretsJson(json, flags.Get("secrets")));
  }
  ConfigureStorage(merged, std::move(secrets));
  return Status::OK();
}

Result<azure::AzureCredentials> ResolveAzureCredentials(
    const azure::BlobLocation& location, const std::map<std::string, std::string>& settings,
    const sql::SecretResolver& secrets, const azure::AzureCredentials::Environment& environment) {
  const azure::AzureCredentials::Environment env =
      environment ? environment : azure::AzureCredentials::Environment(GetEnv);
  AccountSettings s(location, settings, secrets);
  // 1. The settings (hadoop-azure keys).
  WEIR_ASSIGN_OR_RETURN(auto from_settings, SettingsCredentials(s, location, env));
  if (from_settings) return *std::move(from_settings);
  // 2. The environment: the account's key or SAS, the Azure SDKs' client secret or workload
  // identity, and a managed identity when AZURE_TOKEN_CREDENTIALS asks for one.
  WEIR_ASSIGN_OR_RETURN(auto from_env,
                        azure::AzureCredentials::FromStorageEnvironment(location.account, env));
  if (from_env) return *std::move(from_env);
  return azure::AzureCredentials();  // anonymous (or a SAS in the URL)
}

Result<fs::FileSystem*> FileSystemFor(const std::string& path) {
  if (!azure::IsAzureUrl(path)) {
    if (path.find("://") != std::string::npos) {
      return Status::InvalidArgument(
          "unsupported storage URL '" + azure::RedactUrl(path) +
          "': weir reads local paths and Azure storage (abfss://container@account.dfs.core."
          "windows.net/..., https://account.blob.core.windows.net/container/...)");
    }
    return static_cast<fs::FileSystem*>(fs::LocalFileSystem::Default());
  }
  WEIR_ASSIGN_OR_RETURN(azure::BlobLocation location, azure::ParseAzureUrl(path));
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::string cache_key = location.endpoint + "/" + location.container;
  auto it = r.open.find(cache_key);
  if (it != r.open.end()) return it->second.get();
  WEIR_ASSIGN_OR_RETURN(azure::AzureCredentials credentials,
                        ResolveAzureCredentials(location, r.settings, r.secrets));
  std::string url = location.endpoint + "/" + azure::PercentEncode(location.container, false);
  if (!location.query.empty()) url += "?" + location.query;
  auto opened = azure::OpenBlobFileSystem(url, credentials);
  if (!opened.ok()) {
    if (credentials.kind == azure::AzureCredentials::Kind::kAnonymous &&
        !opened.status().IsNotFound()) {
      return opened.status().WithContext(
          "no credentials for storage account " + location.account +
          " (set fs.azure.account.key." + location.account +
          ".dfs.core.windows.net, a SAS or OAuth settings, or AZURE_STORAGE_KEY, or the Azure "
          "SDKs' AZURE_CLIENT_ID with AZURE_CLIENT_SECRET or AZURE_FEDERATED_TOKEN_FILE, or "
          "AZURE_TOKEN_CREDENTIALS=ManagedIdentityCredential; docs/azure.md)");
    }
    return opened.status();
  }
  fs::FileSystem* result = opened->get();
  r.open[cache_key] = std::move(*opened);
  return result;
}

namespace {
FileSystemWrapper g_flow_file_system_wrapper = nullptr;
}  // namespace

void SetFlowFileSystemWrapper(FileSystemWrapper wrapper) { g_flow_file_system_wrapper = wrapper; }

Result<fs::FileSystem*> FlowFileSystem(const std::string& lakehouse_root) {
  WEIR_ASSIGN_OR_RETURN(fs::FileSystem * base, FileSystemFor(lakehouse_root));
  return g_flow_file_system_wrapper != nullptr ? g_flow_file_system_wrapper(base) : base;
}

Result<fs::FileSystem*> FileSystemFor(const Flags& flags, const std::string& path) {
  WEIR_RETURN_NOT_OK(ConfigureStorageFromFlags(flags));
  return FileSystemFor(path);
}

Result<std::string> ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot read " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace weir::cli
