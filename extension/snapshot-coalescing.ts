// The snapshot deltas the inspector panel waits to send (inspector-panel.ts coalesces those that arrive
// within one short window) merged into the one `snapshot` event they become.
//
// Invariants: pure; the merge says what the deltas said one after the other: a task's latest row wins
// and keeps its first place, a task removed later is gone and its id listed in `removed` (every id
// removed, in order), a full snapshot replaces what was pending, and the merge is full only when the
// first of the deltas was; the other fields (version, tick, counts, ...) are the latest's.

import type { Snapshot } from '../protocol/host-protocol';

/** What is pending once `next` arrives after `pending` (null: nothing was). */
export function coalescedSnapshot(pending: Snapshot | null, next: Snapshot): Snapshot {
  if (pending === null || next.full) return next;
  const byId = new Map(pending.tasks.map((t) => [t.id, t]));
  for (const t of next.tasks) byId.set(t.id, t);
  for (const id of next.removed) byId.delete(id);
  return {
    ...next,
    full: pending.full,
    tasks: [...byId.values()],
    removed: pending.removed.concat(next.removed),
  };
}
