// The host process's entry (runtime/host/main-thread/main.ts), through a forked host: the
// program's output reaches the client as `output` events while it runs, and a replay of its
// past (a seek, the checkpoints built meanwhile; each loads the program's module again) prints nothing: the past is looked at, the
// program does not print again.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { forkHost, type HostClient } from '../host-client';

const PRINTING = join(__dirname, '..', 'fixtures', 'printing.ts');

/** The program's lines among the output events from `from` on. */
function printed(host: HostClient, from: number): string[] {
  return host.events
    .slice(from)
    .filter((e) => e.event === 'output')
    .flatMap((e) => String((e.body as { text: string }).text).split('\n'))
    .filter((l) => l.startsWith('printed line'));
}

describe('the host process: the program output it sends', () => {
  let host: HostClient;
  before(() => {
    host = forkHost();
  });
  after(async () => {
    await host.close();
  });

  test("a live run's lines come once each, in order; replays of its past print none", async () => {
    const from = host.events.length;
    const launched = await host.rpc.request('launch', {
      target: { kind: 'program', path: PRINTING },
      options: { record: true },
    });
    await host.waitFor('finished', (f) => f.runId === launched.runId, 30_000, from);
    const live = printed(host, from);
    assert.deepEqual(live, ['printed line at load', ...[1, 2, 3, 4, 5, 6].map((i) => `printed line ${i}`)]);
    const ticks = (await host.rpc.request('timeline', {})).ticks;
    assert.ok(ticks >= 6, `ticks ${ticks}`);
    const afterEnd = host.events.length;
    for (const tick of [ticks - 1, 3, ticks - 2]) {
      await host.rpc.request('seekTick', { tick });
      await host.waitFor('viewedTick', (v) => v.tick === tick && v.replayed === true, 20_000, afterEnd);
    }
    // Whatever the checkpoints replay meanwhile has had time to print.
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(printed(host, afterEnd), []);
  });
});
