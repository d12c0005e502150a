#!/usr/bin/python3
"""An Entra ID-shaped token service for the real-Kafka tests, on loopback (stdlib plus Debian's
python3-cryptography and python3-jwt). It signs RS256 access tokens that Kafka's
OAuthBearerValidatorCallbackHandler checks against the JWKS served here, and answers the ways an
Azure workload gets a token:

  POST /<tenant>/oauth2/v2.0/token          client credentials (client_secret, or client_assertion
                                            with a federated token: AKS workload identity)
  GET  /<tenant>/discovery/v2.0/keys        the JWKS the broker validates with
  GET  /<tenant>/v2.0/.well-known/openid-configuration
  GET  /metadata/identity/oauth2/token      IMDS (header Metadata: true; client_id / object_id /
                                            msi_res_id select a user-assigned identity)
  GET  /msi/token                           App Service (IDENTITY_ENDPOINT, X-IDENTITY-HEADER)

and, for the tests only:
  POST /_test/federated-token               a Kubernetes service-account token (the file behind
                                            AZURE_FEDERATED_TOKEN_FILE), signed by a key of its
                                            own; form: sub, lifetime
  POST /_test/config                        JSON: {"lifetime": s, "expired": bool, "fail": n,
                                            "secret": {client: secret}} changes what is issued
  GET  /_stats                              JSON: tokens issued per identity, refusals, distinct
                                            federated assertions seen

Access tokens carry aud = the scope without "/.default" (or the resource asked for), iss =
<base>/<tenant>/v2.0, sub = the identity's object id, appid/azp = its client id, tid, oid.

usage: token_endpoint.py --config CONFIG.json --port-file FILE [--log FILE]
CONFIG: {"tenant": "...", "lifetime": 3600,
         "clients": {"<client id>": "<secret>"},                   service principals
         "federated": {"<client id>": "<expected sub>"},           workload identity apps
         "system_identity": {"client_id": .., "object_id": .., "resource_id": ..} or null,
         "user_identities": [{"client_id": .., "object_id": .., "resource_id": ..}],
         "identity_header": "<App Service X-IDENTITY-HEADER value>"}
"""

import argparse
import base64
import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

FEDERATION_AUDIENCE = "api://AzureADTokenExchange"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


def b64url_uint(n):
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def object_id(name):
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "weir-test-identity:" + name))


class Service:
    def __init__(self, config):
        self.lock = threading.Lock()
        self.tenant = config["tenant"]
        self.lifetime = int(config.get("lifetime", 3600))
        self.clients = dict(config.get("clients", {}))
        self.federated = dict(config.get("federated", {}))
        self.system_identity = config.get("system_identity")
        self.user_identities = list(config.get("user_identities", []))
        self.identity_header = config.get("identity_header")
        self.expired = False
        self.fail = 0
        self.issued = {}
        self.refused = {}
        self.assertions = set()
        self.signing_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "weir-test-" + uuid.uuid4().hex[:8]
        self.federation_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.base = None  # http://127.0.0.1:PORT, set once bound

    def jwks(self):
        numbers = self.signing_key.public_key().public_numbers()
        return {"keys": [{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": self.kid,
                          "n": b64url_uint(numbers.n), "e": b64url_uint(numbers.e)}]}

    def issuer(self):
        return "%s/%s/v2.0" % (self.base, self.tenant)

    def count(self, table, key):
        with self.lock:
            table[key] = table.get(key, 0) + 1

    def take_failure(self):
        with self.lock:
            if self.fail > 0:
                self.fail -= 1
                return True
            return False

    def access_token(self, audience, client_id, oid, identity):
        now = int(time.time())
        with self.lock:
            lifetime = self.lifetime
            expired = self.expired
        exp = now - 120 if expired else now + lifetime
        claims = {"aud": audience, "iss": self.issuer(), "iat": now - 1, "nbf": now - 1,
                  "exp": exp, "sub": oid, "oid": oid, "tid": self.tenant, "appid": client_id,
                  "azp": client_id, "ver": "2.0", "jti": uuid.uuid4().hex}
        token = jwt.encode(claims, self.signing_key, algorithm="RS256",
                           headers={"kid": self.kid, "typ": "JWT"})
        self.count(self.issued, identity)
        return token, lifetime, exp

    def federated_token(self, sub, lifetime):
        now = int(time.time())
        claims = {"iss": self.base + "/oidc", "sub": sub, "aud": [FEDERATION_AUDIENCE],
                  "iat": now, "nbf": now, "exp": now + lifetime, "jti": uuid.uuid4().hex}
        return jwt.encode(claims, self.federation_key, algorithm="RS256")


def aad_error(status, error, code, description):
    return status, {"error": error, "error_description": "AADSTS%d: %s" % (code, description),
                    "error_codes": [code], "timestamp": time.strftime("%Y-%m-%d %H:%M:%SZ"),
                    "trace_id": str(uuid.uuid4()), "correlation_id": str(uuid.uuid4())}


def scope_audience(scope):
    scopes = scope.split()
    if len(scopes) != 1 or not scopes[0].endswith("/.default"):
        return None
    return scopes[0][: -len("/.default")]


class Handler(BaseHTTPRequestHandler):
    service = None
    log_file = None
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        if self.log_file:
            with open(self.log_file, "a") as f:
                f.write("%s %s\n" % (time.strftime("%H:%M:%S"), fmt % args))

    def reply(self, status, body, content_type="application/json"):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def form(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode()
        return {k: v[0] for k, v in parse_qs(raw, keep_blank_values=True).items()}

    def do_GET(self):
        s = self.service
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        parts = [p for p in url.path.split("/") if p]
        if url.path == "/_stats":
            with s.lock:
                return self.reply(200, {"issued": s.issued, "refused": s.refused,
                                        "assertions": len(s.assertions)})
        if len(parts) == 4 and parts[1:] == ["discovery", "v2.0", "keys"] and parts[0] == s.tenant:
            return self.reply(200, s.jwks())
        if len(parts) == 5 and parts[0] == s.tenant and parts[1] == "v2.0":
            return self.reply(200, {"issuer": s.issuer(),
                                    "jwks_uri": "%s/%s/discovery/v2.0/keys" % (s.base, s.tenant),
                                    "token_endpoint": "%s/%s/oauth2/v2.0/token" % (s.base, s.tenant)})
        if url.path == "/metadata/identity/oauth2/token":
            return self.imds(query)
        if url.path == "/msi/token":
            return self.app_service(query)
        return self.reply(404, {"error": "not_found"})

    def pick_identity(self, query, client_key, object_key, resource_key):
        s = self.service
        selectors = [(client_key, "client_id"), (object_key, "object_id"), (resource_key, "resource_id")]
        given = [(q, field) for q, field in selectors if query.get(q)]
        if len(given) > 1:
            return None, (400, {"error": "invalid_request",
                                "error_description": "Only one of client_id, object_id or msi_res_id may be specified"})
        if given:
            q, field = given[0]
            for identity in s.user_identities:
                if identity.get(field) == query[q]:
                    return identity, None
            return None, (400, {"error": "invalid_request",
                                "error_description": "Identity not found"})
        if s.system_identity:
            return s.system_identity, None
        if len(s.user_identities) == 1:
            return s.user_identities[0], None
        return None, (400, {"error": "invalid_request",
                            "error_description": "Multiple user assigned identities exist, please specify the clientId / resourceId of the identity in the token request"})

    def imds(self, query):
        s = self.service
        if self.headers.get("Metadata") != "true":
            return self.reply(400, {"error": "invalid_request",
                                    "error_description": "Required metadata header not specified"})
        if not query.get("api-version"):
            return self.reply(400, {"error": "invalid_request",
                                    "error_description": "Required query variable 'api-version' is missing"})
        resource = query.get("resource")
        if not resource:
            return self.reply(400, {"error": "invalid_request",
                                    "error_description": "Required query variable 'resource' is missing"})
        if s.take_failure():
            return self.reply(503, {"error": "service_unavailable", "error_description": "try again"})
        identity, error = self.pick_identity(query, "client_id", "object_id", "msi_res_id")
        if error:
            s.count(s.refused, "imds")
            return self.reply(*error)
        token, lifetime, exp = s.access_token(resource, identity["client_id"], identity["object_id"],
                                              "imds:" + identity["client_id"])
        now = int(time.time())
        return self.reply(200, {"access_token": token, "client_id": identity["client_id"],
                                "expires_in": str(lifetime), "expires_on": str(exp),
                                "ext_expires_in": str(lifetime), "not_before": str(now),
                                "resource": resource, "token_type": "Bearer"})

    def app_service(self, query):
        s = self.service
        if not s.identity_header or self.headers.get("X-IDENTITY-HEADER") != s.identity_header:
            s.count(s.refused, "appservice")
            return self.reply(401, {"statusCode": 401, "message": "Unauthorized"})
        if query.get("api-version") != "2019-08-01" or not query.get("resource"):
            return self.reply(400, {"statusCode": 400, "message": "api-version 2019-08-01 and resource are required"})
        identity, error = self.pick_identity(query, "client_id", "principal_id", "mi_res_id")
        if error:
            s.count(s.refused, "appservice")
            return self.reply(*error)
        token, lifetime, exp = s.access_token(query["resource"], identity["client_id"],
                                              identity["object_id"], "appservice:" + identity["client_id"])
        return self.reply(200, {"access_token": token, "expires_on": str(exp),
                                "resource": query["resource"], "token_type": "Bearer",
                                "client_id": identity["client_id"]})

    def do_POST(self):
        s = self.service
        url = urlparse(self.path)
        parts = [p for p in url.path.split("/") if p]
        if url.path == "/_test/config":
            length = int(self.headers.get("Content-Length") or 0)
            change = json.loads(self.rfile.read(length) or b"{}")
            with s.lock:
                if "lifetime" in change:
                    s.lifetime = int(change["lifetime"])
                if "expired" in change:
                    s.expired = bool(change["expired"])
                if "fail" in change:
                    s.fail = int(change["fail"])
                s.clients.update(change.get("secret", {}))
            return self.reply(200, {"ok": True})
        if url.path == "/_test/federated-token":
            form = self.form()
            token = s.federated_token(form["sub"], int(form.get("lifetime", 3600)))
            return self.reply(200, token.encode(), "text/plain")
        if len(parts) == 4 and parts[1:] == ["oauth2", "v2.0", "token"]:
            return self.token(parts[0], self.form())
        return self.reply(404, {"error": "not_found"})

    def token(self, tenant, form):
        s = self.service
        if tenant != s.tenant:
            s.count(s.refused, "tenant")
            return self.reply(*aad_error(400, "invalid_request", 90002,
                                         "Tenant '%s' not found." % tenant))
        if s.take_failure():
            return self.reply(*aad_error(503, "temporarily_unavailable", 90033,
                                         "A transient error has occurred. Please try again."))
        if form.get("grant_type") != "client_credentials":
            return self.reply(*aad_error(400, "unsupported_grant_type", 70003,
                                         "The app requested an unsupported grant type."))
        client_id = form.get("client_id", "")
        audience = scope_audience(form.get("scope", ""))
        if audience is None:
            return self.reply(*aad_error(400, "invalid_scope", 1002012,
                                         "The provided value for scope is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI)."))
        if "client_assertion" in form:
            if form.get("client_assertion_type") != ASSERTION_TYPE or client_id not in s.federated:
                s.count(s.refused, client_id)
                return self.reply(*aad_error(400, "invalid_client", 700016,
                                             "Application with identifier '%s' was not found in the directory." % client_id))
            try:
                claims = jwt.decode(form["client_assertion"], s.federation_key.public_key(),
                                    algorithms=["RS256"], audience=FEDERATION_AUDIENCE,
                                    issuer=s.base + "/oidc")
            except jwt.ExpiredSignatureError:
                s.count(s.refused, client_id)
                return self.reply(*aad_error(400, "invalid_client", 700024,
                                             "Client assertion is not within its valid time range."))
            except jwt.InvalidTokenError as e:
                s.count(s.refused, client_id)
                return self.reply(*aad_error(401, "invalid_client", 700027,
                                             "Client assertion failed signature validation. (%s)" % type(e).__name__))
            if claims.get("sub") != s.federated[client_id]:
                s.count(s.refused, client_id)
                return self.reply(*aad_error(400, "invalid_client", 70021,
                                             "No matching federated identity record found for presented assertion subject '%s'." % claims.get("sub")))
            with s.lock:
                s.assertions.add(claims["jti"])
            kind = "federated:"
        else:
            secret = s.clients.get(client_id)
            if secret is None:
                s.count(s.refused, client_id)
                return self.reply(*aad_error(400, "unauthorized_client", 700016,
                                             "Application with identifier '%s' was not found in the directory '%s'." % (client_id, tenant)))
            if form.get("client_secret") != secret:
                s.count(s.refused, client_id)
                return self.reply(*aad_error(401, "invalid_client", 7000215,
                                             "Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '%s'." % client_id))
            kind = "secret:"
        token, lifetime, _ = s.access_token(audience, client_id, object_id(client_id), kind + client_id)
        return self.reply(200, {"token_type": "Bearer", "expires_in": lifetime,
                                "ext_expires_in": lifetime, "access_token": token})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log")
    args = parser.parse_args()
    with open(args.config) as f:
        service = Service(json.load(f))
    Handler.service = service
    Handler.log_file = args.log
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    service.base = "http://127.0.0.1:%d" % server.server_address[1]
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    import os
    os.rename(args.port_file + ".tmp", args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
