// Runs on a runtime host's line debugger worker thread (live or line replay host): the worker bundle's entry.
//
// The line debugger's worker thread's own entry (bundled to dist/line-debug-worker.js): a
// runtime host started with a client pipe starts its worker on it (line-debug-bridge.ts), so
// that the worker loads only what it runs (the line debugger, the line replay's client side,
// the protocol), a seventh of the host's bundle, instead of the host's whole bundle again (the
// runtime, the crawler, the samples, the inspector) at every host's start, a line replay
// host's included. Started any other way it refuses, naming why.

import { runLineDebugWorkerAsAsked } from './line-debug-worker';

if (!runLineDebugWorkerAsAsked())
  throw new Error(
    "line-debug-worker: this is the runtime host's line debugger worker; the host starts it (runtime-host.js --client-fd=N)",
  );
