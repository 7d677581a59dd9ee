// Runs on a runtime host's main thread: how its line debugger's worker (line-debug-worker.ts) is started.
// The bridge (line-debug-bridge.ts) starts it once the host's bundle has loaded, unless it was started
// ahead: a host forked with the preload (host-preload.ts, `--require`) starts it before node even reads
// the host's bundle, so that the worker's own start (about 0.2 s of node booting a thread) runs beside
// that load (about 0.15 s) instead of after it; every host start, a line replay host's too, is that much
// sooner at its hello.
//
// Invariants: a worker started ahead is taken once, by the bridge of the same pipe fd and host script,
// within the main script's first run (nothing it sends is read before: messages wait for the event loop);
// one taken by nobody is the process's to end, as any worker.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { HELD_TIME_BYTES } from '../../held-time';

/** A line debugger's worker started, with the counter it and this thread share (held-time.ts). */
export interface StartedLineDebugWorker {
  readonly worker: Worker;
  readonly heldTime: SharedArrayBuffer;
}

/** What a worker started ahead is parked under on `globalThis`, between the preload and the host's bundle. */
const AHEAD = Symbol.for('coroscope.lineDebugWorkerAhead');

interface Ahead extends StartedLineDebugWorker {
  readonly fd: number;
  readonly hostScript: string;
}

/** `--client-fd=N` in `argv`: the client's pipe a host with a line debugger serves (null: none). */
export function clientFdOf(argv: readonly string[]): number | null {
  const arg = argv.find((a) => a.startsWith('--client-fd='));
  if (arg === undefined) return null;
  const fd = Number(arg.slice('--client-fd='.length));
  return Number.isInteger(fd) && fd > 2 ? fd : null;
}

/**
 * The worker's script for host script `hostScript`: the worker's own bundle beside it
 * (dist/line-debug-worker.js, a seventh of the host's: the worker loads only the line debugger
 * and the protocol, not the runtime, the crawler and the samples), or, for a TypeScript source
 * (tsx), its entry in the worker's folder (runtime/host/worker/); the host's own script where neither is
 * there (a host bundled alone).
 */
export function lineDebugWorkerScript(hostScript: string): string {
  const own = /\.[cm]?ts$/.test(hostScript)
    ? join(dirname(hostScript), '..', 'worker', 'line-debug-worker-main.ts')
    : join(dirname(hostScript), 'line-debug-worker.js');
  return existsSync(own) ? own : hostScript;
}

/**
 * Starts the worker serving pipe `fd` on its script (`host.worker`: lineDebugWorkerScript). The host's script
 * (`host.script`), arguments and node options go to the worker too: it starts line replay hosts
 * (line-replay-host.ts) alike, and knows when it is one.
 */
export function startLineDebugWorker(
  host: { script: string; worker: string },
  fd: number,
  execArgv: string[],
): StartedLineDebugWorker {
  // The worker counts the time it holds this thread stopped on a line (see held-time.ts).
  const heldTime = new SharedArrayBuffer(HELD_TIME_BYTES);
  const worker = startWorker(host.worker, {
    workerData: {
      coroscopeLineDebugFd: fd,
      coroscopeHeldTime: heldTime,
      coroscopeHostScript: host.script,
      coroscopeHostExecArgv: execArgv,
    },
    execArgv,
    argv: process.argv.slice(2),
    stdout: false,
    stderr: false,
  });
  return { worker, heldTime };
}

/** Starts the worker ahead of the host's bundle (the preload's one call); parked for takeLineDebugWorkerAhead. */
export function startLineDebugWorkerAhead(hostScript: string, fd: number, execArgv: string[]): void {
  const worker = lineDebugWorkerScript(hostScript);
  const ahead: Ahead = { ...startLineDebugWorker({ script: hostScript, worker }, fd, execArgv), fd, hostScript };
  (globalThis as { [AHEAD]?: Ahead })[AHEAD] = ahead;
}

/** The worker started ahead for pipe `fd` and host script `hostScript`, taken (null: none was). */
export function takeLineDebugWorkerAhead(hostScript: string, fd: number): StartedLineDebugWorker | null {
  const parked = globalThis as { [AHEAD]?: Ahead };
  const ahead = parked[AHEAD];
  if (ahead === undefined || ahead.fd !== fd || ahead.hostScript !== hostScript) return null;
  delete parked[AHEAD];
  return ahead;
}

/**
 * Starts the worker on `script`. The bundle is plain JavaScript; a host run from its
 * TypeScript source (tsx) cannot hand `--import tsx` to a worker on Node 20 (a worker's
 * execArgv takes no module hooks), so that worker first registers tsx's CommonJS hooks itself,
 * found from the script's own node_modules, then loads the script. Without tsx there the
 * worker fails with the reason, and the client's pipe closes with it.
 */
function startWorker(script: string, options: ConstructorParameters<typeof Worker>[1] & object): Worker {
  if (!/\.[cm]?ts$/.test(script)) return new Worker(script, options);
  let tsx: string;
  try {
    tsx = createRequire(script).resolve('tsx/cjs/api');
  } catch {
    throw new Error(
      `the line debugger's worker cannot run ${script}: it is TypeScript and tsx is not installed beside it (build the bundle: npm run build)`,
    );
  }
  const boot = `const { register } = require(${JSON.stringify(tsx)}); register(); require(${JSON.stringify(script)});`;
  return new Worker(boot, {
    ...options,
    eval: true,
    execArgv: (options.execArgv ?? []).filter(
      (a, i, all) => a !== '--import' && all[i - 1] !== '--import' && !a.startsWith('--import='),
    ),
  });
}
