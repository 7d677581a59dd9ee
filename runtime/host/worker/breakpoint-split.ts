// Runs on a runtime host's line debugger worker thread (live or line replay host).
// BreakpointSplit: a client's setBreakpoints split by line: those on a `yield` line go to the
// main thread (the loop stops where a task suspends) unless the client asks
// `yieldLines: 'before'` or they are logpoints, and are kept for searches of the past
// (ArmedLoopBreakpoints); the others are V8 breakpoints. `setAt` says when they were set, for hit conditions.
//
// Invariants: one answer per request, merged in the client's order; a request the worker cannot
// split (no file, no list) goes to the main thread whole, whose checks word the refusal.

import { readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import type { ArmedBreakpoint, Breakpoint } from '../../../protocol/host-protocol';
import type { RequestMessage } from '../../../protocol/rpc';
import { isSuspensionLine } from '../../inspect/suspension-breakpoints';
import { ArmedLoopBreakpoints } from './armed-loop-breakpoints';
import type { ClientViews } from './client-views';
import type { BreakpointsSetAt, LineDebugger } from './line-debugger';
import type { MainThreadLink } from './main-thread-link';

export class BreakpointSplit {
  /**
   * The breakpoints the loop stops at (lines with yield), as a search of the past arms them beside the line
   * debugger's.
   */
  private readonly loop = new ArmedLoopBreakpoints();

  constructor(
    private readonly lineDebugger: () => LineDebugger,
    private readonly main: MainThreadLink,
    private readonly client: ClientViews,
    /** The current run: null before its launch is answered; finished (or opened). */
    private readonly run: () => { readonly id: number | null; readonly finished: boolean },
  ) {}

  /** A new run: hit conditions count from its start. */
  newRun(): void {
    this.loop.newRun();
  }

  /** Every breakpoint set, as a search of the past arms them: the line debugger's and the loop's. */
  armed(): ArmedBreakpoint[] {
    return [...this.lineDebugger().armedBreakpoints(), ...this.loop.armed()];
  }

  /**
   * What a forward step in the past arms: every breakpoint set, and the logpoints it prints on its way. `task`:
   * the step is limited to that task, only its hits of a breakpoint stop it (the logpoints print all).
   */
  stepArmed(task?: number): ArmedBreakpoint[] {
    const armed = task === undefined ? this.armed() : this.armed().map((b) => ({ ...b, task }));
    return [...armed, ...this.lineDebugger().armedLogpoints()];
  }

  async set(m: RequestMessage): Promise<void> {
    const d = this.lineDebugger();
    const p = (typeof m.params === 'object' && m.params !== null ? m.params : {}) as {
      file?: unknown;
      breakpoints?: unknown;
      yieldLines?: unknown;
    };
    if (typeof p.file !== 'string' || !Array.isArray(p.breakpoints)) {
      // Let the host's own checks word the refusal.
      if (d.isStopped()) await this.main.serveStopped(m);
      else this.main.forward(m);
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
    // With yieldLines 'before', a line with `yield` is a line breakpoint too: it stops before the line runs (issue 26).
    const before = p.yieldLines === 'before';
    // A logpoint prints at its line and never stops, which only a V8 logpoint does: on a `yield` line too it
    // is the line debugger's (the loop's stops cannot print a message).
    const suspension = all.filter(
      (b) =>
        typeof b === 'object' &&
        b !== null &&
        (lines.length === 0 || (!before && !isLogpoint(b) && isSuspensionLine(lines[(b.line ?? 0) - 1] ?? 'yield'))),
    );
    const line = all.filter((b) => !suspension.includes(b));
    const lineStatuses = await d.setLineBreakpoints(file, line, null, this.setAt(line));
    // The main thread's part, asked as a request of our own.
    const sub: RequestMessage = {
      kind: 'request',
      id: m.id,
      method: 'setBreakpoints',
      params: { file, breakpoints: suspension },
    };
    const mainStatuses = await this.main.askMerge(sub, d.isStopped());
    if (mainStatuses instanceof Error) return this.client.refuse(m.id, mainStatuses);
    this.loop.set(file, suspension, mainStatuses, this.setAt(suspension));
    this.client.respond(m.id, {
      breakpoints: all.map((b) =>
        suspension.includes(b) ? mainStatuses[suspension.indexOf(b)] : lineStatuses[line.indexOf(b)],
      ),
    });
  }

  /**
   * When breakpoints are set, for their hit conditions: before the run or once it has
   * finished, from its start; at a line stop, its tick; else the tick the main thread is at
   * (its snapshot's, asked only for a hit condition).
   */
  private setAt(breakpoints: readonly Breakpoint[]): BreakpointsSetAt {
    const d = this.lineDebugger();
    const run = this.run();
    if (
      run.finished ||
      run.id === null ||
      !breakpoints.some((b) => b.hitCondition !== undefined && b.hitCondition.trim() !== '')
    )
      return 'start';
    if (d.isStopped()) return { tick: d.tick() };
    return { telling: this.main.ask('snapshot', {}).then((r) => (r as { tick: number }).tick) };
  }
}

/** A breakpoint with a message to print (DAP `logMessage`). */
function isLogpoint(b: Breakpoint): boolean {
  return typeof b.logMessage === 'string' && b.logMessage !== '';
}
