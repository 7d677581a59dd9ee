// DebuggedRun: whether a debug session debugs the run the panel shows (RunSession.run), and the panel's
// actions that reach it: "Follow This Task" (coroscope/followTask, the request the Call Stack's thread
// menu sends). No `vscode` import: extension/debug/register.ts gives the sessions and their requests.
//
// Invariants: `onDebugged` fires only when the answer changes (a session starts or ends, the run shown
// changes); a task is followed only through a session of the run shown, never another run's.

import { Emitter } from './emitter';
import type { ShownRun } from './logpoint-marks-relay';

/** A debug session whose run is known, and how to follow a task there. */
export interface DebugSessionPort {
  readonly run: unknown;
  followTask(taskId: number): PromiseLike<unknown>;
}

export class DebuggedRun {
  /** Whether a debug session debugs the run shown: changed (the panel's `debugged` event). */
  readonly onDebugged = new Emitter<boolean>();
  private sessions: readonly DebugSessionPort[] = [];
  private told = false;
  private readonly offReset: () => void;

  constructor(private readonly shown: Pick<ShownRun, 'run' | 'onReset'>) {
    this.offReset = shown.onReset.on(() => this.tell());
  }

  /** Every debug session whose run is known, as now. */
  sessionsChanged(sessions: readonly DebugSessionPort[]): void {
    this.sessions = sessions.slice();
    this.tell();
  }

  /** Whether a debug session debugs the run shown. */
  debugged(): boolean {
    return this.sessionOfShown() !== null;
  }

  /** "Follow This Task": the debug session of the run shown follows task `taskId`; throws when none debugs it. */
  async followTask(taskId: number): Promise<void> {
    const session = this.sessionOfShown();
    if (session === null) throw new Error('no debug session debugs the run shown ("Coroscope: Debug This Run" first)');
    await session.followTask(taskId);
  }

  private sessionOfShown(): DebugSessionPort | null {
    const run = this.shown.run;
    if (run === null || run === undefined) return null;
    return this.sessions.find((s) => s.run === run) ?? null;
  }

  private tell(): void {
    const now = this.debugged();
    if (now === this.told) return;
    this.told = now;
    this.onDebugged.fire(now);
  }

  dispose(): void {
    this.offReset();
  }
}
