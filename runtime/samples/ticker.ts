// The "print every few seconds" coroutine of the asyncio-vs-Node article, on the runtime loop,
// with how late each tick came: the measure of whether the loop was free.
//
// Tick k+1 is due TICK_PERIOD after tick k actually ran (that is what `yield* sleep(p)` asks
// for), so its lateness is how long the loop could not run it after it was due.

import { coroutine } from '../coroutine';
import { getRunningLoop } from '../running-loop';
import { sleep } from '../sleep';
import type { Coroutine } from '../task';
import type { Transcript } from './transcript';

export interface TickRecord {
  count: number;
  /** The largest lateness seen, in seconds. */
  maxLateness: number;
}

/** Logs a tick every `period` seconds until cancelled; fills `record` as it goes. */
export const ticker = coroutine(function* ticker(t: Transcript, period: number, record: TickRecord): Coroutine<void> {
  const loop = getRunningLoop();
  const start = loop.time();
  let due = start;
  for (;;) {
    const now = loop.time();
    const lateness = Math.max(0, now - due);
    record.count++;
    record.maxLateness = Math.max(record.maxLateness, lateness);
    t.log(`tick ${record.count} at +${(now - start).toFixed(2)} s${record.count > 1 ? ` (${lateness.toFixed(2)} s late)` : ''}`);
    due = now + period;
    yield* sleep(period);
  }
});
