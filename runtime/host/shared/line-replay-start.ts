// Loaded by a runtime host's line debugger worker and by the CLI: how a line replay host is started.
// A line replay host is a runtime host (the same build's script) forked with LINE_REPLAY_ARG; its
// client speaks the host and replay-host protocols over the pipe at fd 4, one JSON message a line.
//
// Invariants: the child's stdin, stdout and stderr are closed to it (what it prints would mix with
// its client's output); the IPC channel is there only so that the child ends when its client does;
// once the child has exited, every request to it fails at once.

import { fork, type ChildProcess } from 'node:child_process';
import type { Duplex } from 'node:stream';
import type { HostEvents } from '../../../protocol/host-protocol';
import type { HostAndReplayHostMethods } from '../../../protocol/replay-host-protocol';
import { RpcEndpoint } from '../../../protocol/rpc';
import { StreamTransport } from '../../../protocol/stream-transport';
import { withHostPreload } from './host-preload-option';

/** A line replay host's client end: the host's and the replay host's methods asked, its events heard. */
export type LineReplayEndpoint = RpcEndpoint<
  HostAndReplayHostMethods,
  Record<string, never>,
  HostEvents,
  Record<string, never>
>;

/** The argument that makes a runtime host a line replay host (line-debug-worker.ts reads it). */
export const LINE_REPLAY_ARG = '--line-replay';

/** The fd of the replay host's client pipe (as the extension starts a host). */
const CLIENT_FD = 4;

/** Forks the runtime host `script` as a line replay host: the child, and the client end of its pipe. */
export function forkLineReplayHost(
  script: string,
  execArgv: readonly string[],
): { child: ChildProcess; endpoint: LineReplayEndpoint } {
  const child = fork(script, [`--client-fd=${CLIENT_FD}`, LINE_REPLAY_ARG], {
    execArgv: withHostPreload(script, execArgv),
    stdio: ['ignore', 'ignore', 'ignore', 'ipc', 'pipe'],
    serialization: 'json',
  });
  const endpoint: LineReplayEndpoint = new RpcEndpoint(new StreamTransport(child.stdio[CLIENT_FD] as Duplex));
  child.on('exit', () => endpoint.close('the line replay host exited'));
  return { child, endpoint };
}
