// What a watched value's reading at a line means, once for every side that compares readings: the adapter's
// Go to Last/Next Change (extension/debug/value-changes.ts) and the replay host reading a step's values
// (runtime/host/replay-host/line-replay-role.ts). Invariant: two unreachable readings are alike (no value).
import type { LineReading } from './host-protocol';

/** Whether two readings show the same value (a change is a pair that does not). */
export function sameReading(a: Readonly<LineReading>, b: Readonly<LineReading>): boolean {
  if (a.reachable !== b.reachable) return false;
  if (!a.reachable || !b.reachable) return true;
  return a.value === b.value && a.type === b.type;
}

/**
 * Why a field of a pinned object (a forward walk's, Go to Next Change and data breakpoints) cannot be read: its
 * object was collected. Nothing held it, so no code wrote it after: its field keeps the value last read.
 */
export const COLLECTED_PIN = 'the watched object was collected: nothing holds it, so no code can write it any more';

/**
 * Why a pinned object's field is not read at a line of the past: the line shown is in another replay of the run
 * than the one the object was pinned in, at another tick (its copy there is at another moment), or anywhere else
 * when read strictly (a walk's first landing, pinned again in its own replay then).
 */
export const OTHER_REPLAY_PIN =
  'the line shown is in another replay of the run than the watched object: its copy there is not the one watched';
