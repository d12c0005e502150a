#include "cli/file_systems.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <vector>

#include "base/testing.h"
#include "fs/local_file_system.h"

namespace weir::cli {
namespace {

using azure::AzureCredentials;
using Settings = std::map<std::string, std::string>;

constexpr char kKey[] = "a2V5LWJ5dGVzLWZvci10ZXN0cw==";

azure::BlobLocation Location(const std::string& url) {
  return azure::ParseAzureUrl(url).ValueOrDie();
}

// Secrets from a fixed map instead of the environment.
sql::SecretResolver Secrets() {
  sql::SecretResolver secrets([](const std::string& name) -> std::optional<std::string> {
    if (name == "WEIR_SECRET_ADLS_KEY") return std::string(kKey);
    if (name == "WEIR_SECRET_ADLS_SP") return std::string("sp-secret");
    return std::nullopt;
  });
  return secrets;
}

// Clears the AZURE_* variables for one test (the environment fallback). Resolve() reads `env`
// instead of the process environment.
class ResolveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name :
         {"AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_KEY", "AZURE_STORAGE_ACCOUNT_KEY",
          "AZURE_STORAGE_SAS_TOKEN", "AZURE_CLIENT_ID", "AZURE_CLIENT_SECRET", "AZURE_TENANT_ID",
          "AZURE_AUTHORITY_HOST", "AZURE_FEDERATED_TOKEN_FILE", "AZURE_TOKEN_CREDENTIALS",
          "IDENTITY_ENDPOINT", "IDENTITY_HEADER", "AZURE_POD_IDENTITY_AUTHORITY_HOST"}) {
      unsetenv(name);
    }
  }
  Result<AzureCredentials> Resolve(const std::string& url, const Settings& settings) {
    return ResolveAzureCredentials(Location(url), settings, Secrets(),
                                   [this](const std::string& name) -> std::optional<std::string> {
                                     auto it = env.find(name);
                                     if (it == env.end()) return std::nullopt;
                                     return it->second;
                                   });
  }
  std::map<std::string, std::string> env;
};

constexpr char kUrl[] = "abfss://lake@acct.dfs.core.windows.net/t";

TEST_F(ResolveTest, AccountKeyFromASecretForTheDfsOrBlobHost) {
  for (const std::string host : {"dfs", "blob"}) {
    SCOPED_TRACE(host);
    Settings s{{"fs.azure.account.key.acct." + host + ".core.windows.net", "secret('adls', 'key')"}};
    ASSERT_OK_AND_ASSIGN(auto c, Resolve("abfss://lake@acct.dfs.core.windows.net/t", s));
    EXPECT_EQ(c.kind, AzureCredentials::Kind::kSharedKey);
    EXPECT_EQ(c.account_key, kKey);
  }
}

TEST_F(ResolveTest, DatabricksSecretSyntaxAndPlainValues) {
  Settings s{{"fs.azure.account.key.acct.dfs.core.windows.net", "{{secrets/adls/key}}"}};
  ASSERT_OK_AND_ASSIGN(auto c, Resolve("https://acct.blob.core.windows.net/lake/t", s));
  EXPECT_EQ(c.account_key, kKey);
  Settings plain{{"fs.azure.account.key.acct.dfs.core.windows.net", "'plainkey'"}};
  ASSERT_OK_AND_ASSIGN(auto p, Resolve("https://acct.blob.core.windows.net/lake/t", plain));
  EXPECT_EQ(p.account_key, "plainkey");
}

TEST_F(ResolveTest, AnotherAccountsKeyIsNotUsed) {
  Settings s{{"fs.azure.account.key.other.dfs.core.windows.net", "{{secrets/adls/key}}"}};
  ASSERT_OK_AND_ASSIGN(auto c, Resolve("abfss://lake@acct.dfs.core.windows.net/t", s));
  EXPECT_EQ(c.kind, AzureCredentials::Kind::kAnonymous);
}

TEST_F(ResolveTest, AzuriteAccountsUseTheirName) {
  Settings s{{"fs.azure.account.key.devstoreaccount1.blob.core.windows.net", "x"}};
  ASSERT_OK_AND_ASSIGN(auto c, Resolve("http://127.0.0.1:10000/devstoreaccount1/lake/t", s));
  EXPECT_EQ(c.kind, AzureCredentials::Kind::kSharedKey);
  EXPECT_EQ(c.account_key, "x");
}

TEST_F(ResolveTest, MissingSecretIsNotFoundWithoutAValue) {
  Settings s{{"fs.azure.account.key.acct.dfs.core.windows.net", "secret('adls', 'nope')"}};
  auto c = Resolve("abfss://lake@acct.dfs.core.windows.net/t", s);
  ASSERT_STATUS_CODE(kNotFound, c);
  EXPECT_NE(c.status().message().find("fs.azure.account.key.acct.dfs.core.windows.net"),
            std::string::npos)
      << c.status().ToString();
}

TEST_F(ResolveTest, FixedSasAndWasbContainerSas) {
  Settings fixed{{"fs.azure.account.auth.type.acct.dfs.core.windows.net", "SAS"},
                 {"fs.azure.sas.fixed.token.acct.dfs.core.windows.net", "sv=1&sig=abc"}};
  ASSERT_OK_AND_ASSIGN(auto c, Resolve("abfss://lake@acct.dfs.core.windows.net/t", fixed));
  EXPECT_EQ(c.kind, AzureCredentials::Kind::kSas);
  EXPECT_EQ(c.sas_token, "sv=1&sig=abc");
  Settings wasb{{"fs.azure.sas.lake.acct.blob.core.windows.net", "sv=2&sig=def"}};
  ASSERT_OK_AND_ASSIGN(auto w, Resolve("abfss://lake@acct.dfs.core.windows.net/t", wasb));
  EXPECT_EQ(w.kind, AzureCredentials::Kind::kSas);
  EXPECT_EQ(w.sas_token, "sv=2&sig=def");
  // SAS without a token (a Java token provider class) is refused, naming the key to set.
  Settings provider{{"fs.azure.account.auth.type", "SAS"},
                    {"fs.azure.sas.token.provider.type", "com.example.MyProvider"}};
  auto p = Resolve("abfss://lake@acct.dfs.core.windows.net/t", provider);
  ASSERT_STATUS_CODE(kInvalidArgument, p);
  EXPECT_NE(p.status().message().find("fs.azure.sas.fixed.token"), std::string::npos);
}

TEST_F(ResolveTest, OAuthClientCredentialsAsDatabricksDocumentsThem) {
  const std::string suffix = ".acct.dfs.core.windows.net";
  Settings s{{"fs.azure.account.auth.type" + suffix, "OAuth"},
             {"fs.azure.account.oauth.provider.type" + suffix,
              "org.apache.hadoop.fs.azurebfs.oauth2.ClientCredsTokenProvider"},
             {"fs.azure.account.oauth2.client.id" + suffix, "app-id"},
             {"fs.azure.account.oauth2.client.secret" + suffix, "secret('adls', 'sp')"},
             {"fs.azure.account.oauth2.client.endpoint" + suffix,
              "https://login.microsoftonline.com/tenant-1/oauth2/token"}};
  ASSERT_OK_AND_ASSIGN(auto c, Resolve("abfss://lake@acct.dfs.core.windows.net/t", s));
  EXPECT_EQ(c.kind, AzureCredentials::Kind::kClientSecret);
  EXPECT_EQ(c.client_id, "app-id");
  EXPECT_EQ(c.client_secret, "sp-secret");
  EXPECT_EQ(c.tenant_id, "tenant-1");
  EXPECT_EQ(c.authority_host, "https://login.microsoftonline.com");
  // Without the endpoint: InvalidArgument naming the setting, never the secret.
  s.erase("fs.azure.account.oauth2.client.endpoint" + suffix);
  auto missing = Resolve("abfss://lake@acct.dfs.core.windows.net/t", s);
  ASSERT_STATUS_CODE(kInvalidArgument, missing);
  EXPECT_NE(missing.status().message().find("fs.azure.account.oauth2.client.endpoint"),
            std::string::npos);
  EXPECT_EQ(missing.status().message().find("sp-secret"), std::string::npos);
}

TEST_F(ResolveTest, ManagedIdentity) {
  Settings s{{"fs.azure.account.auth.type", "OAuth"},
             {"fs.azure.account.oauth.provider.type",
              "org.apache.hadoop.fs.azurebfs.oauth2.MsiTokenProvider"},
             {"fs.azure.account.oauth2.client.id", "uami-client"}};
  ASSERT_OK_AND_ASSIGN(auto c, Resolve(kUrl, s));
  EXPECT_EQ(c.kind, AzureCredentials::Kind::kManagedIdentity);
  EXPECT_EQ(c.managed_identity_client_id, "uami-client");
  EXPECT_EQ(c.imds_endpoint, azure::kImdsTokenEndpoint);
  // App Service's endpoint, from the environment, unless msi.endpoint names one.
  env = {{"IDENTITY_ENDPOINT", "http://127.0.0.1:5/msi/token"}, {"IDENTITY_HEADER", "h"}};
  ASSERT_OK_AND_ASSIGN(auto app, Resolve(kUrl, s));
  EXPECT_EQ(app.identity_endpoint, "http://127.0.0.1:5/msi/token");
  EXPECT_EQ(app.identity_header, "h");
  s["fs.azure.account.oauth2.msi.endpoint"] = "http://127.0.0.1:6/metadata/identity/oauth2/token";
  ASSERT_OK_AND_ASSIGN(auto fixed, Resolve(kUrl, s));
  EXPECT_EQ(fixed.imds_endpoint, "http://127.0.0.1:6/metadata/identity/oauth2/token");
  EXPECT_EQ(fixed.identity_header, "");
}

TEST_F(ResolveTest, WorkloadIdentityTokenProviderAsHadoopAzureNamesIt) {
  const std::string suffix = ".acct.dfs.core.windows.net";
  Settings s{{"fs.azure.account.auth.type" + suffix, "OAuth"},
             {"fs.azure.account.oauth.provider.type" + suffix,
              "org.apache.hadoop.fs.azurebfs.oauth2.WorkloadIdentityTokenProvider"},
             {"fs.azure.account.oauth2.msi.tenant" + suffix, "tenant-w"},
             {"fs.azure.account.oauth2.client.id" + suffix, "app-w"},
             {"fs.azure.account.oauth2.token.file" + suffix, "/var/run/token"},
             {"fs.azure.account.oauth2.msi.authority" + suffix,
              "https://login.microsoftonline.us/"}};
  ASSERT_OK_AND_ASSIGN(auto c, Resolve(kUrl, s));
  EXPECT_EQ(c.kind, AzureCredentials::Kind::kWorkloadIdentity);
  EXPECT_EQ(c.tenant_id, "tenant-w");
  EXPECT_EQ(c.client_id, "app-w");
  EXPECT_EQ(c.federated_token_file, "/var/run/token");
  EXPECT_EQ(c.authority_host, "https://login.microsoftonline.us");
  ASSERT_OK_AND_ASSIGN(auto request, c.StorageTokenRequest());
  EXPECT_EQ(request.token_endpoint, "https://login.microsoftonline.us/tenant-w/oauth2/v2.0/token");
  EXPECT_EQ(request.scope, azure::kStorageScope);

  // Without the settings: the variables the AKS webhook sets, then hadoop's default token path.
  Settings provider_only{{"fs.azure.account.auth.type", "OAuth"},
                         {"fs.azure.account.oauth.provider.type",
                          "org.apache.hadoop.fs.azurebfs.oauth2.WorkloadIdentityTokenProvider"}};
  auto missing = Resolve(kUrl, provider_only);
  ASSERT_STATUS_CODE(kInvalidArgument, missing);
  EXPECT_NE(missing.status().message().find("fs.azure.account.oauth2.msi.tenant.acct.dfs.core."
                                            "windows.net (or AZURE_TENANT_ID)"),
            std::string::npos)
      << missing.status().message();
  EXPECT_NE(missing.status().message().find("AZURE_CLIENT_ID"), std::string::npos);
  env = {{"AZURE_TENANT_ID", "t-env"}, {"AZURE_CLIENT_ID", "c-env"},
         {"AZURE_AUTHORITY_HOST", "http://127.0.0.1:7"}};
  ASSERT_OK_AND_ASSIGN(auto from_env, Resolve(kUrl, provider_only));
  EXPECT_EQ(from_env.tenant_id, "t-env");
  EXPECT_EQ(from_env.client_id, "c-env");
  EXPECT_EQ(from_env.federated_token_file, "/var/run/secrets/azure/tokens/azure-identity-token");
  EXPECT_EQ(from_env.authority_host, "http://127.0.0.1:7");
  env["AZURE_FEDERATED_TOKEN_FILE"] = "/projected/token";
  ASSERT_OK_AND_ASSIGN(from_env, Resolve(kUrl, provider_only));
  EXPECT_EQ(from_env.federated_token_file, "/projected/token");
  // The token is sent over https only (http to loopback for tests).
  provider_only["fs.azure.account.oauth2.msi.authority"] = "http://login.example.com";
  ASSERT_STATUS_CODE(kInvalidArgument, Resolve(kUrl, provider_only));
}

TEST_F(ResolveTest, UnsupportedAuthTypeIsRefused) {
  Settings s{{"fs.azure.account.auth.type", "Custom"}};
  ASSERT_STATUS_CODE(kInvalidArgument, Resolve(kUrl, s));
  Settings provider{{"fs.azure.account.auth.type", "OAuth"},
                    {"fs.azure.account.oauth.provider.type",
                     "org.apache.hadoop.fs.azurebfs.oauth2.RefreshTokenBasedTokenProvider"}};
  auto refused = Resolve(kUrl, provider);
  ASSERT_STATUS_CODE(kInvalidArgument, refused);
  EXPECT_NE(refused.status().message().find("WorkloadIdentityTokenProvider"), std::string::npos);
  // A client secret is sent to an https endpoint only.
  Settings http{{"fs.azure.account.oauth2.client.id", "app"},
                {"fs.azure.account.oauth2.client.secret", "sec"},
                {"fs.azure.account.oauth2.client.endpoint",
                 "http://login.example.com/t/oauth2/token"}};
  auto insecure = Resolve(kUrl, http);
  ASSERT_STATUS_CODE(kInvalidArgument, insecure);
  EXPECT_EQ(insecure.status().message().find("sec"), std::string::npos);
}

// The chain: settings, then the environment's key, SAS, client secret, workload identity and (on
// request) managed identity; each wins over the ones after it; nothing: anonymous.
TEST_F(ResolveTest, OneChainInOrder) {
  Settings settings{{"fs.azure.account.key", "settings-key"}};
  env = {{"AZURE_STORAGE_KEY", "env-key"},
         {"AZURE_STORAGE_SAS_TOKEN", "sv=env"},
         {"AZURE_TENANT_ID", "t"},
         {"AZURE_CLIENT_ID", "c"},
         {"AZURE_CLIENT_SECRET", "s"},
         {"AZURE_FEDERATED_TOKEN_FILE", "/f"},
         {"AZURE_TOKEN_CREDENTIALS", "prod"}};
  ASSERT_OK_AND_ASSIGN(auto c, Resolve(kUrl, settings));
  EXPECT_EQ(c.kind, AzureCredentials::Kind::kSharedKey);
  EXPECT_EQ(c.account_key, "settings-key");
  const std::vector<std::pair<std::string, AzureCredentials::Kind>> order = {
      {"AZURE_STORAGE_KEY", AzureCredentials::Kind::kSharedKey},
      {"AZURE_STORAGE_SAS_TOKEN", AzureCredentials::Kind::kSas},
      {"AZURE_CLIENT_SECRET", AzureCredentials::Kind::kClientSecret},
      {"AZURE_FEDERATED_TOKEN_FILE", AzureCredentials::Kind::kWorkloadIdentity},
      {"AZURE_TOKEN_CREDENTIALS", AzureCredentials::Kind::kManagedIdentity}};
  for (const auto& [variable, kind] : order) {
    SCOPED_TRACE(variable);
    ASSERT_OK_AND_ASSIGN(c, Resolve(kUrl, {}));
    EXPECT_EQ(c.kind, kind);
    env.erase(variable);
  }
  ASSERT_OK_AND_ASSIGN(c, Resolve(kUrl, {}));
  EXPECT_EQ(c.kind, AzureCredentials::Kind::kAnonymous);
  // Without AZURE_TOKEN_CREDENTIALS no managed identity is assumed, even with its endpoint set.
  env = {{"IDENTITY_ENDPOINT", "http://127.0.0.1:5/msi/token"}, {"IDENTITY_HEADER", "h"}};
  ASSERT_OK_AND_ASSIGN(c, Resolve(kUrl, {}));
  EXPECT_EQ(c.kind, AzureCredentials::Kind::kAnonymous);
  env["AZURE_TOKEN_CREDENTIALS"] = "ManagedIdentityCredential";
  ASSERT_OK_AND_ASSIGN(c, Resolve(kUrl, {}));
  EXPECT_EQ(c.kind, AzureCredentials::Kind::kManagedIdentity);
  EXPECT_EQ(c.identity_endpoint, "http://127.0.0.1:5/msi/token");
  env["AZURE_TOKEN_CREDENTIALS"] = "AzureCliCredential";
  ASSERT_STATUS_CODE(kInvalidArgument, Resolve(kUrl, {}));
  // Explicit settings win over AZURE_TOKEN_CREDENTIALS too.
  ASSERT_OK_AND_ASSIGN(c, Resolve(kUrl, {{"fs.azure.sas.fixed.token", "sv=1"}}));
  EXPECT_EQ(c.kind, AzureCredentials::Kind::kSas);
}

TEST_F(ResolveTest, EnvironmentIsTheFallback) {
  // The process environment when no lookup is given.
  auto resolve = [](const Settings& s) {
    return ResolveAzureCredentials(Location(kUrl), s, Secrets());
  };
  setenv("AZURE_STORAGE_KEY", "env-key", 1);
  ASSERT_OK_AND_ASSIGN(auto c, resolve({}));
  EXPECT_EQ(c.kind, AzureCredentials::Kind::kSharedKey);
  EXPECT_EQ(c.account_key, "env-key");
  // Settings win over the environment.
  Settings s{{"fs.azure.sas.fixed.token", "sv=1"}};
  ASSERT_OK_AND_ASSIGN(auto fromSettings, resolve(s));
  EXPECT_EQ(fromSettings.kind, AzureCredentials::Kind::kSas);
  // AZURE_STORAGE_KEY belongs to AZURE_STORAGE_ACCOUNT when that is set.
  setenv("AZURE_STORAGE_ACCOUNT", "other", 1);
  ASSERT_OK_AND_ASSIGN(auto other, resolve({}));
  EXPECT_EQ(other.kind, AzureCredentials::Kind::kAnonymous);
  unsetenv("AZURE_STORAGE_KEY");
  unsetenv("AZURE_STORAGE_ACCOUNT");
  setenv("AZURE_CLIENT_ID", "id", 1);
  setenv("AZURE_CLIENT_SECRET", "secret", 1);
  setenv("AZURE_TENANT_ID", "tenant", 1);
  setenv("AZURE_AUTHORITY_HOST", "https://login.microsoftonline.us/", 1);
  ASSERT_OK_AND_ASSIGN(auto sp, resolve({}));
  EXPECT_EQ(sp.kind, AzureCredentials::Kind::kClientSecret);
  EXPECT_EQ(sp.tenant_id, "tenant");
  EXPECT_EQ(sp.authority_host, "https://login.microsoftonline.us");
  for (const char* name : {"AZURE_CLIENT_ID", "AZURE_CLIENT_SECRET", "AZURE_TENANT_ID",
                           "AZURE_AUTHORITY_HOST"}) {
    unsetenv(name);
  }
}

TEST(FileSystemForTest, LocalPathsAndUnsupportedUrls) {
  ASSERT_OK_AND_ASSIGN(fs::FileSystem * local, FileSystemFor("/tmp/lake/t"));
  EXPECT_EQ(local, fs::LocalFileSystem::Default());
  ASSERT_OK_AND_ASSIGN(fs::FileSystem * relative, FileSystemFor("lake/t"));
  EXPECT_EQ(relative, fs::LocalFileSystem::Default());
  ASSERT_STATUS_CODE(kInvalidArgument, FileSystemFor("s3://bucket/t"));
  EXPECT_TRUE(IsRemotePath("abfss://lake@acct.dfs.core.windows.net/t"));
  EXPECT_FALSE(IsRemotePath("/tmp/lake"));
}

TEST(FileSystemForTest, JoinedLakehousePathsStayInTheContainer) {
  // The lakehouse layout joins names onto the root URL; the result names the same container.
  const std::string root = "abfss://c@a.dfs.core.windows.net/lake";
  std::string table = fs::JoinPath(root, "sales/bronze/orders_raw");
  ASSERT_OK_AND_ASSIGN(auto location, azure::ParseAzureUrl(table));
  EXPECT_EQ(location.account, "a");
  EXPECT_EQ(location.container, "c");
  EXPECT_EQ(location.path, "lake/sales/bronze/orders_raw");
  ASSERT_OK_AND_ASSIGN(auto azurite, azure::ParseAzureUrl(fs::JoinPath(
                                         "http://127.0.0.1:10000/devstoreaccount1/lake/run", "_checkpoints/x")));
  EXPECT_EQ(azurite.container, "lake");
  EXPECT_EQ(azurite.path, "run/_checkpoints/x");
}

}  // namespace
}  // namespace weir::cli
