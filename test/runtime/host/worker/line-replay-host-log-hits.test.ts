// LineReplayHost.logHits (runtime/host/worker/line-replay-host.ts): a logpoint listed again over the
// same recording (the same logpoints, through the same tick) is answered with the hits listed before,
// without replaying the recording again; another message, another ceiling, or a recording given since
// (opened or grown) is replayed. The replay host is the stand-in of line-replay-host-moments.test.ts
// (fake-line-replay-host.mjs), whose nth pastLog answers one hit in tick n: the tick says which replay.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { ArmedBreakpoint } from '../../../../protocol/host-protocol';
import { LineReplayHost } from '../../../../runtime/host/worker/line-replay-host';
import { ROOT } from '../host-client';

const FAKE = join(ROOT, 'test', 'runtime', 'host', 'worker', 'fake-line-replay-host.mjs');
const COPY = { runId: 1, ticks: 10, midTick: false };
const URL_OF = (message: string): ArmedBreakpoint[] => [{ file: '/src/app.ts', line: 7, logMessage: message }];

describe('logpoints listed again by a line replay host', () => {
  let replay: LineReplayHost;
  /** The tick of the one hit listed: which of the stand-in's replays answered. */
  const replayOf = async (logpoints: ArmedBreakpoint[], ceiling: number): Promise<number> =>
    (await replay.logHits(logpoints, ceiling))[0]!.tick;

  before(async () => {
    replay = await LineReplayHost.fork({ script: FAKE, execArgv: [] });
    await replay.open(null, '/nonexistent', COPY);
  });
  after(() => replay.close());

  test('the same logpoints through the same tick: the hits listed before, no replay', async () => {
    const first = await replayOf(URL_OF('{url}'), 10);
    assert.equal(await replayOf(URL_OF('{url}'), 10), first);
  });

  test('another message, another ceiling, a recording given since: replayed', async () => {
    const before = await replayOf(URL_OF('{url}'), 10);
    const other = await replayOf(URL_OF('{url} at {depth}'), 10);
    assert.ok(other > before, 'another message was answered from the list before');
    const shorter = await replayOf(URL_OF('{url} at {depth}'), 9);
    assert.ok(shorter > other, 'another ceiling was answered from the list before');
    await replay.open(null, '/nonexistent', COPY);
    assert.ok((await replayOf(URL_OF('{url} at {depth}'), 9)) > shorter, 'a recording opened since: the list before');
  });
});
