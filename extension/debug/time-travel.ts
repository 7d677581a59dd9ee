// Where the debugger's steps through a recorded run land (stepBack, reverseContinue, and the
// forward steps taken from a past tick), computed from a task's timeline lane and the ticks
// of the stops: pure functions, so the rules are tested apart from the adapter.
//
// A task's suspension points are the ticks whose step suspended it: the fromTick of each of
// its suspended segments (the moment right after that tick shows it suspended there, with
// its stack and locals). Invariants: a step back lands strictly before the suspension the
// task is in (or before `tick` when it is not suspended), a step forward strictly after
// `tick`; null when the recording has no such tick.
//
// Step Out uses the frame chains a one-task timeline carries (`frames`, function names root
// first, recorded at each suspension, with `framesKept`: how many are the same calls as at
// the task's previous suspension): the current frame has returned at the first later
// suspension by which the calls kept all along are fewer than the current chain. A recording
// without `framesKept` is read by names: there the frame has returned where the chain no
// longer starts with the current one, and a call returned and made again by the same frame
// before the task suspends cannot be told from the first.

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
