// Runs on a runtime host's line debugger worker thread (live or line replay host). MainThreadLink:
// how the worker reaches the main thread: by message while it runs (forward, ask with negative
// ids, askMerge for setBreakpoints parts), through the synchronous call while a line stop holds
// it (serveStopped). Anything else the main thread sends goes to the client as it is.
//
// Invariants: a forwarded request is answered once (a late answer is dropped); a feed the main
// thread had not read when it stopped is withdrawn unread (withdrawFeeds), answered 'superseded'.

import type { MessagePort } from 'node:worker_threads';
import type { BreakpointStatus } from '../../../protocol/host-protocol';
import { ProtocolError, parseWireMessage, type RequestMessage, type ResponseMessage } from '../../../protocol/rpc';
import type { LineDebugger } from './line-debugger';

export class MainThreadLink {
  /** Client requests sent on to the main thread and not answered yet. */
  readonly forwarded = new Map<number, RequestMessage>();
  /** Requests of this worker's own to the main thread (negative ids, never a client's). */
  private askedIds = 0;
  private readonly asked = new Map<number, (w: ResponseMessage) => void>();
  /**
   * A feed's requests to the main thread not answered yet: a line stop withdraws those it has not read
   * (withdrawFeeds).
   */
  private readonly feedAsks = new Set<number>();
  /** setBreakpoints answers of the main thread, merged before the client sees them. */
  private readonly pendingMerges = new Map<number, (r: BreakpointStatus[] | Error) => void>();

  constructor(
    private readonly port: MessagePort,
    private readonly lineDebugger: () => LineDebugger,
    /** Sends a message of the main thread's on to the client. */
    private readonly toClient: (m: unknown) => void,
  ) {}

  /** Sends a client's request on to the running main thread (answered by its message, `takeAnswer`). */
  forward(m: RequestMessage): void {
    this.forwarded.set(m.id, m);
    this.port.postMessage(m);
  }

  /** Sends a message on as it is (a request answered by merge). */
  post(m: RequestMessage): void {
    this.port.postMessage(m);
  }

  /** Asks the main thread by message (`feed`: a feed's, withdrawn at a line stop). */
  ask(method: string, params: unknown, feed = false): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const id = --this.askedIds;
      if (feed) this.feedAsks.add(id);
      this.asked.set(id, (w) => {
        this.feedAsks.delete(id);
        if (w.ok) resolve(w.result);
        else reject(new ProtocolError(w.error?.message ?? `${method} failed`, w.error?.code ?? 'failed'));
      });
      this.port.postMessage({ kind: 'request', id, method, params } satisfies RequestMessage);
    });
  }

  /**
   * At a line stop: the feeds asked of the main thread that it had not read before it stopped
   * are withdrawn (through the synchronous call: it drops them unread), so none runs when it
   * goes on (a line step would step through it): the stop's own recording supersedes them, and
   * the replay host keeps its copy and mark, which the next whole copy or growth goes on from.
   */
  async withdrawFeeds(): Promise<void> {
    const d = this.lineDebugger();
    for (const id of [...this.feedAsks]) {
      if ((await d.callMain(`withdraw(${id})`).catch(() => false)) !== true) continue;
      const answer = this.asked.get(id);
      this.asked.delete(id);
      answer?.({
        kind: 'response',
        id,
        ok: false,
        error: { message: 'the feed was withdrawn at a line stop', code: 'superseded' },
      });
    }
  }

  /**
   * Serves a message on the stopped main thread; sends what it answered (its answer's result through
   * `rewrite`, when given).
   */
  async serveStopped(m: RequestMessage, rewrite?: (result: unknown) => Promise<unknown>): Promise<void> {
    const raw = await this.lineDebugger().callMain(`serve(${JSON.stringify(JSON.stringify(m))})`);
    const out: unknown = typeof raw === 'string' ? JSON.parse(raw) : [];
    if (Array.isArray(out))
      for (const x of out) this.deliver(rewrite === undefined ? x : await rewrittenAnswer(x, m.id, rewrite));
  }

  /**
   * The main thread's part of a client's setBreakpoints (`sub`, the client's id), its statuses merged by the
   * caller.
   */
  askMerge(sub: RequestMessage, stopped: boolean): Promise<BreakpointStatus[] | Error> {
    return new Promise<BreakpointStatus[] | Error>((resolve) => {
      this.pendingMerges.set(sub.id, resolve);
      if (stopped) this.serveStopped(sub).catch((e: unknown) => resolve(e instanceof Error ? e : new Error(String(e))));
      else this.port.postMessage(sub);
    });
  }

  /**
   * A message of the main thread's: a setBreakpoints part to merge, an answer to the worker's
   * own request (both taken here: true), else for the caller (a client's answer, an event).
   */
  take(m: unknown): boolean {
    if (this.takeMerge(m)) return true;
    const w = parseWireMessage(m);
    if (typeof w === 'string' || w.kind !== 'response') return false;
    const answer = this.asked.get(w.id);
    if (answer === undefined) return false;
    this.asked.delete(w.id);
    answer(w);
    return true;
  }

  /** Something the main thread sent through the synchronous call: a setBreakpoints part to merge, or for the client. */
  private deliver(m: unknown): void {
    if (!this.takeMerge(m)) this.toClient(m);
  }

  private takeMerge(m: unknown): boolean {
    const w = parseWireMessage(m);
    if (typeof w === 'string' || w.kind !== 'response') return false;
    const merge = this.pendingMerges.get(w.id);
    if (merge === undefined) return false;
    this.pendingMerges.delete(w.id);
    const r = w.result as { breakpoints?: BreakpointStatus[] } | undefined;
    merge(
      w.ok && r?.breakpoints !== undefined ? r.breakpoints : new Error(w.error?.message ?? 'setBreakpoints failed'),
    );
    return true;
  }
}

/** The main thread's answer to request `id`, its result passed through `rewrite` (anything else as it came). */
async function rewrittenAnswer(
  x: unknown,
  id: number,
  rewrite: (result: unknown) => Promise<unknown>,
): Promise<unknown> {
  if (typeof x !== 'object' || x === null) return x;
  const r = x as { kind?: unknown; id?: unknown; ok?: unknown; result?: unknown };
  if (r.kind !== 'response' || r.id !== id || r.ok !== true) return x;
  return { ...r, result: await rewrite(r.result).catch(() => r.result) };
}
