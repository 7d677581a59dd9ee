// The lines of one task step, as the line replay walks them (past-line-walk.ts), and where a
// step through them lands: pure functions over the walk's entries, so the rules are tested
// apart from the replay.
//
// An entry is a line the task ran: its frame chain (the functions of its frames outside the
// runtime's machinery, outermost first) and the source line of the innermost frame. The
// walk only sees lines of the functions on the live stop's chain, so a call to any other
// function is stepped over (a step in is the replay host's own line step instead, which enters
// it: past-line-walk.ts); consecutive stops on the same line of the same chain are one
// entry.
//
// Before the task's first line of a step, a step back goes to the last line of these functions
// it ran in an earlier step (stepsBefore): the reverse of a step over, which goes across every
// suspension of the call a line makes (the `yield*`) to the task's next line once resumed; so
// steps spent wholly inside that call (reading a response's body, socket read after socket
// read) are passed over, found by the recorded frame chains without replaying them.
//
// Invariants: a step back lands strictly before `from`, on a line of the same frame or of a
// caller (an entry whose chain is `from`'s or a prefix of it), null when the step has none (the
// task's first line of this step: before it is the task's previous suspension); a step forward
// lands strictly after `from`, and never past the live stop (`live`, the last entry). A step
// passed over by stepsBefore ran no line of the stop's frames (their calls and the innermost
// one's callee all kept across it); in doubt (no frames recorded) a step is kept.

import type { TimelineSegment } from '../../protocol/host-protocol';

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

/** The line the task ran before entry `from`: in the same frame, or the caller's line when `from` is the first of its function; null: none in this step. */
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
export function nextLine(entries: readonly PastLineEntry[], from: number, kind: 'over' | 'into' | 'out', live: number): number {
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
 * on a stop's `frames` real frames (the walk's): the ticks of its earlier suspensions, latest
 * first (a suspended segment begins in the tick of the step that ended in it), with those passed
 * over whose recorded chain kept `frames` + 1 calls from the root (the stop's frames and the
 * innermost one's callee: none of them ran a line then), and how many were passed over before
 * each one kept.
 */
export function stepsBefore(segments: readonly TimelineSegment[], tick: number, frames: number): Array<{ tick: number; passedOver: number }> {
  const suspended = segments.filter((s) => s.state === 'suspended' && s.fromTick < tick).sort((a, b) => b.fromTick - a.fromTick);
  const steps: Array<{ tick: number; passedOver: number }> = [];
  let passedOver = 0;
  for (const s of suspended) {
    if (s.framesKept !== undefined && s.framesKept > frames) {
      passedOver++;
      continue;
    }
    steps.push({ tick: s.fromTick, passedOver });
    passedOver = 0;
  }
  return steps;
}
