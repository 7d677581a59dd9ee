// Where the debugger's steps through a recorded run land (stepBack, reverseContinue, and the
// forward steps taken from a past tick), computed from a task's timeline lane and the ticks
// of the stops: pure functions, so the rules are tested apart from the adapter.
//
// A task's suspension points are the ticks whose step suspended it: the fromTick of each of
// its suspended segments (the moment right after that tick shows it suspended there, with
// its stack and locals). Invariants: a step back lands strictly before the suspension the
// task is in (or before `tick` when it is not suspended), a step forward strictly after
// `tick`; null when the recording has no such tick.

import type { TimelineLane } from '../../protocol/host-protocol';

/** The ticks at which the task suspended, in order. */
function suspensionTicks(lane: TimelineLane): number[] {
  const out: number[] = [];
  for (const s of lane.segments) if (s.state === 'suspended' && (out.length === 0 || out[out.length - 1] !== s.fromTick)) out.push(s.fromTick);
  return out;
}

/** The task's suspension before the one it is in at `tick` (before `tick` when it is running or scheduled then). */
export function previousSuspension(lane: TimelineLane, tick: number): number | null {
  let current = tick;
  for (const s of lane.segments) {
    if (s.state === 'suspended' && s.fromTick <= tick && tick <= s.toTick) current = s.fromTick;
  }
  let best: number | null = null;
  for (const t of suspensionTicks(lane)) if (t < current) best = t;
  return best;
}

/** The task's next suspension after `tick`. */
export function nextSuspension(lane: TimelineLane, tick: number): number | null {
  for (const t of suspensionTicks(lane)) if (t > tick) return t;
  return null;
}

/** The latest of `ticks` before `tick`. */
export function previousOf(ticks: Iterable<number>, tick: number): number | null {
  let best: number | null = null;
  for (const t of ticks) if (t < tick && (best === null || t > best)) best = t;
  return best;
}

/** The earliest of `ticks` after `tick`. */
export function nextOf(ticks: Iterable<number>, tick: number): number | null {
  let best: number | null = null;
  for (const t of ticks) if (t > tick && (best === null || t < best)) best = t;
  return best;
}
