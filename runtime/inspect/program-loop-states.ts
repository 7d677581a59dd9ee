// The program loops (runtime/program-loops.ts: the hand-made loops, threads and processes a
// program runs itself) as the host protocol's ProgramLoopState, for the panel and the debugger.
//
// Invariants: read through the loops' inspection interface only; every list is bounded
// (LIST_LIMIT entries, the rest counted in a note), so a loop with thousands of sockets stays
// a small message.

import type { ProgramLoopState } from '../../protocol/host-protocol';
import { programLoops } from '../program-loops';

const LIST_LIMIT = 200;

/** A list cut to LIST_LIMIT, the rest counted in `notes` (`what`: the entry's name, one and many). */
function bounded<T>(list: T[], what: readonly [string, string], notes: string[]): T[] {
  if (list.length <= LIST_LIMIT) return list;
  const more = list.length - LIST_LIMIT;
  notes.push(`${more} more ${what[more === 1 ? 0 : 1]} not listed`);
  return list.slice(0, LIST_LIMIT);
}

/** Every program loop running now, as it is at this moment. */
export function programLoopStates(): ProgramLoopState[] {
  return programLoops().map((l) => {
    const notes = [...l.notes()];
    return {
      kind: l.kind,
      title: l.title,
      running: l.running(),
      ready: bounded(l.ready(), ['ready entry', 'ready entries'], notes),
      sockets: bounded(l.sockets(), ['socket', 'sockets'], notes),
      timers: bounded(l.timers(), ['timer', 'timers'], notes),
      workers: bounded(l.workers(), ['thread or process', 'threads or processes'], notes),
      notes,
    };
  });
}
