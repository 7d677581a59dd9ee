// Shared: runs on a line replay host's main thread (ReplayHostServices.scanTicks); its worker
// reads FIRST_STRETCH. HitScan: the breakpoint hits of one replayed stretch (ticks from+1 .. to).
// The worker's V8 breakpoints call `__coroscopeLine.scanHit`, which records the hit and goes on;
// it pauses only where the worker must look (the `marker`, the hit asked for, the live stop
// `until`). Breakpoints on `yield` lines run the loop's own check, after a warm-up from
// `warmUpFrom`. See docs/design/line-replay-and-breakpoint-search.md.
//
// Invariants: hits are recorded in replay order (a logpoint's with its message and its tick's
// time), only on the scan's own loop; a hit condition counts from `counts` (hits before the
// stretch, or since the breakpoint was set); the marker's own moment's hits are neither before
// nor after it; nothing of a warm-up tick is counted. A scan run to its end (or to `until`) adds the report a
// logpoint's message left in `globalThis.__coroscopeScanEnd` (field-write-trap.ts) as one last hit of its logpoint.

import { resolve as resolvePath } from 'node:path';
import type { EventLoop, LoopObserver } from '../../loop';
import { scanCount, type HitCount } from '../../inspect/hit-count';
import { SuspensionBreakpoints } from '../../inspect/suspension-breakpoints';
import type { Breakpoint, ScanHit, ScanTicksParams, ScanTicksResult } from '../../../protocol/host-protocol';

/**
 * Ticks of a backward search's first stretch, right before the moment searched from (past-hit-search.ts; each
 * earlier one is twice as long).
 */
export const FIRST_STRETCH = 64;

/** The global a logpoint's message may leave a report for the scan's end in (field-write-trap.ts). */
const SCAN_END = '__coroscopeScanEnd';

/** A breakpoint whose condition held at a moment (`message`: a logpoint's, evaluated there). */
interface Held {
  bp: number;
  message?: string;
  /** A logpoint's hit whose message threw: counted (as live), not recorded. */
  silent?: true;
}

export class HitScan {
  /** The replay's loop running the stretch (set once its replay is paused before it). */
  loop: EventLoop | null = null;
  readonly hits: ScanHit[] = [];
  /** The hits of the suspension breakpoints, in tick order. */
  readonly tickHits: ScanHit[] = [];
  /**
   * Checks the suspension breakpoints on the scan's loop (add it to the loop while the stretch runs); null:
   * none armed.
   */
  readonly observer: LoopObserver | null = null;
  /**
   * Index in `hits` at which the marker's moment came (hits before it are before the search's start); null:
   * not reached.
   */
  marked: number | null = null;
  /** Whether the thread was stopped at the hit asked for. */
  stopped = false;
  /** The live line stop the search ends at (`until`) was reached: nothing after it is the past's. */
  untilReached = false;
  /**
   * A breakpoint hit where `until` was reached (its condition held, its hit condition let it): a step landing
   * there stops on it, as the live step does (null: none).
   */
  untilHit: number | null = null;
  /**
   * Per breakpoint: its hits counted (hit-count.ts), from `counts`, those up to the tick it was set in
   * (`since`) not counted.
   */
  private readonly counters: HitCount[];
  /** At a pause for the marker: the hits met at that moment, recorded only if it is not the marker. */
  private pending: Held[] | null = null;
  /**
   * Told the tick of the hit asked for when the scan stops there (a forward search's first hit: its moment
   * becomes the viewed one).
   */
  onStop: ((tick: number) => void) | null = null;
  /** Why the thread is paused now (the worker asks: scanPause). */
  pausedFor: 'marker' | 'until' | 'stop' | null = null;
  /** The tick of the last hit recorded, and how many hits that tick has had. */
  private lastTick = -1;
  private inTick = 0;
  /** The suspension breakpoints' check (null: none armed). */
  private readonly check: SuspensionBreakpoints | null = null;

  constructor(
    private readonly params: ScanTicksParams,
    /** When a tick began (the timeline's tickTimes), recorded with a logpoint's hit; null: not recorded. */
    private readonly tickTime: ((tick: number) => number) | null = null,
  ) {
    delete (globalThis as Record<string, unknown>)[SCAN_END];
    this.counters = params.breakpoints.map((b, i) => scanCount(b, params.counts?.[i] ?? 0));
    const index = new Map<string, number>();
    const byFile = new Map<string, Breakpoint[]>();
    params.breakpoints.forEach((b, i) => {
      const at = b.atSuspension;
      if (at === undefined) return;
      const file = resolvePath(at.file);
      index.set(`${file}:${at.line}`, i);
      const bp: Breakpoint =
        at.condition === undefined ? { file, line: at.line } : { file, line: at.line, condition: at.condition };
      byFile.set(file, [...(byFile.get(file) ?? []), bp]);
    });
    if (byFile.size > 0) {
      const check = new SuspensionBreakpoints((bp, task, description) =>
        this.suspensionHit(index.get(`${bp.file}:${bp.line}`)!, task.id, description),
      );
      for (const [file, bps] of byFile) check.set(file, bps);
      this.check = check;
      this.observer = {
        taskStepStart: (task) => check.stepStarted(task),
        taskStepEnd: (task) => check.stepEnded(task),
      };
    }
  }

  /**
   * Where the stretch must begin for the suspension breakpoints' check to be as the live one's at
   * `from` (`loop`: a replay paused there): before the last step (`lastStep`, by the log) of each
   * task waiting on a breakpoint's line then, whose resume hits unless that step stopped there.
   */
  warmUpFrom(loop: EventLoop, lastStep: (taskId: number) => number | null): number {
    let start = this.params.from;
    if (this.check === null) return start;
    for (const task of loop.allTasks()) {
      if (!this.check.resumesFromBreakpoint(task)) continue;
      const t = lastStep(task.id);
      if (t !== null && t > 0) start = Math.min(start, t - 1);
    }
    return start;
  }

  /**
   * A suspension breakpoint's condition held for task `taskId` on the scan's loop: recorded when its hit
   * condition lets it (true: the live run would stop there).
   */
  private suspensionHit(bp: number, taskId: number, description: string): boolean {
    const loop = this.loop;
    if (loop === null) return false;
    const tick = loop.tickCount();
    // A warm-up tick: where the live run stopped (no hit condition: at every hit), nothing counted.
    const counter = this.counters[bp]!;
    if (tick <= this.params.from) return counter.test === null && counter.countsIn(tick);
    // The loop stops after its tick: in the live stop's tick that is after the live stop.
    const until = this.params.until;
    if (until !== undefined && tick >= until.tick) return false;
    const count = counter.count(tick);
    if (count === null) return false;
    this.tickHits.push(
      this.lapsedFor(bp, taskId)
        ? { bp, tick, taskId, count, description, lapsed: true }
        : { bp, tick, taskId, count, description },
    );
    return true;
  }

  /**
   * A scan breakpoint's condition: the breakpoints of that location whose condition held (`met`); true pauses
   * the thread.
   */
  hit(location: number, met: ReadonlyArray<boolean | string | null>): boolean {
    const loop = this.loop;
    if (loop === null || this.stopped) return false;
    const tick = loop.tickCount();
    // A warm-up tick (before the stretch, run for the suspension breakpoints' check): its line hits are not
    // the stretch's.
    if (tick <= this.params.from) return false;
    const taskId = loop.currentTask()?.id ?? null;
    const bps = this.params.locations[location] ?? [];
    // A logpoint's condition is its message (a string) when it held, null when its message threw where a hit
    // condition counts it (logpoint-message.ts).
    const held: Held[] = [];
    bps.forEach((bp, i) => {
      const m = met[i];
      if (m === true) held.push({ bp });
      else if (typeof m === 'string') held.push({ bp, message: m });
      else if (m === null) held.push({ bp, silent: true });
    });
    if (this.untilReached) return false;
    const m = this.params.marker;
    if (m !== undefined && this.marked === null && m.location === location && m.tick === tick && m.taskId === taskId) {
      this.pending = held;
      this.pausedFor = 'marker';
      return true;
    }
    const u = this.params.until;
    if (u !== undefined && u.location === location && u.tick === tick && u.taskId === taskId) {
      this.pending = held;
      this.pausedFor = 'until';
      return true;
    }
    return this.record(held, tick, taskId);
  }

  /**
   * The worker's verdict on an `until` pause: `matched`, the live line stop (nothing after it is recorded).
   * True: stop here (the hit asked for).
   */
  untilSeen(matched: boolean): boolean {
    return this.paused(matched, (held) => {
      // Its own hits are the live stop's, the present's: not recorded; the first counted is said.
      this.untilReached = true;
      const loop = this.loop;
      const tick = loop?.tickCount() ?? -1;
      for (const { bp, message, silent } of held) {
        if (silent === true) continue;
        // A logpoint there prints as the live step lands there.
        if (message !== undefined) this.record([{ bp, message }], tick, loop?.currentTask()?.id ?? null);
        else if (this.counters[bp]!.count(tick) !== null && this.untilHit === null) this.untilHit = bp;
      }
      // The scan's end report is of the run up to the live stop: what its tick runs after it is not the past's.
      this.reportEnd();
      return false;
    });
  }

  /**
   * A pause for the worker's look (the marker, `until`) ends: `matched`, what `atMatch` does (true: stop
   * here); else the hits met there are recorded as every other moment's are.
   */
  private paused(matched: boolean, atMatch: (held: readonly Held[]) => boolean): boolean {
    const held = this.pending ?? [];
    this.pending = null;
    this.pausedFor = null;
    if (matched) return atMatch(held);
    const loop = this.loop;
    if (loop === null) return false;
    return this.record(held, loop.tickCount(), loop.currentTask()?.id ?? null);
  }

  /**
   * The worker's verdict on the marker pause: `matched`, the moment the search starts from. True: stop here
   * (the hit asked for).
   */
  markerSeen(matched: boolean): boolean {
    return this.paused(matched, () => {
      this.marked = this.hits.length;
      if (this.params.stop?.kind !== 'marker') return false;
      this.stopped = true;
      this.pausedFor = 'stop';
      return true;
    });
  }

  /**
   * Records the hits of one moment (those their hit condition lets through); true: the hit asked for is among
   * them (pause).
   */
  private record(held: readonly Held[], tick: number, taskId: number | null): boolean {
    let stop = false;
    for (const { bp, message, silent } of held) {
      const count = this.counters[bp]!.count(tick);
      if (count === null || silent === true) continue;
      if (tick !== this.lastTick) {
        this.lastTick = tick;
        this.inTick = 0;
      }
      const ordinal = this.inTick++;
      const lapsed = this.lapsedFor(bp, taskId);
      if (message === undefined)
        this.hits.push(lapsed ? { bp, tick, taskId, count, lapsed } : { bp, tick, taskId, count });
      else {
        const task = this.loop?.currentTask() ?? null;
        const hit: ScanHit = { bp, tick, taskId, count, message, taskName: task === null ? '' : `${task.name}` };
        if (this.tickTime !== null) hit.time = this.tickTime(tick);
        this.hits.push(hit);
      }
      if (this.isAsked(tick, ordinal, message !== undefined, bp, taskId, lapsed)) stop = true;
    }
    if (stop) {
      this.stopped = true;
      this.pausedFor = 'stop';
      this.onStop?.(tick);
    }
    return stop;
  }

  private isAsked(
    tick: number,
    ordinal: number,
    logged: boolean,
    bp: number,
    taskId: number | null,
    lapsed: boolean,
  ): boolean {
    const s = this.params.stop;
    if (s === undefined) return false;
    if (s.kind === 'nth') return s.tick === tick && s.ordinal === ordinal;
    // A logpoint never stops a search for the first hit (a step's: it prints on the way, printed()), nor
    // another task's hit a move limited to one task (the breakpoint's `task`), unless that limit lapsed.
    if (s.kind === 'marker' || logged) return false;
    const only = this.params.breakpoints[bp]?.task;
    if (only !== undefined && only !== taskId && !lapsed) return false;
    // The first hit after `afterTick` and the marker.
    return tick > s.afterTick && (this.params.marker === undefined || this.marked !== null);
  }

  /**
   * Whether a hit of breakpoint `bp` by `taskId` comes when the limit of its move to one task (the breakpoint's
   * `task`, another) has lapsed: that task is not live in the scan's loop (it ended, or is not made yet), as the
   * live move's limit lapses at its task's end (line-steps.ts).
   */
  private lapsedFor(bp: number, taskId: number | null): boolean {
    const only = this.params.breakpoints[bp]?.task;
    if (only === undefined || only === taskId || this.loop === null) return false;
    return !this.loop.allTasks().some((t) => t.id === only);
  }

  /**
   * The logpoints' messages recorded since the marker's moment (without a marker, those after the first hit
   * search's `afterTick`: a stretch started earlier to count a hit condition prints none before), in replay
   * order.
   */
  printed(): string[] {
    if (this.params.marker !== undefined && this.marked === null) return [];
    const after = this.params.stop?.kind === 'first' ? this.params.stop.afterTick : -1;
    return messagesAfter(this.hits, this.marked, after);
  }

  /** What scanTicks answers. */
  result(): ScanTicksResult {
    if (!this.stopped) this.reportEnd();
    const result: ScanTicksResult = {
      hits: this.hits,
      marked: this.marked,
      stopped: this.stopped,
      tickHits: this.tickHits,
    };
    if (this.params.until !== undefined) result.untilReached = this.untilReached;
    if (this.untilHit !== null) result.untilHit = this.untilHit;
    return result;
  }

  /**
   * The scan's end report a logpoint's message left (`{ bp, read }`: its logpoint, a function giving its text),
   * recorded as that logpoint's last hit, in the stretch's last tick; taken away once read (never seen twice).
   */
  private reportEnd(): void {
    const g = globalThis as Record<string, unknown>;
    const report = g[SCAN_END];
    delete g[SCAN_END];
    if (typeof report !== 'object' || report === null) return;
    const { bp, read } = report as { bp?: unknown; read?: unknown };
    if (typeof bp !== 'number' || this.params.breakpoints[bp] === undefined || typeof read !== 'function') return;
    let message: unknown;
    try {
      message = read();
    } catch {
      return;
    }
    if (typeof message !== 'string') return;
    const tick = this.params.to;
    const hit: ScanHit = { bp, tick, taskId: null, count: 0, message, taskName: '' };
    if (this.tickTime !== null) hit.time = this.tickTime(tick);
    this.hits.push(hit);
  }
}

/**
 * The logpoints' messages of `hits` from index `marked` on (null: no marker), in ticks after `afterTick`: what
 * a forward step prints on its way (its search may start earlier, where a hit condition's count starts).
 */
export function messagesAfter(hits: readonly ScanHit[], marked: number | null, afterTick: number): string[] {
  return hits.slice(marked ?? 0).flatMap((h) => (h.message === undefined || h.tick <= afterTick ? [] : [h.message]));
}
