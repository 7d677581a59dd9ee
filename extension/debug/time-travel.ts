// Where the debugger's steps through a recorded run land (stepBack, reverseContinue, forward
// steps from a past tick, Step Out), from a task's timeline lane and the ticks of the stops:
// pure functions. A task's suspension points are the fromTick of its suspended segments; Step Out
// reads the frame chains (`frames`, `framesKept`) a one-task timeline carries.
//
// Invariants: a step back lands strictly before the suspension the task is in (or before `tick`),
// a step forward strictly after `tick`; null when the recording has no such tick.

import type { TimelineLane } from '../../protocol/host-protocol';

/** The ticks at which the task suspended, in order. */
function suspensionTicks(lane: TimelineLane): number[] {
  const out: number[] = [];
  for (const s of lane.segments)
    if (s.state === 'suspended' && (out.length === 0 || out[out.length - 1] !== s.fromTick)) out.push(s.fromTick);
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

/** Whether the lane's suspensions carry their frame chains (the run was recorded with coroutine tracking). */
export function laneHasFrames(lane: TimelineLane): boolean {
  return lane.segments.some((s) => s.state === 'suspended' && s.frames !== undefined);
}

/**
 * Where Step Out from `tick` lands: the first later suspension at which the frame the task
 * was in right after `tick` (the innermost of its last suspension's chain) has returned, else
 * the tick the task ended; null when the recording has neither (the task is still going).
 * Before its first suspension the task is in its root frame: stepping out goes to its end.
 */
export function frameReturn(lane: TimelineLane, tick: number): number | null {
  let current: readonly string[] = [];
  for (const s of lane.segments) if (s.state === 'suspended' && s.fromTick <= tick) current = s.frames ?? [];
  // The frames of the current chain still the same calls, from the root.
  let going = current.length;
  for (const s of lane.segments) {
    if (s.state !== 'suspended' || s.fromTick <= tick) continue;
    const frames = s.frames ?? [];
    if (s.framesKept !== undefined) going = Math.min(going, s.framesKept);
    else if (frames.length < going || current.some((name, i) => i < going && frames[i] !== name)) going = 0;
    if (going < current.length) return s.fromTick;
  }
  return lane.endTick !== null && lane.endTick > tick ? lane.endTick : null;
}
