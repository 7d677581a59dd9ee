// LineReplayHost's turns (runtime/host/worker/line-replay-host.ts): the requests that move a line
// replay host's main thread or change what it holds reach it one at a time, in the order asked, however
// many are asked at once (a logpoint list still replaying when a Reverse Continue's search, a seek, a
// walk or an open come); a query (a past line's frames) is answered meanwhile, not held behind them.
// The replay host is the stand-in of line-replay-host-moments.test.ts (fake-line-replay-host.mjs),
// whose "slow" logpoint list takes a while and which says what it received with what was under way.
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { ArmedBreakpoint, LineStopPrint } from '../../../../protocol/host-protocol';
import { LineReplayHost } from '../../../../runtime/host/worker/line-replay-host';
import { ROOT } from '../host-client';

const FAKE = join(ROOT, 'test', 'runtime', 'host', 'worker', 'fake-line-replay-host.mjs');
const PRINT = { frames: [], locations: [] } as unknown as LineStopPrint;
const STOP = { tick: 8, taskId: 2, print: PRINT };
const COPY = { runId: 1, ticks: 8, midTick: true };
const SLOW: ArmedBreakpoint[] = [{ file: '/src/app.ts', line: 7, logMessage: 'slow' }];

interface Arrival {
  method: string;
  /** The requests under way (asked, not answered) when it came. */
  beside: number;
}

describe("a line replay host's turns", () => {
  let replay: LineReplayHost;
  const arrivals = async (): Promise<Arrival[]> =>
    ((await replay.request('arrivals', {})) as { arrivals: Arrival[] }).arrivals;

  beforeEach(async () => {
    replay = await LineReplayHost.fork({ script: FAKE, execArgv: [] });
    await replay.open(STOP, '/nonexistent', COPY);
  });
  afterEach(() => replay.close());

  test('a list replaying: a search, a seek, a walk and an open asked meanwhile come after it, one at a time', async () => {
    await Promise.all([
      replay.logHits(SLOW, 7),
      replay.searchHit({
        direction: 'back',
        bound: { tick: 8 },
        floor: 0,
        ceiling: 7,
        breakpoints: [{ file: '/src/app.ts', line: 9 }],
        moment: 'honest:1',
      }),
      replay.seekPast(3, 'honest:2'),
      replay.walkStop('back', 'honest:3'),
      replay.open(STOP, '/nonexistent', COPY),
    ]);
    assert.deepEqual(await arrivals(), [
      { method: 'hello', beside: 0 },
      { method: 'openRecording', beside: 0 },
      { method: 'pastLog', beside: 0 },
      { method: 'pastHit', beside: 0 },
      { method: 'seekTick', beside: 0 },
      { method: 'pastLine', beside: 0 },
      { method: 'openRecording', beside: 0 },
    ]);
  });

  test("a query is answered while a list replays: a past line's frames wait for no turn", async () => {
    let listed = false;
    const listing = replay.logHits(SLOW, 7).then(() => (listed = true));
    while (!(await arrivals()).some((a) => a.method === 'pastLog')) await new Promise((r) => setTimeout(r, 5));
    await replay.request('lineStack', {});
    assert.equal(listed, false, 'the query waited for the list');
    await listing;
    assert.deepEqual((await arrivals()).slice(2), [
      { method: 'pastLog', beside: 0 },
      { method: 'lineStack', beside: 1 },
    ]);
  });
});
