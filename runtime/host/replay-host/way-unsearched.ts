// Runs only on a line replay host's worker thread. A forward step's search for the hits on its way within
// one tick (LineReplayRole.hitOnTheWay, hitBeforeStop): a line left or landed on mid-line (back from a call
// it made) may be no place a breakpoint stops at, so the search's marker there (or its end, `until`) is
// never reached and the search is refused ('replayFailed'). The walk's landing then stands, and says so: the
// breakpoints and logpoints on that way were not searched, so a stop or an output the live step had there is
// not known (docs/design/breakpoint-search.md, "Continue and steps from a past line").
//
// Invariants: only a same-tick search's refusal for a replay not reaching its moment is turned into a note;
// any other failure stays the move's error; the note names the tick and the search's own reason.

import type { PastLineLanding } from '../../../protocol/host-protocol';
import { ProtocolError } from '../../../protocol/rpc';

/** A step's search: its answer, or why the way was not searched (a note the landing says). */
export type WaySearch<T> = { searched: T } | { unsearched: string };

/**
 * Runs `search` for the hits on a step's way; within one tick (`sameTick`) a refusal for a moment the replay
 * does not reach is the way left unsearched, with the note to say.
 */
export async function searchTheWay<T>(
  sameTick: boolean,
  tick: number,
  search: () => Promise<T>,
): Promise<WaySearch<T>> {
  try {
    return { searched: await search() };
  } catch (e) {
    if (!sameTick || !(e instanceof ProtocolError) || e.code !== 'replayFailed') throw e;
    return { unsearched: unsearchedNote(tick, e.message) };
  }
}

/** What a step whose way was not searched says (in the Debug Console, before its stop). */
export function unsearchedNote(tick: number, reason: string): string {
  return (
    `Coroscope: this step in the past (tick ${tick}) starts or lands mid-line, back from a call, a point no ` +
    `breakpoint marks in the replay: the breakpoints and logpoints on its way were not searched, so a stop or a ` +
    `logpoint's output the live step had there is not shown (${reason})`
  );
}

/** A landing with the note of its way not searched (nothing for a searched way). */
export function sayingUnsearched<T>(landing: PastLineLanding, way: WaySearch<T>): PastLineLanding {
  if (!('unsearched' in way) || landing.landed === 'suspension') return landing;
  return { ...landing, said: [...(landing.said ?? []), way.unsearched] };
}
