// A forward line step in the past stops, as the live step does, at a loop breakpoint's hit on its way (a
// breakpoint on a `yield` line set through the host protocol, checked by the loop: another task newly there in
// a tick before the step's landing). The live run is the oracle, in one run: from a line stop, Step Over until
// the loop's stop after that tick; then Reverse Continue to the first stop and the same steps in the past: the
// last one lands on that tick, on the ticker's thread, in the live stop's words. Runs against the bundle.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { HostEvents, PastLineLanding } from '../../../../protocol/host-protocol';
import { forkHost, landedOnLine, ROOT, type HostClient } from '../host-client';
import { lineOf } from '../../../source-line';
import { distBundle } from '../../../dist-bundles';

const BUNDLE = distBundle('runtime-host.js');
const PROGRAM = join(ROOT, 'test', 'extension', 'debug', 'fixtures', 'steps-as-live.ts');
const FIRST = lineOf(PROGRAM, 'let total = base;');
const YIELD = lineOf(PROGRAM, 'yield* sleep(0);', lineOf(PROGRAM, 'for (let i'));
const RETURN = lineOf(PROGRAM, 'return total;');
/** Logpoints on the way to the loop's stop: the worker's line, its helper's, the ticker's before its `yield*`. */
const LOGPOINTS = [
  { file: PROGRAM, line: lineOf(PROGRAM, 'total += 1;'), logMessage: 'worker at one: total={total}' },
  { file: PROGRAM, line: lineOf(PROGRAM, 'const doubled = n * 2;'), logMessage: 'helper of {n}' },
  { file: PROGRAM, line: lineOf(PROGRAM, 'beats += 1;'), logMessage: 'beat {beats}' },
];

/** Waits (2 s at most) until the host has printed `length` characters on stdout in all. */
async function printedAtLeast(host: HostClient, length: number): Promise<void> {
  for (let i = 0; i < 200 && host.output('stdout').length < length; i++) await new Promise((r) => setTimeout(r, 10));
}

/** A live line step over: the stop it comes to (a line's, or the loop's after a tick). */
async function liveOver(host: HostClient): Promise<HostEvents['paused']> {
  const from = host.events.length;
  await host.rpc.request('lineStep', { kind: 'over' });
  return host.waitFor('paused', () => true, 30_000, from);
}

describe('a past step stops at a loop breakpoint hit on its way, as live (bundle)', { timeout: 300_000 }, () => {
  let host: HostClient;
  before(() => {
    host = forkHost({ bundle: BUNDLE, pipe: true });
  });
  after(async () => {
    await host.close();
  });

  test("Step Over a call: the ticker newly at its loop's yield line meanwhile stops the step after that tick", async () => {
    await host.rpc.request('launch', {
      target: { kind: 'program', path: PROGRAM },
      options: { stopOnEntry: true, record: true },
    });
    // No yieldLines: a breakpoint on a `yield` line is the loop's (it stops after the tick a task arrives there).
    const set = await host.rpc.request('setBreakpoints', {
      file: PROGRAM,
      breakpoints: [{ file: PROGRAM, line: FIRST }, { file: PROGRAM, line: YIELD }, ...LOGPOINTS],
    });
    assert.ok(
      set.breakpoints.every((b) => b.verified),
      JSON.stringify(set),
    );
    const first = await host.continueToLineStop();
    assert.equal(first.line?.line, FIRST);
    const live: HostEvents['paused'][] = [];
    // What each step printed (the logpoints on its way), live and then in the past.
    const livePrinted: string[] = [];
    for (let i = 0; i < 5; i++) {
      const before = host.output('stdout').length;
      live.push(await liveOver(host));
      livePrinted.push(host.output('stdout').slice(before));
    }
    assert.match(livePrinted[4]!, /^helper of 8\n(beat \d+\n)+$/);
    const loopStop = live[4]!;
    assert.deepEqual(
      live.slice(0, 4).map((p) => [p.reason, p.line?.line, p.tick]),
      [1, 2, 3, 4].map((n) => ['step', FIRST + n, first.tick]),
    );
    assert.equal(loopStop.reason, 'breakpoint', JSON.stringify(loopStop));
    assert.equal(loopStop.line, undefined, 'the loop stops after the tick, on no line');
    assert.ok(loopStop.tick > first.tick);
    const ticker = loopStop.taskId;
    assert.notEqual(ticker, first.taskId);

    // The run goes on to a later line stop (the loop's breakpoint off meanwhile: the ticker arrives there every
    // tick), so the loop's stop is in the past; back to the first stop (its breakpoint's hit), the loop's
    // breakpoint set again, and the same steps in the past.
    const only = (lines: number[]) =>
      host.rpc.request('setBreakpoints', {
        file: PROGRAM,
        breakpoints: [...lines.map((line) => ({ file: PROGRAM, line })), ...LOGPOINTS],
      });
    await only([FIRST, RETURN]);
    const later = await host.continueToLineStop();
    // (The live step over the call, interrupted by the loop's stop, lands on its next line first.)
    assert.equal(later.taskId, first.taskId);
    assert.ok(later.tick > loopStop.tick);
    await only([FIRST]);
    const hit = landedOnLine(await host.rpc.request('pastBreakpointHit', { direction: 'back', tick: later.tick }));
    assert.deepEqual([hit.line?.line, hit.tick, hit.taskId], [FIRST, first.tick, first.taskId]);
    await only([FIRST, YIELD]);
    const past: PastLineLanding[] = [];
    const pastPrinted: string[] = [];
    for (let i = 0; i < 5; i++) {
      const before = host.output('stdout').length;
      const { landing } = await host.rpc.request('lineStep', { kind: 'over' });
      assert.ok(landing !== undefined);
      past.push(landing);
      // A step's output follows its answer: waited for up to as long as the live step's (then compared whole).
      await printedAtLeast(host, before + (livePrinted[i]?.length ?? 0));
      pastPrinted.push(host.output('stdout').slice(before));
      if (landing.landed !== 'line') break;
    }
    assert.deepEqual(pastPrinted, livePrinted, 'each past step prints what the live one did');
    assert.deepEqual(
      past.slice(0, 4).map((l) => (l.landed === 'line' ? l.line?.line : l.landed)),
      [FIRST + 1, FIRST + 2, FIRST + 3, FIRST + 4],
    );
    const last = past[4];
    assert.ok(last !== undefined && last.landed === 'tick', JSON.stringify(last));
    assert.deepEqual([last.tick, last.taskId], [loopStop.tick, ticker]);
    assert.equal(last.description, loopStop.description);
  });

  test('Continue from a past line prints the logpoints run before the loop stop, as the live Continue did', async () => {
    const launched = forkHost({ bundle: BUNDLE, pipe: true });
    try {
      await launched.rpc.request('launch', {
        target: { kind: 'program', path: PROGRAM },
        options: { stopOnEntry: true, record: true },
      });
      const only = (lines: number[], loop = false) =>
        launched.rpc.request('setBreakpoints', {
          file: PROGRAM,
          breakpoints: [
            ...lines.map((line) => ({ file: PROGRAM, line })),
            ...(loop ? [{ file: PROGRAM, line: YIELD }] : []),
            ...LOGPOINTS,
          ],
        });
      await only([FIRST], true);
      const first = await launched.continueToLineStop();
      assert.equal(first.line?.line, FIRST);
      // Live: Continue runs the worker's lines (its helper's) and the ticker's to its loop's yield line.
      let printed = launched.output('stdout').length;
      const from = launched.events.length;
      await launched.rpc.request('continue', {});
      const loopStop = await launched.waitFor('paused', () => true, 30_000, from);
      assert.deepEqual([loopStop.reason, loopStop.line], ['breakpoint', undefined], JSON.stringify(loopStop));
      const live = launched.output('stdout').slice(printed);
      assert.match(live, /^worker at one: total=5\nhelper of 8\n(beat \d+\n)+$/);
      // On to a later line stop; back to the first stop (its breakpoint's hit); Continue in the past.
      await only([FIRST, RETURN]);
      const later = await launched.continueToLineStop();
      assert.ok(later.tick > loopStop.tick);
      await only([FIRST]);
      const hit = landedOnLine(
        await launched.rpc.request('pastBreakpointHit', { direction: 'back', tick: later.tick }),
      );
      assert.deepEqual([hit.line?.line, hit.tick], [FIRST, first.tick]);
      await only([FIRST], true);
      printed = launched.output('stdout').length;
      const again = await launched.rpc.request('pastBreakpointHit', {
        direction: 'forward',
        tick: first.tick,
        ceiling: later.tick,
      });
      assert.ok(again.landed === 'tick', JSON.stringify(again));
      assert.deepEqual(
        [again.tick, again.taskId, again.description],
        [loopStop.tick, loopStop.taskId, loopStop.description],
      );
      assert.equal(launched.output('stdout').slice(printed), live);
    } finally {
      await launched.close();
    }
  });
});
