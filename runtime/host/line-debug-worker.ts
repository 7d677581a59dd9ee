// The runtime host's worker thread when it is started with a client pipe: it owns the pipe
// (StreamTransport, one JSON message per line) and the LineDebugger, and routes the client's
// requests:
// - the line requests (lineStep, lineStack, lineVariables, lineEvaluate, setLineStepMode)
//   and `continue` / `pause` while stopped on a line are its own;
// - `setBreakpoints`: lines with `yield` go to the main thread (they stop where a task
//   suspends, runtime/inspect/loop-control.ts), the others are line breakpoints, here;
// - everything else goes to the main thread: by postMessage while it runs, through the
//   line debugger's synchronous call (`__coroscopeLine.serve`) while it is stopped.
//   A run-changing request (launch, stop, shutdown) while stopped first lets the thread go
//   with breakpoints off, and turns them back on once answered.
// Whatever the main thread sends (responses, events) goes to the client as it is.
//
// Invariants: every client request gets one response; a forwarded query the main thread had
// not read when it stopped is answered through the synchronous call, and a continue or loop
// step it had not answered yet is answered with the stop's tick (late answers dropped), so no
// client waits on a stopped thread; the pipe closing ends the host.

import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { Socket } from 'node:net';
import { parentPort } from 'node:worker_threads';
import { resolve as resolvePath } from 'node:path';
import type { Breakpoint, BreakpointStatus, HostEvents } from '../../protocol/host-protocol';
import { parseHostRequest } from '../../protocol/host-requests';
import { ProtocolError, parseWireMessage, type RequestMessage, type ResponseMessage } from '../../protocol/rpc';
import { StreamTransport } from '../../protocol/stream-transport';
import { isSuspensionLine } from '../inspect/loop-control';
import { isBridgeControl, type BridgeControl } from './line-debug-bridge';
import { LineDebugger } from './line-debugger';

/** Queries that are safe to answer twice (through the synchronous call, then late by message). */
const READ_ONLY = new Set(['hello', 'snapshot', 'taskDetail', 'variables', 'graph', 'lints', 'samples', 'programLoops']);
/** Requests that change the run: while stopped, the thread goes first (breakpoints off). */
const RUN_CHANGING = new Set(['launch', 'openRecording', 'stop', 'shutdown']);
const LOOP_STEPS = new Set(['stepTick', 'stepTask', 'stepOut']);
/** Requests that let the loop run, answered with a tick. */
const LOOP_MOVES = new Set(['continue', ...LOOP_STEPS]);

export function runLineDebugWorker(fd: number, heldTime: SharedArrayBuffer | null): void {
  const port = parentPort;
  if (port === null) throw new Error('runLineDebugWorker runs in a worker thread');
  const client = new StreamTransport(new Socket({ fd, readable: true, writable: true }));
  const session = new Session();
  session.connectToMainThread();
  const forwarded = new Map<number, RequestMessage>();

  const respond = (id: number, result: unknown): void => client.send({ kind: 'response', id, ok: true, result } satisfies ResponseMessage);
  const refuse = (id: number, e: unknown, code = 'failed'): void =>
    client.send({ kind: 'response', id, ok: false, error: { message: e instanceof Error ? e.message : String(e), code } } satisfies ResponseMessage);

  /** Serves a message on the stopped main thread; sends what it answered. */
  const serveStopped = async (m: RequestMessage): Promise<void> => {
    const raw = await debuggerOf().callMain(`serve(${JSON.stringify(JSON.stringify(m))})`);
    const out: unknown = typeof raw === 'string' ? JSON.parse(raw) : [];
    if (Array.isArray(out)) for (const x of out) deliver(x);
  };
  /** Something the main thread sent: a setBreakpoints part to merge, or for the client. */
  const deliver = (m: unknown): void => {
    if (!takeMerge(m)) client.send(m);
  };

  let dbg: LineDebugger | null = null;
  const debuggerOf = (): LineDebugger => dbg!;
  dbg = new LineDebugger(session, {
    heldTime,
    emit: <E extends 'paused' | 'continued' | 'output'>(event: E, body: HostEvents[E]) => client.send({ kind: 'event', event, body }),
    stopped: async () => {
      for (const [id, m] of forwarded) {
        // A continue or a loop step the main thread took, whose answer it had not sent before
        // it stopped on a line (the program ran into the breakpoint first): it is answered
        // here, with the tick of the stop, and its late answer dropped.
        if (!LOOP_MOVES.has(m.method)) continue;
        forwarded.delete(id);
        respond(id, { tick: debuggerOf().tick() });
      }
      // Queries the main thread had not read yet: answer them now.
      for (const [id, m] of forwarded) {
        if (!READ_ONLY.has(m.method)) continue;
        forwarded.delete(id);
        await serveStopped(m).catch((e: unknown) => refuse(id, e));
      }
    },
  });

  const toMain = (m: RequestMessage): void => {
    forwarded.set(m.id, m);
    port.postMessage(m);
  };

  const setBreakpoints = async (m: RequestMessage): Promise<void> => {
    const p = (typeof m.params === 'object' && m.params !== null ? m.params : {}) as { file?: unknown; breakpoints?: unknown };
    if (typeof p.file !== 'string' || !Array.isArray(p.breakpoints)) {
      // Let the host's own checks word the refusal.
      if (dbg!.isStopped()) await serveStopped(m);
      else toMain(m);
      return;
    }
    const file = resolvePath(p.file);
    let lines: string[] = [];
    try {
      lines = readFileSync(file, 'utf8').split('\n');
    } catch {
      // The host's checks say it cannot read the file.
    }
    const all = p.breakpoints as Breakpoint[];
    const suspension = all.filter((b) => typeof b === 'object' && b !== null && (lines.length === 0 || isSuspensionLine(lines[(b.line ?? 0) - 1] ?? 'yield')));
    const line = all.filter((b) => !suspension.includes(b));
    const lineStatuses = await dbg!.setLineBreakpoints(file, line);
    // The main thread's part, asked as a request of our own.
    const sub: RequestMessage = { kind: 'request', id: m.id, method: 'setBreakpoints', params: { file, breakpoints: suspension } };
    const mainStatuses = await new Promise<BreakpointStatus[] | Error>((resolve) => {
      pendingMerges.set(m.id, resolve);
      if (dbg!.isStopped()) serveStopped(sub).catch((e: unknown) => resolve(e instanceof Error ? e : new Error(String(e))));
      else port.postMessage(sub);
    });
    if (mainStatuses instanceof Error) return refuse(m.id, mainStatuses);
    respond(m.id, { breakpoints: all.map((b) => (suspension.includes(b) ? mainStatuses[suspension.indexOf(b)] : lineStatuses[line.indexOf(b)])) });
  };
  /** setBreakpoints answers of the main thread, merged before the client sees them. */
  const pendingMerges = new Map<number, (r: BreakpointStatus[] | Error) => void>();
  const takeMerge = (m: unknown): boolean => {
    const w = parseWireMessage(m);
    if (typeof w === 'string' || w.kind !== 'response') return false;
    const merge = pendingMerges.get(w.id);
    if (merge === undefined) return false;
    pendingMerges.delete(w.id);
    const r = w.result as { breakpoints?: BreakpointStatus[] } | undefined;
    merge(w.ok && r?.breakpoints !== undefined ? r.breakpoints : new Error(w.error?.message ?? 'setBreakpoints failed'));
    return true;
  };

  const own = async (m: RequestMessage): Promise<void> => {
    const d = dbg!;
    switch (m.method) {
      case 'lineStep': {
        const { kind } = parseHostRequest('lineStep', m.params);
        respond(m.id, {});
        await d.lineStep(kind);
        return;
      }
      case 'lineStack':
        parseHostRequest('lineStack', m.params);
        return respond(m.id, d.stack());
      case 'lineVariables':
        return respond(m.id, { variables: await d.variables(parseHostRequest('lineVariables', m.params).handle) });
      case 'lineEvaluate': {
        const p = parseHostRequest('lineEvaluate', m.params);
        return respond(m.id, await d.evaluate(p.expression, p.frameIndex ?? 0));
      }
      case 'setLineStepMode':
        d.setMode(parseHostRequest('setLineStepMode', m.params).mode);
        return respond(m.id, {});
      default:
        throw new ProtocolError(`unknown method ${JSON.stringify(m.method)}: the runtime host has no such method`, 'unknownMethod');
    }
  };

  const route = async (m: RequestMessage): Promise<void> => {
    const d = dbg!;
    if (m.method.startsWith('line') || m.method === 'setLineStepMode') return own(m);
    if (m.method === 'setBreakpoints') return setBreakpoints(m);
    if (!d.isStopped()) return toMain(m);
    if (m.method === 'continue') {
      const tick = d.tick();
      respond(m.id, { tick });
      return d.resume();
    }
    if (m.method === 'pause') return respond(m.id, { tick: d.tick() });
    if (LOOP_STEPS.has(m.method)) return refuse(m.id, new Error(`${m.method}: the program is stopped on a line: step by line (lineStep) or continue`), 'stoppedOnLine');
    // A seek replays the past on the main thread, which is held on this line.
    if (m.method === 'seekTick') return refuse(m.id, new Error('seekTick: the program is stopped on a line (mid-tick), and the past is replayed on the thread it holds: step to a suspension or continue first'), 'stoppedOnLine');
    if (RUN_CHANGING.has(m.method)) {
      await d.setBreakpointsActive(false);
      await d.resume();
      toMain(m);
      return;
    }
    return serveStopped(m);
  };

  client.onMessage((raw) => {
    const m = parseWireMessage(raw);
    if (typeof m === 'string' || m.kind !== 'request') return;
    route(m).catch((e: unknown) => refuse(m.id, e, e instanceof ProtocolError ? e.code : m.method.startsWith('line') ? 'badRequest' : 'failed'));
  });
  client.onClose((reason) => {
    session.disconnect();
    port.postMessage({ bridge: 'closed', reason } satisfies BridgeControl);
  });

  port.on('message', (m: unknown) => {
    if (isBridgeControl(m)) {
      if (m.bridge === 'disconnect') {
        session.disconnect();
        port.postMessage({ bridge: 'disconnected' } satisfies BridgeControl);
      }
      return;
    }
    if (takeMerge(m)) return;
    const w = parseWireMessage(m);
    if (typeof w !== 'string' && w.kind === 'response') {
      const asked = forwarded.get(w.id);
      // Answered already through the synchronous call (the thread had stopped).
      if (asked === undefined) return;
      forwarded.delete(w.id);
      if (RUN_CHANGING.has(asked.method)) void dbg!.setBreakpointsActive(true);
    }
    deliver(m);
  });
}
