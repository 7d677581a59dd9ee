// The timeline's horizontal axis: which ticks are in view (a window [from, to)), how a tick
// maps to a pixel and back (linear in ticks, or in wall time, using the model's per-tick
// times), zooming around a point, and the pixel runs one lane draws. Pure (no DOM).
//
// Invariants:
// - A window always holds at least one tick and lies within [FIRST_TICK, lastTick + 1).
// - tickAtX(xOf(t)) === t for every tick wide enough to own a pixel; xOf is monotonic.
// - laneRuns returns at most `width` runs, left to right, not overlapping: a lane of
//   tens of thousands of segments costs one canvas rectangle per pixel at most, and each
//   pixel shows the stretch under its middle tick (what covers most of it).

import type { TimelineLane } from '../../protocol/host-protocol';
import { FIRST_TICK, segmentIndexAt, segmentKind, type SegmentKind, type TimelineModel } from './timeline-model';

export type AxisMode = 'ticks' | 'time';

export interface TickWindow {
  from: number;
  /** Exclusive. */
  to: number;
}

/** The whole run: ticks FIRST_TICK .. lastTick. */
export function wholeRun(lastTick: number): TickWindow {
  return { from: FIRST_TICK, to: Math.max(FIRST_TICK, lastTick) + 1 };
}

/** The window clamped to the run: at least one tick, within [FIRST_TICK, lastTick + 1). */
export function clampWindow(w: TickWindow, lastTick: number): TickWindow {
  const all = wholeRun(lastTick);
  const span = Math.max(1, Math.min(all.to - all.from, w.to - w.from));
  const from = Math.max(all.from, Math.min(w.from, all.to - span));
  return { from, to: from + span };
}

/** The window scaled by `factor` (< 1 zooms in) around `tick`, which keeps its place. */
export function zoomWindow(w: TickWindow, tick: number, factor: number, lastTick: number): TickWindow {
  const span = Math.max(1, w.to - w.from);
  const next = Math.max(1, Math.round(span * factor));
  const share = span > 0 ? (tick - w.from) / span : 0.5;
  const from = Math.round(tick - share * next);
  return clampWindow({ from, to: from + next }, lastTick);
}

/** The window moved by `ticks` (clamped). */
export function panWindow(w: TickWindow, ticks: number, lastTick: number): TickWindow {
  return clampWindow({ from: w.from + ticks, to: w.to + ticks }, lastTick);
}

/** A window that shows `tick` (the same one when it already does). */
export function windowShowing(w: TickWindow, tick: number, lastTick: number): TickWindow {
  if (tick >= w.from && tick < w.to) return w;
  const span = w.to - w.from;
  return clampWindow({ from: tick - Math.floor(span / 2), to: tick - Math.floor(span / 2) + span }, lastTick);
}

export class TickScale {
  private readonly a: number;
  private readonly b: number;

  constructor(
    private readonly model: TimelineModel,
    readonly mode: AxisMode,
    readonly window: TickWindow,
    readonly width: number,
  ) {
    this.a = this.pos(window.from);
    this.b = this.pos(window.to);
  }

  /** The axis position of the start of `tick`: the tick itself, or the wall ms at which it began. */
  private pos(tick: number): number {
    return this.mode === 'ticks' ? tick : this.model.msAt(tick);
  }

  /** The pixel of the start of `tick` (may lie outside [0, width]). */
  xOf(tick: number): number {
    const span = this.b - this.a;
    if (span <= 0) return 0;
    return ((this.pos(tick) - this.a) / span) * this.width;
  }

  /** The tick under pixel `x`, clamped to the window. */
  tickAtX(x: number): number {
    const span = this.b - this.a;
    const p = this.a + (Math.max(0, Math.min(this.width, x)) / Math.max(1, this.width)) * span;
    let t: number;
    if (this.mode === 'ticks') t = Math.floor(p);
    else t = this.model.tickAtMs(p);
    return Math.max(this.window.from, Math.min(this.window.to - 1, t));
  }
}

/** A stretch's last tick: an open one goes on to the present (the host gave its end at its last fetch). */
function segEnd(s: TimelineLane['segments'][number], presentTick: number): number {
  return s.open === true ? Math.max(s.toTick, presentTick) : s.toTick;
}

export interface PixelRun {
  x0: number;
  x1: number;
  kind: SegmentKind;
}

/**
 * The pixel runs a lane draws in the scale's window: each pixel column shows the stretch the
 * task was in at the tick under its middle (so zoomed out, a pixel shows what covers most of
 * its ticks, not whichever came first), adjacent columns of the same kind merged. The walk
 * is forward only: O(width + segments in the window).
 */
export function laneRuns(lane: TimelineLane, scale: TickScale, presentTick: number): PixelRun[] {
  const runs: PixelRun[] = [];
  const segs = lane.segments;
  if (segs.length === 0) return runs;
  const { from, to } = scale.window;
  // Ticks [first, last) of the lane in the window: its end tick included (its last step).
  const laneEnd = Math.min(lane.endTick ?? presentTick, presentTick) + 1;
  const first = Math.max(from, lane.createdTick, segs[0]!.fromTick);
  const last = Math.min(to, laneEnd);
  if (last <= first) return runs;
  const x0 = Math.max(0, Math.floor(scale.xOf(first)));
  const x1 = Math.min(scale.width, Math.max(x0 + 1, Math.ceil(scale.xOf(last))));
  let i = Math.max(0, segmentIndexAt(segs, first));
  let current: PixelRun | null = null;
  for (let x = x0; x < x1; x++) {
    // The column's middle tick, kept inside the lane's life (its first and last columns may be partly outside).
    const tick = Math.max(first, Math.min(last - 1, scale.tickAtX(x + 0.5)));
    // The first stretch that reaches this tick: at a tick two stretches share (a step, then
    // the wait it began), the step is drawn, so a one-tick step stays visible.
    while (i + 1 < segs.length && segEnd(segs[i]!, presentTick) < tick) i++;
    const s = segs[i]!;
    const inside = s.fromTick <= tick && tick <= segEnd(s, presentTick);
    if (!inside) {
      current = null;
      continue;
    }
    const kind = segmentKind(s);
    if (current !== null && current.kind === kind && current.x1 === x) current.x1 = x + 1;
    else {
      current = { x0: x, x1: x + 1, kind };
      runs.push(current);
    }
  }
  return runs;
}

/** A round step (1, 2 or 5 times a power of ten, at least 1) no smaller than `raw`: the axis labels' spacing. */
export function niceStep(raw: number): number {
  if (!(raw > 1)) return 1;
  const pow = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5]) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

/** The tick at a share (0..1) of the scrubber's track, for a run of ticks FIRST_TICK..last. */
export function tickAtShare(share: number, last: number): number {
  return FIRST_TICK + Math.round(Math.min(1, Math.max(0, share)) * Math.max(0, last - FIRST_TICK));
}

/** Where a tick sits on the track (0..1). */
export function shareOfTick(tick: number, last: number): number {
  return last > FIRST_TICK ? (tick - FIRST_TICK) / (last - FIRST_TICK) : 1;
}
