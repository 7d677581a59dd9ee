// LogpointMarksRelay: takes the hits a debug session lists for the logpoints set over its run
// (`coroscope/logpointHits`, extension/debug/past-logpoints.ts) to the panel when that run is the
// one the panel shows (RunSession.run), keeps them for a panel that boots later (PanelInit), and
// goes to one of them through the debug session that listed it (`coroscope/goToLogpointHit`).
// No `vscode` import: the debug session is reached through the function given with each list.
//
// Invariants: the hits kept are those of the last list of the run shown (a list carries all the
// hits of the logpoints set, so it replaces the one before); a list of another run is ignored;
// a new run shown (the session's reset) forgets them; a hit is gone to only by the session that
// listed it, and only while its run is still the one shown.

import { Emitter } from './emitter';
import { narrowLogpointMarks, type LogpointMark } from '../protocol/webview-protocol';

/** What the relay needs of the RunSession: the run it shows, and its resets (a new run shown). */
export interface ShownRun {
  readonly run: unknown;
  readonly onReset: { on(listener: () => void): () => void };
}

/** Goes to hit `hit` in the debug session that listed it. */
export type GoToHit = (hit: number) => PromiseLike<unknown>;

export class LogpointMarksRelay {
  /** The marks changed (a list of the run shown, or a reset): the panel's `logpointHits` event. */
  readonly onMarks = new Emitter<LogpointMark[]>();
  private run: unknown = null;
  private marks: LogpointMark[] = [];
  private goTo: GoToHit | null = null;
  private readonly offReset: () => void;

  constructor(private readonly shown: ShownRun) {
    this.offReset = shown.onReset.on(() => this.forget());
  }

  /** A debug session of `run` listed `body` (the event's body, unknown until narrowed). */
  received(run: unknown, body: unknown, goTo: GoToHit): void {
    if (run === null || run === undefined || run !== this.shown.run) return;
    const hits = typeof body === 'object' && body !== null ? (body as { hits?: unknown }).hits : undefined;
    if (!Array.isArray(hits)) return;
    this.run = run;
    this.marks = narrowLogpointMarks(hits);
    this.goTo = goTo;
    this.onMarks.fire(this.marks);
  }

  /** The marks of the run shown (none when the run shown is not the one they were listed in). */
  current(): LogpointMark[] {
    return this.run !== null && this.run === this.shown.run ? this.marks.slice() : [];
  }

  /** Goes to hit `hit` of the marks shown; throws when no debug session of the run shown listed any. */
  async goToHit(hit: number): Promise<void> {
    if (this.goTo === null || this.run !== this.shown.run)
      throw new Error('no debug session lists logpoint hits of the run shown');
    if (!this.marks.some((m) => m.hit === hit)) throw new Error(`logpoint hit ${hit} is not listed`);
    await this.goTo(hit);
  }

  private forget(): void {
    const had = this.marks.length > 0;
    this.run = null;
    this.marks = [];
    this.goTo = null;
    if (had) this.onMarks.fire([]);
  }

  dispose(): void {
    this.offReset();
  }
}
