// FileSystemFor: the fs::FileSystem a command uses for a path the user gave. Local paths get the
// local file system; Azure storage URLs (azure/azure_url.h: abfss://, https://<account>.blob...,
// Azurite's http://127.0.0.1:PORT/<account>/...) get one azure::BlobFileSystem per account and
// container, opened on first use and kept for the process. Credentials come from one chain
// (ResolveAzureCredentials): the storage settings (hadoop-azure / Spark conf keys, see
// docs/azure.md) set with ConfigureStorage, then the AZURE_* environment variables, as the Azure
// SDKs' DefaultAzureCredential reads them. No key, SAS or client secret is ever printed.
// Thread-safe; the returned file systems live until the process exits.
#pragma once

#include <map>
#include <string>

#include "azure/azure_url.h"
#include "azure/credentials.h"
#include "base/result.h"
#include "cli/flags.h"
#include "fs/file_system.h"
#include "sql/pipeline.h"

namespace weir::cli {

// True if `path` is an Azure storage URL (anything else with "scheme://" is rejected by
// FileSystemFor; plain paths are local).
bool IsRemotePath(const std::string& path);

// Replaces the storage settings (keys as in Spark conf; a "spark.hadoop." prefix is ignored) and
// the resolver for secret('scope','key') / {{secrets/scope/key}} values. Later FileSystemFor calls
// for accounts not opened yet use them.
void ConfigureStorage(const std::map<std::string, std::string>& settings,
                      sql::SecretResolver secrets);

// Declares --set name=value (repeated) and --secrets FILE for commands that open tables.
void AddStorageFlags(Flags& flags);
// Reads --set and --secrets (when the command declares them) into ConfigureStorage, on top of
// `settings` (e.g. a pipeline's SET values; --set wins).
Status ConfigureStorageFromFlags(const Flags& flags,
                                 const std::map<std::string, std::string>& settings = {});

// The file system for `path`. InvalidArgument for an unsupported URL or inconsistent settings
// (naming the setting, never its value); NotFound for a missing container or secret; IOError when
// the storage rejects the credentials.
Result<fs::FileSystem*> FileSystemFor(const std::string& path);
// For commands that declared AddStorageFlags: ConfigureStorageFromFlags(flags), then
// FileSystemFor(path).
Result<fs::FileSystem*> FileSystemFor(const Flags& flags, const std::string& path);

// The file system a pipeline's flows use: FileSystemFor(lakehouse_root), passed through the
// wrapper a test build installed (nothing does in the shipped binary).
Result<fs::FileSystem*> FlowFileSystem(const std::string& lakehouse_root);
// Test builds only (the weir_testing binary, src/cli/testing/): wraps the flows' file system,
// e.g. in a fault-injecting one. Call before any flow runs.
using FileSystemWrapper = fs::FileSystem* (*)(fs::FileSystem* base);
void SetFlowFileSystemWrapper(FileSystemWrapper wrapper);

// The storage credential chain for the account of `location`, first match wins:
//   1. the settings (hadoop-azure keys, docs/azure.md): fs.azure.account.auth.type SharedKey /
//      SAS / OAuth, OAuth's fs.azure.account.oauth.provider.type ClientCredsTokenProvider,
//      WorkloadIdentityTokenProvider or MsiTokenProvider; without an auth type the key, a SAS,
//      then OAuth settings;
//   2. the environment (azure::AzureCredentials::FromStorageEnvironment): AZURE_STORAGE_KEY /
//      AZURE_STORAGE_SAS_TOKEN for this account, the Azure SDKs' client secret, workload
//      identity, and a managed identity only when AZURE_TOKEN_CREDENTIALS asks for one;
//   3. anonymous.
// Exposed for tests. `settings` keys without the "spark.hadoop." prefix; `environment` defaults
// to getenv. InvalidArgument naming the setting or variable (never its value) for incomplete or
// unsupported ones.
Result<azure::AzureCredentials> ResolveAzureCredentials(
    const azure::BlobLocation& location, const std::map<std::string, std::string>& settings,
    const sql::SecretResolver& secrets,
    const azure::AzureCredentials::Environment& environment = nullptr);

// The whole content of a local file (a pipeline, a secrets file); NotFound naming it.
Result<std::string> ReadText(const std::string& path);

}  // namespace weir::cli
