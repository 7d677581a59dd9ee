// What VS Code's Call Stack says beside each thread (PAUSED ON … or RUNNING), worked out from
// what the adapter sent, in arrival order, as VS Code's debug model keeps it:
// - a `stopped` marks every known thread stopped when allThreadsStopped (else its own), and the
//   threads listing VS Code fetches right after it marks every thread listed there too;
// - a `continued` marks its thread (or all) running;
// - a move's success response is a "continued" of VS Code's own, on the request's thread (all
//   threads for a continue answered with allThreadsContinued): a stop sent before that answer
//   is undone by it;
// - a thread `exited` is forgotten; a thread first seen in a listing that no stop fetched is
//   running.
// A test reads `stateOf` after listing the threads (`listed`), to check that a thread's name
// and the state VS Code puts beside it agree.

import type { DebugProtocol } from '@vscode/debugprotocol';
import type { DapClient } from './dap-client';

const MOVES = new Set(['continue', 'next', 'stepIn', 'stepOut', 'stepBack', 'reverseContinue']);

export class ClientThreadStates {
  private readonly stopped = new Map<number, boolean>();
  /** A stop whose threads fetch has not happened yet: all of them (true), or none pending (null). */
  private fetchPending: boolean | null = null;
  private events = 0;
  private answers = 0;

  constructor(private readonly dap: DapClient) {}

  /** Applies every message received so far, in arrival order. */
  private catchUp(): void {
    for (; this.answers < this.dap.answers.length; this.answers++) {
      const a = this.dap.answers[this.answers]!;
      this.applyEventsUpTo(a.afterEvents);
      if (!a.success || !MOVES.has(a.command)) continue;
      const threadId = Number((a.args as { threadId?: unknown } | undefined)?.threadId);
      const all = a.command === 'continue' && a.body.allThreadsContinued !== false;
      this.continued(all ? null : threadId);
    }
    this.applyEventsUpTo(this.dap.events.length);
  }

  private applyEventsUpTo(end: number): void {
    for (; this.events < end; this.events++) {
      const e = this.dap.events[this.events]!;
      if (e.event === 'stopped') {
        const id = Number(e.body.threadId);
        if (e.body.allThreadsStopped === true) {
          for (const k of this.stopped.keys()) this.stopped.set(k, true);
          this.fetchPending = true;
        } else {
          this.fetchPending ??= false;
        }
        this.stopped.set(id, true);
      } else if (e.event === 'continued') {
        this.continued(e.body.allThreadsContinued === true ? null : Number(e.body.threadId));
      } else if (e.event === 'thread' && e.body.reason === 'exited') {
        this.stopped.delete(Number(e.body.threadId));
      }
    }
  }

  private continued(threadId: number | null): void {
    this.fetchPending = null;
    if (threadId === null) for (const k of this.stopped.keys()) this.stopped.set(k, false);
    else this.stopped.set(threadId, false);
  }

  /** The threads VS Code fetched (after a stop, or on a thread event): it keeps these and only these. */
  listed(threads: readonly DebugProtocol.Thread[]): void {
    this.catchUp();
    const ids = new Set(threads.map((t) => t.id));
    for (const k of [...this.stopped.keys()]) if (!ids.has(k)) this.stopped.delete(k);
    for (const t of threads) {
      if (this.fetchPending === true) this.stopped.set(t.id, true);
      else if (!this.stopped.has(t.id)) this.stopped.set(t.id, false);
    }
    this.fetchPending = null;
  }

  /** 'paused' or 'running', as the Call Stack shows it beside the thread. */
  stateOf(threadId: number): 'paused' | 'running' {
    this.catchUp();
    return this.stopped.get(threadId) === true ? 'paused' : 'running';
  }
}
