// What every view of the panel can reach: the connection to the extension, the UI state and
// its reducer, the task table model, the run's status and data, and a few shared actions.
// Views hold no copy of these: they read them when they render.

import type { CrawledPage, CrawlProgress, Lint, ProgramLoopState, SourcePosition } from '../protocol/host-protocol';
import type { RunMoment } from '../protocol/run-moment';
import type { Comparison, ExceptionEntry, ProgressPoint, RunStatus } from '../protocol/webview-protocol';
import type { PanelClient } from './host-bridge';
import type { TaskTableModel } from './state/task-query';
import type { LogpointMarks } from './state/logpoint-marks';
import type { TimelineModel } from './state/timeline-model';
import type { UiAction, UiState } from './state/ui-state';

export interface RunData {
  status: RunStatus;
  /** The chart's points (the panel's ProgressHistory: never replaced, only changed). */
  readonly progress: readonly ProgressPoint[];
  /** The present's latest crawl numbers (views of a moment read AppContext.shownProgress()). */
  lastProgress: CrawlProgress | null;
  exceptions: ExceptionEntry[];
  lints: Lint[];
  /** The crawled pages, oldest first (ProgressHistory's list, like `progress`). */
  readonly pages: readonly CrawledPage[];
  /** The latest comparison of approaches (kept across runs), null before one is asked for. */
  comparison: Comparison | null;
  /** The loops, threads and processes the program runs itself, as they are now (empty: none). */
  programLoops: ProgramLoopState[];
  /** Whether a debug session debugs the run shown (the task detail's "Follow This Task"). */
  debugged: boolean;
}

export interface AppContext {
  readonly client: PanelClient;
  readonly model: TaskTableModel;
  readonly data: RunData;
  /** The run's timeline (empty when the run is not recorded). */
  readonly timeline: TimelineModel;
  /** The hits of the logpoints set over the run, marked on the timeline's lanes. */
  readonly logpointMarks: LogpointMarks;
  ui(): UiState;
  dispatch(action: UiAction): void;
  /** Shows a task in the tasks view. */
  showTask(id: number): void;
  openSource(position: SourcePosition): void;
  /** A short message in the panel's message bar. */
  notify(text: string, kind?: 'error' | 'info'): void;
  /** Asks for a render of the visible view on the next frame. */
  invalidate(): void;
  /** Moves the run's viewed moment to `tick` (null: back to the present); every view follows. */
  seek(tick: number | null): void;
  /** Goes to a logpoint's hit (the debug session that listed it moves there, and with it every view). */
  goToLogpointHit(hit: number): void;
  /** "Follow This Task": the debug session of the run follows task `taskId` (as from the Call Stack). */
  followTask(taskId: number): void;
  /**
   * The moment the views show (protocol/run-moment.ts): the one asked for by a seek under way, the viewed
   * past tick, or the present.
   */
  moment(): RunMoment;
  /** The moment's tick. */
  shownTick(): number;
  /** True when the views show a past tick (or a tick of an opened recording: never the present). */
  viewingPast(): boolean;
  /** The crawl's numbers at the moment shown (a past tick's: null until known), null for a run that is not a crawl. */
  shownProgress(): CrawlProgress | null;
  /**
   * The run's last tick as the views count it: the timeline's, or the tick shown when it is
   * later (a past line of a live line stop is in the stop's own tick, not complete yet), so a
   * view never says "tick N of N-1".
   */
  lastTick(): number;
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
