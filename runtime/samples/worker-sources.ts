// Self-contained JavaScript sources for the worker threads and child processes the samples
// and the comparison start.
//
// Why source strings: the samples run from the TypeScript sources (tests, through tsx) and
// from esbuild bundles (one CommonJS file), and a worker or child process needs code it can
// load in both cases. A file path would differ between the two (and a bundle has no separate
// worker file); a string run with `new Worker(code, { eval: true })` or
// `spawn(process.execPath, ['-e', code])` does not. So these sources use node built-ins only
// and are plain ES2020 JavaScript, written as raw template strings (`\r\n` stays an escape
// for the code that runs); the only `${...}` in them splice shared pieces together.
//
// Every fetch here is the same on purpose, so the comparison compares how pages are waited
// for, not what is done with them: connect, one `GET path HTTP/1.0` with `Connection: close`,
// read until the server closes, read the status from the status line.

/** `rawFetch(host, port, path, keepRaw, done)`: one page with node:net; `done({status, bytes, raw?} | {error})`. */
const RAW_FETCH = String.raw`
function rawFetch(host, port, path, keepRaw, done) {
  var net = require('node:net');
  var chunks = [];
  var size = 0;
  var finished = false;
  var sock = net.connect({ host: host, port: port }, function () {
    sock.write('GET ' + path + ' HTTP/1.0\r\nHost: ' + host + ':' + port + '\r\nAccept: */*\r\nConnection: close\r\n\r\n');
  });
  function finish(error) {
    if (finished) return;
    finished = true;
    sock.destroy();
    if (error) { done({ error: String(error && error.message || error) }); return; }
    var raw = Buffer.concat(chunks, size);
    var lineEnd = raw.indexOf('\r\n');
    var statusLine = raw.subarray(0, lineEnd < 0 ? raw.length : lineEnd).toString('latin1');
    var match = /^HTTP\/\d\.\d (\d{3})/.exec(statusLine);
    if (!match) { done({ error: 'malformed status line: ' + JSON.stringify(statusLine.slice(0, 80)) }); return; }
    var reply = { status: Number(match[1]), bytes: size };
    if (keepRaw) {
      var copy = new Uint8Array(size);
      copy.set(raw);
      reply.raw = copy;
    }
    done(reply);
  }
  sock.on('data', function (chunk) { chunks.push(chunk); size += chunk.length; });
  sock.on('end', function () { finish(null); });
  sock.on('close', function () { finish(null); });
  sock.on('error', function (error) { finish(error); });
}
`;

/** Memory of this process: PSS where Linux reports it (shared pages split between sharers), RSS otherwise. */
const PROCESS_MEMORY = String.raw`
function processMemory() {
  try {
    var m = /^Pss:\s+(\d+) kB/m.exec(require('node:fs').readFileSync('/proc/self/smaps_rollup', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch (e) { /* not Linux: fall back to RSS */ }
  return process.memoryUsage().rss;
}
`;

/**
 * A worker thread of the fetch pool: takes `{id, host, port, path}` jobs one at a time (the
 * pool only gives a job to an idle worker), answers `{id, status, bytes}` or `{id, error}`.
 */
export const POOL_THREAD_SOURCE = String.raw`
var parentPort = require('node:worker_threads').parentPort;
${RAW_FETCH}
parentPort.on('message', function (job) {
  rawFetch(job.host, job.port, job.path, false, function (reply) {
    reply.id = job.id;
    parentPort.postMessage(reply);
  });
});
parentPort.postMessage({ ready: true });
`;

/**
 * A child process of the fetch pool: the same jobs over the IPC channel; every answer also
 * carries the process's memory. It exits when the parent disconnects.
 */
export const POOL_PROCESS_SOURCE = String.raw`
${RAW_FETCH}
${PROCESS_MEMORY}
process.on('message', function (job) {
  rawFetch(job.host, job.port, job.path, false, function (reply) {
    reply.id = job.id;
    reply.memory = processMemory();
    process.send(reply);
  });
});
process.send({ ready: true, memory: processMemory() });
`;

/**
 * The I/O thread behind a blocking fetch. workerData: `{ flag: SharedArrayBuffer, replies:
 * MessagePort }`. For each `{host, port, path}` job it fetches the page, puts the answer on
 * `replies`, then sets flag[0] to 1 and wakes the thread waiting on it with Atomics.notify.
 */
export const BLOCKING_IO_THREAD_SOURCE = String.raw`
var wt = require('node:worker_threads');
var flag = new Int32Array(wt.workerData.flag);
var replies = wt.workerData.replies;
${RAW_FETCH}
wt.parentPort.on('message', function (job) {
  rawFetch(job.host, job.port, job.path, true, function (reply) {
    replies.postMessage(reply, reply.raw ? [reply.raw.buffer] : []);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  });
});
wt.parentPort.postMessage({ ready: true });
`;

/**
 * A web server on its own thread serving a recorded copy of some demo-site pages, each
 * response held back `latencyMs`. workerData: `{ pages: [{path, status, contentType, body}],
 * latencyMs, counter: SharedArrayBuffer }`; counter[0] counts the requests received. Posts
 * `{port}` once listening. HTTP/1.0 requests get `Connection: close` (node:http's rule),
 * HTTP/1.1 ones keep-alive, as the demo site does.
 */
export const REMOTE_SITE_THREAD_SOURCE = String.raw`
var wt = require('node:worker_threads');
var http = require('node:http');
var data = wt.workerData;
var counter = new Int32Array(data.counter);
var pages = new Map();
for (var i = 0; i < data.pages.length; i++) pages.set(data.pages[i].path, data.pages[i]);
var server = http.createServer({ noDelay: true }, function (req, res) {
  Atomics.add(counter, 0, 1);
  res.sendDate = false;
  var path = String(req.url || '/').replace(/[?#].*$/s, '');
  var page = pages.get(path);
  setTimeout(function () {
    if (res.destroyed) return;
    if (!page) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': '17' });
      res.end('not in this copy\n');
      return;
    }
    var body = Buffer.from(page.body.buffer, page.body.byteOffset, page.body.byteLength);
    res.writeHead(page.status, { 'Content-Type': page.contentType, 'Content-Length': String(body.length) });
    res.end(body);
  }, data.latencyMs);
});
server.listen({ host: '127.0.0.1', port: 0, backlog: 4096 }, function () {
  wt.parentPort.postMessage({ port: server.address().port });
});
`;

/** A worker thread computing Fibonacci numbers the slow way: posts `"ready"`, then `{n}` in, `{n, value, seconds}` out. */
export const FIB_THREAD_SOURCE = String.raw`
var parentPort = require('node:worker_threads').parentPort;
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
parentPort.on('message', function (job) {
  var t0 = performance.now();
  var value = fib(job.n);
  parentPort.postMessage({ n: job.n, value: value, seconds: (performance.now() - t0) / 1000 });
});
parentPort.postMessage('ready');
`;
