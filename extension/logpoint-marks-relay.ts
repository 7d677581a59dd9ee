// LogpointMarksRelay: takes the hits a debug session lists for the logpoints set over its run
// (`coroscope/logpointHits`, extension/debug/past-logpoints.ts) to the panel when that run is the
// one the panel shows (RunSession.run), keeps them for a panel that boots later (PanelInit), and
// goes to one of them through the debug session that listed it (`coroscope/goToLogpointHit`), or,
// that session ended, by seeking the panel to its tick. No `vscode` import: the debug session is
// reached through the port given with each list.
//
// Invariants: the hits kept are those of the last list of the run shown (a list carries all the
// hits of the logpoints set, so it replaces the one before); a list of another run is ignored;
// a new run shown (the session's reset) forgets them, the end of the session that listed them
// does not (the recording is still shown); a hit is gone to only while its run is the one shown.

import { Emitter } from './emitter';
import { narrowLogpointMarks, type LogpointMark } from '../protocol/webview-protocol';

/** What the relay needs of the RunSession: the run it shows, its resets (a new run shown), its seeks. */
export interface ShownRun {
  readonly run: unknown;
  readonly onReset: { on(listener: () => void): () => void };
  /** Shows the run at `tick` in every view (the panel's scrubber). */
  seek(tick: number): PromiseLike<unknown>;
}

/** The debug session that listed the hits: goes to hit `hit` there, while it has not ended. */
export interface HitsSession {
  goTo(hit: number): PromiseLike<unknown>;
  ended(): boolean;
}

export class LogpointMarksRelay {
  /** The marks changed (a list of the run shown, or a reset): the panel's `logpointHits` event. */
  readonly onMarks = new Emitter<LogpointMark[]>();
  private run: unknown = null;
  private marks: LogpointMark[] = [];
  private session: HitsSession | null = null;
  private readonly offReset: () => void;

  constructor(private readonly shown: ShownRun) {
    this.offReset = shown.onReset.on(() => this.forget());
  }

  /** A debug session of `run` listed `body` (the event's body, unknown until narrowed). */
  received(run: unknown, body: unknown, session: HitsSession): void {
    if (run === null || run === undefined || run !== this.shown.run) return;
    const hits = typeof body === 'object' && body !== null ? (body as { hits?: unknown }).hits : undefined;
    if (!Array.isArray(hits)) return;
    this.run = run;
    this.marks = narrowLogpointMarks(hits);
    this.session = session;
    this.onMarks.fire(this.marks);
  }

  /** The marks of the run shown (none when the run shown is not the one they were listed in). */
  current(): LogpointMark[] {
    return this.run !== null && this.run === this.shown.run ? this.marks.slice() : [];
  }

  /**
   * Goes to hit `hit` of the marks shown: the debug session that listed it moves there (and every view with
   * it); that session ended, the panel shows the hit's tick. Throws when no debug session of the run shown
   * listed any.
   */
  async goToHit(hit: number): Promise<void> {
    if (this.session === null || this.run !== this.shown.run)
      throw new Error('no debug session lists logpoint hits of the run shown');
    const mark = this.marks.find((m) => m.hit === hit);
    if (mark === undefined) throw new Error(`logpoint hit ${hit} is not listed`);
    if (this.session.ended()) await this.shown.seek(mark.tick);
    else await this.session.goTo(hit);
  }

  private forget(): void {
    const had = this.marks.length > 0;
    this.run = null;
    this.marks = [];
    this.session = null;
    if (had) this.onMarks.fire([]);
  }

  dispose(): void {
    this.offReset();
  }
}
