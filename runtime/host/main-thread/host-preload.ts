// Runs first in a runtime host's process, before its bundle (dist/runtime-host-preload.js, which whoever
// forks a host names with `--require`: the extension, a host's worker forking a line replay host, the CLI):
// starts the host's line debugger's worker ahead (line-debug-worker-start.ts), so that node booting that
// thread runs beside the main thread's read, compile and load of the host's bundle.
//
// Invariants: does something only on a main thread whose script is the host bundle beside it, started with
// a client pipe; anything else (the worker itself, a program's child process that inherited the option)
// only loads this file. Starting ahead never changes what the host does, only when its worker is up.

import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { clientFdOf, startLineDebugWorkerAhead } from './line-debug-worker-start';

/** The host bundle this preload goes with: beside it. */
const HOST_BUNDLE = 'runtime-host.js';

function mainScript(): string | null {
  const script = process.argv[1];
  if (script === undefined || !existsSync(script)) return null;
  return realpathSync(script);
}

const fd = clientFdOf(process.argv);
const script = isMainThread && fd !== null ? mainScript() : null;
const beside = join(__dirname, HOST_BUNDLE);
if (fd !== null && script !== null && existsSync(beside) && script === realpathSync(beside))
  startLineDebugWorkerAhead(script, fd, process.execArgv);
