// The replay-host protocol: the host's internal methods that serve a line replay host (copies
// and growths of the recording; pastLine, pastHitLine, pastHit, growRecording; replayLineTick,
// scanTicks), asked between the places a host's code runs (runtime/host/).
//
// Invariants: answered beside HostMethods over the same endpoint; no method name is in both
// tables. Not under PROTOCOL_VERSION: a line replay host is forked from the live host's own
// script (same build), and no public client asks them. Params are narrowed by
// protocol/replay-host-requests.ts. Past-line moves carry the moment id of the public request
// they serve, and the replay host echoes it on its answer.

import type {
  ArmedBreakpoint,
  BreakpointHitLanding,
  HitBound,
  HostMethods,
  LineReading,
  LineReadingBefore,
  LineStepKind,
  LineStopPrint,
  LineWatched,
  PastLineLanding,
  RecordingMark,
  ScanHit,
  ScanTicksParams,
  ScanTicksResult,
} from './host-protocol';

/** An answer of the replay host with the moment id of its request echoed (absent when none was given). */
export type MomentEcho<T> = T & { moment?: string };

// No index signature: a misspelled method name is a type error at every caller.
export interface ReplayHostMethods {
  /**
   * A line replay host's own (asked by the live host's worker): walks task `taskId`'s lines in
   * tick `tick` of the opened mid-tick recording to the live stop `stop`, and moves to the
   * line before the one shown ('back') or after it ('over', 'into', 'out'), or lets the
   * line shown go ('leave').
   */
  pastLine: {
    params: {
      tick: number;
      taskId: number;
      stop: LineStopPrint;
      move: 'back' | 'leave' | LineStepKind;
      /** A move back of this many lines within the tick, in one replay (default 1). */
      lines?: number;
      /**
       * Those armed (logpoints and loop breakpoints left out): a forward step stops, as live, at the first hit
       * of one between its line and its landing (in a call the line makes, in the same tick too).
       */
      breakpoints?: ArmedBreakpoint[];
      moment?: string;
    };
    result: MomentEcho<PastLineLanding>;
  };
  /**
   * A line replay host's own: the watched values read, in one replay of tick `tick`, at each line of task
   * `taskId` a step back from the line shown (the live stop `stop`, or the past line of its step shown)
   * would land on in turn within the tick; null when the line shown is not one of that walk's entries.
   */
  pastLineValues: {
    params: { tick: number; taskId: number; stop: LineStopPrint; watched: LineWatched[] };
    /** `held`: the landing a move back of `held` lines reaches is held ready (that move is then answered at once). */
    result: { readings: LineReading[][] | null; why?: string; earlier?: LineReadingBefore; held?: number };
  };
  /**
   * A line replay host's own: pastLineValues from the line shown of a walk anchored at a breakpoint hit (the hit
   * itself, a line reached from it, or a line of an earlier step of its task or of the live stop's task), the
   * readings at each line a step back (pastHitLine) lands on in turn back to that walk's step's first line, in
   * one replay; `ceiling` and `present` as pastHitLine's (a walk made from the hit held by a search).
   */
  pastHitLineValues: {
    params: { ceiling: number; present?: HitBound; watched: LineWatched[] };
    result: { readings: LineReading[][] | null; why?: string; earlier?: LineReadingBefore; held?: number };
  };
  /**
   * A line replay host's own (asked by the live host's worker while its stop is read): replays parked ahead of
   * the stop's walks (the tick before it, and before its task's step before); the ticks parked at.
   */
  pastWarm: {
    params: { tick: number; taskId: number; stop: LineStopPrint };
    result: { parked: number[] };
  };
  /**
   * A line replay host's own (asked by the live host's worker): a move through the lines of the
   * task of the breakpoint hit it shows (pastHit) or of a line reached from it, as pastLine
   * moves through a live stop's: back to the line before, forward by line past the hit (the
   * traced replay goes on tick after tick, through `ceiling`, while the step is under way).
   */
  /**
   * `present`: the live line stop held (a hit's walk of its task goes on into its tick, and reaching it is
   * the present). `breakpoints`: those armed (logpoints left out): a forward step stops, as live, at the
   * first hit of one between its line and its landing (in this tick or a later one).
   */
  pastHitLine: {
    params: {
      move: 'back' | 'leave' | LineStepKind;
      /** A move back of this many lines within the walk's step, in one replay (default 1). */
      lines?: number;
      ceiling: number;
      present?: HitBound;
      breakpoints?: ArmedBreakpoint[];
      /**
       * A forward step limited to the walk's task (lineStep's `task`): as live, it lapses into "follow the loop"
       * when that task ends (line-steps.ts).
       */
      oneTask?: boolean;
      moment?: string;
    };
    result: MomentEcho<PastLineLanding>;
  };
  /**
   * A line replay host's own (asked by the live host's worker): pastBreakpointHit in its opened recording,
   * from `bound` (or, `shown`, the past line it is stopped on, shown again when nothing is found), with
   * `breakpoints` armed.
   */
  pastHit: {
    params: {
      direction: 'back' | 'forward';
      bound: HitBound;
      floor: number;
      ceiling: number;
      breakpoints: ArmedBreakpoint[];
      shown?: boolean;
      until?: HitBound;
      moment?: string;
      /** Not a search: the `ordinal`th hit of tick `tick` of the one breakpoint armed (a logpoint's hit listed). */
      nth?: { tick: number; ordinal: number };
    };
    result: MomentEcho<BreakpointHitLanding>;
  };
  /**
   * A line replay host's own (asked by the live host's worker): every hit in ticks 1 .. `ceiling` of the
   * logpoints armed (each with its logMessage), with its message, in replay order (past-hit-search.ts).
   * `until`: the live line stop in tick `ceiling` (a mid-tick copy's open tick): that tick's hits up to it.
   */
  pastLog: {
    params: { logpoints: ArmedBreakpoint[]; ceiling: number; until?: HitBound };
    result: { hits: ScanHit[] };
  };
  /**
   * The live host's main thread (asked by its worker, for a line replay host): writes the run's recording so
   * far to `path` (recordings.ts: writeReplayCopy); `writeMs`: the main thread's time writing it; `mark`:
   * where the copy ends (between ticks; absent for a mid-tick copy), from which its growths go.
   */
  writeReplayCopy: {
    params: { path: string };
    result: { runId: number; ticks: number; midTick: boolean; writeMs?: number; mark?: RecordingMark };
  };
  /**
   * The live host's main thread (asked by its worker, for the line replay host following the run): writes
   * what the run's recording gained since `from` (a mark of an earlier copy or growth) to `path`
   * (recordings.ts: writeRecordingGrowth, runtime/record/recording-growth.ts); `to`: where it ends now;
   * `writeMs`: the main thread's time on it. Refused (badState) when `from` is not a mark of this run's
   * recording.
   */
  writeRecordingGrowth: {
    params: { path: string; from: RecordingMark };
    result: { runId: number; ticks: number; to: RecordingMark; bytes: number; writeMs: number };
  };
  /**
   * A line replay host's main thread (asked by the live host's worker): grows its opened copy of a live run
   * in place by the growth written to `path` (writeRecordingGrowth), `live`: the run is still going. Refused
   * (badState) when its recording does not end where the growth starts (the worker then hands the whole
   * recording over again).
   */
  growRecording: { params: { path: string; live: boolean }; result: { ticks: number } };
  /**
   * A line replay host's main thread (asked by its worker): replays ticks from+1 .. to with the scan
   * breakpoints counting hits (runtime/host/shared/hit-scan.ts).
   */
  scanTicks: { params: ScanTicksParams; result: ScanTicksResult };
  /**
   * A line replay host's main thread (asked by its worker): runs tick `tick` of the opened recording once
   * more, with its line debugger on (a mid-tick recording's open tick, or a breakpoint hit's tick and those
   * after it). `gate`: a task whose first step in the tick calls the walk's gate first (walk-gate.ts).
   */
  replayLineTick: { params: { tick: number; gate?: number }; result: { tick: number } };
  /**
   * A line replay host's main thread (asked by its worker, pastWarm): a replay parked right after tick `tick`
   * ahead of need, none moved from a tick of `keep`; whether it is parked there.
   */
  warmTick: { params: { tick: number; keep: number[] }; result: { parked: boolean } };
  /**
   * A live host's main thread (asked by its worker): a replay host's scan of the past starts (`hold` true) or
   * has ended (false): the run's checkpoints are not built meanwhile (their replays would take the cores the
   * scan needs); its seeks go on.
   */
  holdCheckpoints: { params: { hold: boolean }; result: Record<string, never> };
}

/** What a runtime host answers in all: the public host protocol and its internal replay-host methods. */
export type HostAndReplayHostMethods = HostMethods & ReplayHostMethods;
