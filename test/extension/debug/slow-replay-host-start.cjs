// Preloaded into an adapter test's processes (NODE_OPTIONS=--require): a line replay host (a host
// started with --line-replay) starts REPLAY_HOST_START_MS late, as one forked on a loaded machine does
// (seconds, seen in CI); every other process and thread starts as usual.
'use strict';
const { isMainThread } = require('node:worker_threads');

const REPLAY_HOST_START_MS = 3000;

if (isMainThread && process.argv.includes('--line-replay'))
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, REPLAY_HOST_START_MS);
