// LineReplayHost.start (runtime/host/worker/line-replay-host.ts) forks the replay host while the
// recording's copy is written, not after (the first past logpoint list waits for both): the
// copy's writer sees the replay host's process already running. A copy refused (a run not recorded)
// fails the start with its own error, and the replay host forked meanwhile exits. The replay host is
// the stand-in process of line-replay-host-moments.test.ts (fake-line-replay-host.mjs).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProtocolError } from '../../../../protocol/rpc';
import { LineReplayHost } from '../../../../runtime/host/worker/line-replay-host';
import { ROOT } from '../host-client';

const FAKE = join(ROOT, 'test', 'runtime', 'host', 'worker', 'fake-line-replay-host.mjs');
const COPY = { runId: 1, ticks: 10, midTick: false };

/** The processes this one started (from /proc: every thread's children). */
function children(): number[] {
  return readdirSync('/proc/self/task').flatMap((t) =>
    readFileSync(`/proc/self/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
  );
}

/** Waits (at most `ms`) until `done` holds; whether it did. */
async function within(ms: number, done: () => boolean): Promise<boolean> {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

describe('starting a line replay host', () => {
  test('the replay host is forked while the copy is written', async () => {
    const before = new Set(children());
    let forkedWhileWriting = false;
    const replay = await LineReplayHost.start({ script: FAKE, execArgv: [] }, null, async () => {
      forkedWhileWriting = await within(10_000, () => children().some((pid) => !before.has(pid)));
      return COPY;
    });
    try {
      assert.equal(forkedWhileWriting, true, 'no replay host process ran while the copy was written');
      assert.equal(replay.ticks, 10);
    } finally {
      replay.close();
    }
  });

  test('a copy refused: the start fails with its error, and the replay host forked meanwhile exits', async () => {
    const before = new Set(children());
    const refusal = new ProtocolError('Step Back needs a recorded run', 'notRecorded');
    await assert.rejects(
      LineReplayHost.start({ script: FAKE, execArgv: [] }, null, async () => {
        await within(10_000, () => children().some((pid) => !before.has(pid)));
        throw refusal;
      }),
      (e: unknown) => e === refusal,
    );
    assert.equal(
      await within(10_000, () => children().every((pid) => before.has(pid))),
      true,
      'the replay host forked for a refused copy is still running',
    );
  });
});
