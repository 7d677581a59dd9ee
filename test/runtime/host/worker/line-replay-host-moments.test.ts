// The worker refuses a replay host's answer that is not to its own move (protocol/moment-ids.ts):
// LineReplayHost (runtime/host/worker/line-replay-host.ts) names each move (a seek, a walk of the
// stop's lines or from a hit, a breakpoint search) with the asker's moment id and takes the answer
// only when it echoes that id; any other id (another asker's, or one on a move that had none) fails
// the move with replayFailed, so no view is told a moment it did not ask for. The replay host here is a
// stand-in process (fake-line-replay-host.mjs) that echoes ids starting with "honest" and answers
// every other move with another asker's id.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ProtocolError } from '../../../../protocol/rpc';
import { LineReplayHost } from '../../../../runtime/host/worker/line-replay-host';
import { ROOT } from '../host-client';

const FAKE = join(ROOT, 'test', 'runtime', 'host', 'worker', 'fake-line-replay-host.mjs');
/** A search back from tick 10 for no breakpoint in particular (the stand-in finds none). */
const SEARCH = { direction: 'back' as const, bound: { tick: 10 }, floor: 1, ceiling: 10, breakpoints: [] };

/** The move fails with replayFailed, naming the id it got and the id it asked. */
async function refused(move: Promise<unknown>, asked: string | undefined): Promise<void> {
  await assert.rejects(move, (e: unknown) => {
    assert.ok(e instanceof ProtocolError, String(e));
    assert.equal(e.code, 'replayFailed');
    assert.match(e.message, new RegExp(`moment someone-else:1 for ${String(asked)}`));
    return true;
  });
}

describe('a line replay host answering moves with moment ids', () => {
  let replay: LineReplayHost;
  const print = { frames: [], locals: [], locations: [] };

  before(async () => {
    replay = await LineReplayHost.fork({ script: FAKE, execArgv: [] });
    await replay.open({ tick: 10, taskId: 2, print }, '/nonexistent', { runId: 1, ticks: 10, midTick: true });
  });
  after(() => replay.close());

  test('its own id echoed: the seek, the walks and the search are taken', async () => {
    await replay.seekPast(3, 'honest:1');
    assert.equal((await replay.walkStop('back', 'honest:2')).landed, 'line');
    assert.equal((await replay.walkFromHit('over', 'honest:3')).landed, 'line');
    assert.equal((await replay.searchHit({ ...SEARCH, moment: 'honest:4' })).landed, 'none');
  });

  test("another asker's id: every move is refused", async () => {
    await refused(replay.seekPast(3, 'debug 1:5'), 'debug 1:5');
    await refused(replay.walkStop('back', 'debug 1:6'), 'debug 1:6');
    await refused(replay.walkFromHit('over', 'panel:7'), 'panel:7');
    await refused(replay.searchHit({ ...SEARCH, moment: 'debug 1:8' }), 'debug 1:8');
  });

  test('an id on the answer to a move that named none: refused', async () => {
    await refused(replay.seekPast(4), undefined);
    await refused(replay.walkStop('over'), undefined);
  });
});
