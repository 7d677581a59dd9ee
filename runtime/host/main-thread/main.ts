// Runs on a runtime host's main thread: the host process's entry (dist/runtime-host.js), and its
// worker's script where dist/line-debug-worker.js is missing. Forked with an IPC channel, it
// serves the host protocol over it; with `--client-fd=N`, over that pipe through a worker thread
// that also line-debugs this thread, the IPC channel then only telling when the client goes.
//
// Invariants: no IPC channel: says so on stderr, exits 2. The program's output is also sent as
// `output` events. An uncaught exception or unhandled rejection is reported and the host stays
// up. The client going away stops the run and exits 0; `shutdown` does so after answering. What a
// replay of the past prints is not sent (the run printed it already).

import { RpcEndpoint } from '../../../protocol/rpc';
import type { HostEvents } from '../../../protocol/host-protocol';
import type { HostAndReplayHostMethods } from '../../../protocol/replay-host-protocol';
import { IpcTransport } from './ipc-transport';
import { RuntimeHost, type HostEndpoint } from './host';
import { LineDebugBridge } from './line-debug-bridge';
import {
  clientFdOf,
  lineDebugWorkerScript,
  startLineDebugWorker,
  takeLineDebugWorkerAhead,
} from './line-debug-worker-start';
import { runLineDebugWorkerAsAsked } from '../worker/line-debug-worker';
import { keepSuspendedLocals } from '../../suspended-locals';
import { removeLineReplayFiles } from '../shared/line-replay-files';
import { replayRunsNow } from './replay-session';

/** How long the host waits for the current run to stop before exiting anyway. */
const EXIT_GRACE_MS = 1500;

function main(): void {
  if (typeof process.send !== 'function') {
    process.stderr.write('coroscope runtime host: start me with child_process.fork (I speak over the IPC channel)\n');
    process.exit(2);
  }
  // Before any program runs here: the host reads suspended frames of the live run and of its
  // replays, which share this isolate's optimized code (suspended-locals.ts).
  keepSuspendedLocals();
  const fd = clientFdOf(process.argv);
  // Its worker started ahead by the preload (host-preload.ts), or now.
  const bridge =
    fd === null
      ? null
      : new LineDebugBridge(
          takeLineDebugWorkerAhead(__filename, fd) ??
            startLineDebugWorker(
              { script: __filename, worker: lineDebugWorkerScript(__filename) },
              fd,
              process.execArgv,
            ),
        );
  const transport = bridge ?? new IpcTransport();
  const endpoint: HostEndpoint = new RpcEndpoint<
    Record<string, never>,
    HostAndReplayHostMethods,
    Record<string, never>,
    HostEvents
  >(transport);
  const host = new RuntimeHost(endpoint);
  bridge?.attach(endpoint, () => host.currentRun());
  endpoint.onProtocolError = (problem) => host.log(`protocol: ${problem}`);

  // The copies its line debugger's worker wrote for replay hosts and had not removed yet (the host ended meanwhile).
  process.on('exit', removeLineReplayFiles);
  let exiting = false;
  const exit = (code: number): void => {
    if (exiting) return;
    exiting = true;
    const force = setTimeout(() => process.exit(code), EXIT_GRACE_MS);
    force.unref();
    host
      .stopRun()
      .catch(() => undefined)
      .then(() => bridge?.disconnect())
      .finally(() => process.exit(code));
  };
  transport.onClose(() => exit(0));
  // With a client pipe, the IPC channel only tells that the client went away.
  if (bridge !== null) process.on('disconnect', () => exit(0));
  host.onShutdown = () => {
    if (process.connected) process.disconnect();
    exit(0);
  };

  // Program output also goes to the client.
  for (const [stream, category] of [
    [process.stdout, 'stdout'],
    [process.stderr, 'stderr'],
  ] as const) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]): boolean => {
      // A replay of the past runs the program's code again: what it prints then was printed by the run
      // already (looking at the past does not make the program print).
      if (!replayRunsNow()) {
        const text =
          typeof chunk === 'string'
            ? chunk
            : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array
              ? Buffer.from(chunk).toString('utf8')
              : String(chunk);
        endpoint.emit('output', { category, text });
      }
      return write(chunk, ...rest);
    }) as typeof stream.write;
  }

  process.on('uncaughtException', (e: unknown) => {
    endpoint.emit('output', {
      category: 'stderr',
      text: `uncaught exception in the runtime host: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
    });
  });
  process.on('unhandledRejection', (e: unknown) => {
    endpoint.emit('output', {
      category: 'stderr',
      text: `unhandled rejection in the runtime host: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
    });
  });
}

// A line debugger's worker started on this script (a bundle without dist/line-debug-worker.js beside it)
// serves its pipe; else this is the host.
if (!runLineDebugWorkerAsAsked()) main();
