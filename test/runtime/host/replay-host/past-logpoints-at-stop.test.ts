// Logpoints listed at a live line stop (pastLogpointHits: the stop's recording, PastHitSearch.logHits
// with `until`): the list ends at the stop, not at the start of its tick. The same-tick-pair program's
// counter runs before the checker in each tick; stopped on the checker's line, the counter's line of the
// stop's own tick has run and the live logpoint printed it. The oracle is the live logpoint: the list at
// each stop equals what it printed so far (ticks, tasks, messages, order), and so does the list made beside
// a past line shown there; the hit of the stop's own tick is gone to. Runs against the bundle.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Breakpoint, LogpointHit } from '../../../../protocol/host-protocol';
import { forkHost, landedOnLine, ROOT, type HostClient } from '../host-client';
import { lineOf } from '../../../source-line';
import { distBundle } from '../../../dist-bundles';

const BUNDLE = distBundle('runtime-host.js');
const PROGRAM = join(ROOT, 'test', 'extension', 'debug', 'fixtures', 'same-tick-pair.ts');
const COUNTER = lineOf(PROGRAM, "seen.push(round * 10); // the counter's line");
const CHECKER = lineOf(PROGRAM, "total += seen.length; // the checker's line");
/** The live loop's tick and task at the hit, then the line's own value. */
const MESSAGE = '{globalThis.__coroscopeLine.where().tick}/{globalThis.__coroscopeLine.where().taskId}|round {round}';

function asLive(h: LogpointHit): string {
  return h.message;
}

/** The lines the live logpoint printed so far. */
function printedRounds(host: HostClient): string[] {
  return host
    .output('stdout')
    .split('\n')
    .filter((l) => /^\d+\/\d+\|round \d$/.test(l));
}

describe('Logpoints listed at a live line stop: its own tick up to the stop (bundle)', { timeout: 120_000 }, () => {
  let host: HostClient;
  before(() => {
    host = forkHost({ bundle: BUNDLE, pipe: true });
  });
  after(async () => {
    await host.close();
  });

  test("the counter's hit in the checker's stop tick is listed, as the live logpoint printed it", async () => {
    const logpoint: Breakpoint = { file: PROGRAM, line: COUNTER, logMessage: MESSAGE };
    await host.rpc.request('launch', {
      target: { kind: 'program', path: PROGRAM },
      options: { stopOnEntry: true, record: true },
    });
    await host.rpc.request('setBreakpoints', {
      file: PROGRAM,
      breakpoints: [logpoint, { file: PROGRAM, line: CHECKER }],
    });
    for (let round = 1; round <= 3; round++) {
      const stop = await host.continueToLineStop(30_000);
      assert.equal(stop.line?.line, CHECKER);
      const printed = printedRounds(host);
      assert.equal(printed.length, round, `round ${round}: the live logpoint printed ${printed.join(', ')}`);
      const { tick } = stop;
      // The counter ran in the stop's own tick: the last line printed is of that tick.
      assert.ok(printed.at(-1)!.startsWith(`${tick}/`), `${printed.at(-1)} in tick ${tick}`);
      const past = await host.rpc.request('pastLogpointHits', { logpoints: [logpoint] });
      assert.deepEqual(past.hits.map(asLive), printed, `round ${round}`);
      assert.equal(past.ticks, tick);
    }
    // A past line shown at the stop (a Step Back): listed beside it, the same list, up to the live stop.
    const printed = printedRounds(host);
    const back = host.events.length;
    await host.rpc.request('lineStepBack', {});
    assert.equal((await host.waitFor('paused', () => true, 30_000, back)).pastLine, true);
    const beside = await host.rpc.request('pastLogpointHits', { logpoints: [logpoint] });
    assert.deepEqual(beside.hits.map(asLive), printed);
    // The hit in the stop's own tick is gone to: the counter's line, round 3.
    const last = beside.hits.at(-1)!;
    const landing = landedOnLine(
      await host.rpc.request('pastBreakpointHit', {
        direction: 'back',
        tick: beside.ticks,
        logpointHit: { logpoint, tick: last.tick, ordinal: last.ordinal },
      }),
    );
    assert.deepEqual([landing.tick, landing.line?.line], [last.tick, COUNTER]);
    assert.equal((await host.rpc.request('lineEvaluate', { expression: 'round' })).value, '3');
    await host.rpc.request('setBreakpoints', { file: PROGRAM, breakpoints: [] });
    await host.rpc.request('continue', {});
    await host.waitFor('finished', () => true, 30_000);
  });
});
