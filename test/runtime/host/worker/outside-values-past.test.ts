// What a program read outside the loop (outside-values.ts), at a line stop and in its past: the dice-rolls
// program (test/extension/debug/fixtures) rolls with Math.random() and stamps the roll with the clocks, then
// stops on a line of the same tick. Its Step Back is replayed in the line replay host from a copy of the
// recording through the start of that tick: the reads its program made in the tick before the stop travel with
// the copy, so the line before shows the roll and stamp the live line showed; a debugger's own evaluation there
// (Math.random() in the Debug Console) reads live and changes nothing. Runs against the bundle.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { HostEvents } from '../../../../protocol/host-protocol';
import { forkHost, ROOT, type HostClient } from '../host-client';
import { lineOf } from '../../../source-line';
import { distBundle } from '../../../dist-bundles';

const BUNDLE = distBundle('runtime-host.js');
const PROGRAM = join(ROOT, 'test', 'extension', 'debug', 'fixtures', 'dice-rolls.ts');
const STOP = lineOf(PROGRAM, 'if (roll >= 4) {');

/** The top frame's locals (every scope but the globals), by name. */
async function topLocals(host: HostClient): Promise<Record<string, string>> {
  const stack = await host.rpc.request('lineStack', {});
  const out: Record<string, string> = {};
  for (const scope of stack.frames[0]!.scopes) {
    if (/global/i.test(scope.name)) continue;
    const { variables } = await host.rpc.request('lineVariables', { handle: scope.handle });
    for (const v of variables) out[v.name] ??= v.value;
  }
  return out;
}

async function moved(host: HostClient, ask: () => Promise<unknown>): Promise<HostEvents['paused']> {
  const from = host.events.length;
  await ask();
  return host.waitFor('paused', () => true, 30_000, from);
}

describe('random numbers and clocks at a line stop and in its past (bundle)', { timeout: 120_000 }, () => {
  let host: HostClient;
  before(() => {
    host = forkHost({ bundle: BUNDLE, pipe: true });
  });
  after(async () => {
    await host.close();
  });

  test("the line before a stop, replayed, shows the roll and stamp the live run read in the stop's tick", async () => {
    await host.rpc.request('launch', {
      target: { kind: 'program', path: PROGRAM },
      options: { stopOnEntry: true, record: true },
    });
    await host.rpc.request('setBreakpoints', { file: PROGRAM, breakpoints: [{ file: PROGRAM, line: STOP }] });
    // The third stop: rolls made in earlier ticks too.
    for (let i = 0; i < 3; i++) {
      const stop = await host.continueToLineStop(30_000);
      assert.equal(stop.line?.line, STOP);
    }
    await host.rpc.request('setBreakpoints', { file: PROGRAM, breakpoints: [] });
    const live = await topLocals(host);
    assert.match(live.roll ?? '', /^[1-6]$/);
    assert.match(live.stamp ?? '', /^"\d+ [\d.]+ \d{4}-/);
    // The debugger reads a random number of its own there: not one the program would read next.
    const own = await host.rpc.request('lineEvaluate', { expression: 'Math.random() + Date.now()' });
    assert.match(own.value, /^\d/);

    const back = await moved(host, () => host.rpc.request('lineStepBack', {}));
    assert.equal(back.pastLine, true);
    assert.equal(back.line?.line, STOP - 1);
    const past = await topLocals(host);
    // Before `score += roll`: the roll and its stamp as read live, the score without it.
    assert.equal(past.roll, live.roll);
    assert.equal(past.stamp, live.stamp);
    assert.equal(Number(past.score) + Number(live.roll), Number(live.score));
    // Read there too, in the past: the replay's reads stay the program's.
    assert.match((await host.rpc.request('lineEvaluate', { expression: 'Math.random() + Date.now()' })).value, /^\d/);
    const onStop = await moved(host, () => host.rpc.request('lineStep', { kind: 'over' }));
    assert.equal(onStop.line?.line, STOP);
    assert.deepEqual(await topLocals(host), live);

    // The run goes on to its end as recorded, and its past replays whole.
    const from = host.events.length;
    await host.rpc.request('continue', {});
    const finished = await host.waitFor('finished', () => true, 30_000, from);
    assert.equal(finished.ok, true, finished.summary);
    await host.rpc.request('seekTick', { tick: 3 });
  });
});
