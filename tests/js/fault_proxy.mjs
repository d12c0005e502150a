// A fault proxy for tests: forwards HTTP requests to a storage service (Azurite) and, for
// requests matching a rule, lets the service apply the request and then lies about it — drops the
// connection without an answer, or answers 500 or 503 — and can then fail the following reads of
// the same blob for a while. This is the ambiguous outcome of a real cloud store (a PUT that timed
// out after the service stored it) that weir's Delta committer must survive.
//
//   node fault_proxy.mjs --target http://127.0.0.1:10000 --port-file FILE
//
// Rules are set over HTTP on the proxy itself:
//   POST /__proxy/rules  {"method":"PUT","path":"_delta_log/00000000000000000002.json",
//                         "action":"drop"|"500"|"503","count":1,"failReads":3}
//     `path` is a substring of the request path; `count` matching requests are hit (then the
//     rule is spent); after each, the next `failReads` GET/HEAD requests of that blob get 503
//     without reaching the service.
//   DELETE /__proxy/rules   removes every rule
//   GET /__proxy/log        the hits so far as JSON lines: {"method","path","action"}
import http from 'node:http';
import fs from 'node:fs';

const args = process.argv.slice(2);
const arg = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const target = new URL(arg('--target'));
const portFile = arg('--port-file');

let rules = [];
const failingReads = new Map();  // blob path -> reads left to fail
const hits = [];

function blobPath(url) {
  return new URL(url, 'http://x').pathname;
}

function forward(req, body, onResponse) {
  const upstream = http.request({
    host: target.hostname,
    port: target.port,
    method: req.method,
    path: req.url,
    headers: req.headers,
  }, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => onResponse(res, Buffer.concat(chunks)));
  });
  upstream.on('error', (e) => onResponse(null, Buffer.from(String(e))));
  upstream.end(body);
}

function answer(res, status, headers, body) {
  res.writeHead(status, headers);
  res.end(body);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (req.url.startsWith('/__proxy/')) {
      if (req.url === '/__proxy/rules' && req.method === 'POST') {
        const rule = JSON.parse(body.toString() || '{}');
        rules.push({ count: 1, failReads: 0, ...rule });
        return answer(res, 200, { 'content-type': 'application/json' }, '{"ok":true}');
      }
      if (req.url === '/__proxy/rules' && req.method === 'DELETE') {
        rules = [];
        failingReads.clear();
        return answer(res, 200, {}, '');
      }
      if (req.url === '/__proxy/log') {
        return answer(res, 200, { 'content-type': 'application/x-ndjson' },
                      hits.map((h) => JSON.stringify(h)).join('\n') + (hits.length ? '\n' : ''));
      }
      return answer(res, 404, {}, '');
    }
    const path = blobPath(req.url);
    if ((req.method === 'GET' || req.method === 'HEAD') && (failingReads.get(path) ?? 0) > 0) {
      failingReads.set(path, failingReads.get(path) - 1);
      hits.push({ method: req.method, path, action: 'read 503' });
      return answer(res, 503, { 'content-type': 'application/xml' },
                    '<?xml version="1.0"?><Error><Code>ServerBusy</Code>' +
                    '<Message>fault proxy: reads of this blob fail for a while</Message></Error>');
    }
    const rule = rules.find((r) => r.count > 0 && (!r.method || r.method === req.method) &&
                                   path.includes(r.path));
    forward(req, body, (upstream, data) => {
      if (!rule) {
        if (!upstream) return answer(res, 502, {}, data);
        return answer(res, upstream.statusCode, upstream.headers, data);
      }
      // The service applied the request; the caller learns nothing reliable of it.
      rule.count -= 1;
      if (rule.failReads > 0) failingReads.set(path, rule.failReads);
      hits.push({ method: req.method, path, action: rule.action,
                  applied: upstream ? upstream.statusCode : 'error' });
      if (rule.action === 'drop') {
        req.socket.destroy();
        return;
      }
      const status = Number(rule.action) || 500;
      answer(res, status, { 'content-type': 'application/xml' },
             '<?xml version="1.0"?><Error><Code>InternalError</Code>' +
             '<Message>fault proxy: the service applied this request</Message></Error>');
    });
  });
});

server.listen(0, '127.0.0.1', () => {
  fs.writeFileSync(portFile, String(server.address().port));
});
