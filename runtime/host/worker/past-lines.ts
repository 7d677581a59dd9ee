// Runs on a runtime host's line debugger worker thread: a live host's step back, and a line
// replay host's walk. The lines of one task step as the walk sees them (its frame chain and the
// innermost frame's line, only functions on the stop's chain), and where a step lands: pure
// functions. Before the step's first line, stepsBefore finds the last line of an earlier step
// by the recorded frame chains (docs/design/line-replay-and-breakpoint-search.md).
//
// Invariants: a step back lands strictly before `from`, on a line of the same frame or a caller,
// null when none; a step forward lands strictly after `from` and never past the live stop; a
// step passed over ran no line of the stop's frames, and in doubt (no frames recorded) it is kept.

import type { TimelineSegment } from '../../../protocol/host-protocol';

export interface PastLineEntry {
  /** The functions of the frames, outermost first (function keys: script and start). */
  readonly chain: readonly string[];
  /** The innermost frame's source line ('file:line'). */
  readonly line: string;
}

/** `outer` is `inner`'s chain or a prefix of it: the same frame, or a caller. */
function sameOrCaller(outer: readonly string[], inner: readonly string[]): boolean {
  if (outer.length > inner.length) return false;
  for (let i = 0; i < outer.length; i++) if (outer[i] !== inner[i]) return false;
  return true;
}

export function sameEntry(a: PastLineEntry, b: PastLineEntry): boolean {
  return a.line === b.line && a.chain.length === b.chain.length && sameOrCaller(a.chain, b.chain);
}

/**
 * The line the task ran before entry `from`: in the same frame, or the caller's line when `from` is the first
 * of its function; null: none in this step.
 */
export function previousLine(entries: readonly PastLineEntry[], from: number): number | null {
  const at = entries[from];
  if (at === undefined) return null;
  for (let j = from - 1; j >= 0; j--) if (sameOrCaller(entries[j]!.chain, at.chain)) return j;
  return null;
}

/**
 * Where a step forward from entry `from` lands: 'into' the next line run, 'over' the next
 * line of the same frame or a caller, 'out' the next line of a caller; `live` (the live
 * stop's entry) when it comes first or nothing else does.
 */
export function nextLine(
  entries: readonly PastLineEntry[],
  from: number,
  kind: 'over' | 'into' | 'out',
  live: number,
): number {
  const at = entries[from];
  if (at === undefined) return live;
  for (let m = from + 1; m < live; m++) {
    const chain = entries[m]!.chain;
    if (kind === 'into') return m;
    if (kind === 'over' && sameOrCaller(chain, at.chain)) return m;
    if (kind === 'out' && chain.length < at.chain.length && sameOrCaller(chain, at.chain)) return m;
  }
  return live;
}

/**
 * The task's steps before its step at tick `tick` that may have run a line of the functions
 * on a stop's `frames` real frames (the walk's, named `names` when known): the ticks of its
 * earlier suspensions, latest first (a suspended segment begins in the tick of the step that
 * ended in it), however far back (down to the task's first step), with those passed over whose
 * recorded chain kept `frames` + 1 calls from the root (the stop's frames and the innermost
 * one's callee: none of them ran a line then), or, by name, ran none of those functions (the
 * functions a step ran, as its chains show: the deepest call kept across it and the calls
 * under it, before and after it), and how many were passed over before each one kept.
 */
export function stepsBefore(
  segments: readonly TimelineSegment[],
  tick: number,
  frames: number,
  names?: readonly string[],
): Array<{ tick: number; passedOver: number }> {
  const suspended = stepEnds(segments, tick).sort((a, b) => b.fromTick - a.fromTick);
  const steps: Array<{ tick: number; passedOver: number }> = [];
  let passedOver = 0;
  for (const [i, s] of suspended.entries()) {
    if (
      (s.framesKept !== undefined && s.framesKept > frames) ||
      (names !== undefined && !ranAny(s, suspended[i + 1] ?? null, names))
    ) {
      passedOver++;
      continue;
    }
    steps.push({ tick: s.fromTick, passedOver });
    passedOver = 0;
  }
  return steps;
}

/**
 * Whether the step that ended in suspension `s` (after the task's previous one, `previous`;
 * null: its first step) may have run one of the functions `names`: the calls it ran, as the
 * recorded chains show, are the deepest one kept across it and those under it, in the chain it
 * resumed (which returned) and in the one it suspended in (which it made). In doubt (no frames
 * recorded) it may.
 */
function ranAny(s: TimelineSegment, previous: TimelineSegment | null, names: readonly string[]): boolean {
  if (s.frames === undefined || s.framesKept === undefined || (previous !== null && previous.frames === undefined))
    return true;
  const from = Math.max(0, s.framesKept - 1);
  const ran = [...s.frames.slice(from), ...(previous?.frames?.slice(from) ?? [])];
  return ran.some((name) => names.includes(name));
}

/**
 * The segments that end a step of the task before tick `tick`: its suspensions, and its yields
 * to the loop (a bare `yield`, `sleep(0)`: scheduled again at once, a `scheduled` segment after
 * one of its `running` ones, where the one before its first step is its creation's). Each
 * begins in the tick of the step it ended.
 */
export function stepEnds(segments: readonly TimelineSegment[], tick: number): TimelineSegment[] {
  const out: TimelineSegment[] = [];
  let ran = false;
  for (const s of segments) {
    if (s.fromTick < tick && (s.state === 'suspended' || (s.state === 'scheduled' && ran))) out.push(s);
    if (s.state === 'running') ran = true;
  }
  return out;
}
