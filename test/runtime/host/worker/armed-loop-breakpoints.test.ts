// ArmedLoopBreakpoints (runtime/host/worker/armed-loop-breakpoints.ts): the loop's breakpoints as a
// search of the recorded past arms them: verified ones only, no logpoints, a file replaced
// whole, and hit conditions counting as the loop's do (from the run's start, or since the
// tick they were set in, the count starting again at 0).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Breakpoint, BreakpointStatus } from '../../../../protocol/host-protocol';
import { ArmedLoopBreakpoints } from '../../../../runtime/host/worker/armed-loop-breakpoints';

const FILE = '/src/crawler.ts';
const ok = (line: number): BreakpointStatus => ({ file: FILE, line, verified: true });

describe('ArmedLoopBreakpoints', () => {
  test('verified breakpoints are armed at suspension, with their conditions; logpoints and unverified ones are not', () => {
    const armed = new ArmedLoopBreakpoints();
    const bps: Breakpoint[] = [
      { file: FILE, line: 10, condition: 'n > 1', hitCondition: '%2' },
      { file: FILE, line: 11 },
      { file: FILE, line: 12, logMessage: 'at {n}' },
      { file: FILE, line: 13, condition: '  ' },
    ];
    armed.set(FILE, bps, [ok(10), { file: FILE, line: 11, verified: false }, ok(12), ok(13)], 'start');
    assert.deepEqual(armed.armed(), [
      { file: FILE, line: 10, atSuspension: true, condition: 'n > 1', hitCondition: '%2' },
      { file: FILE, line: 13, atSuspension: true },
    ]);
    // A file's breakpoints are replaced whole; none left, none armed.
    armed.set(FILE, [{ file: FILE, line: 20 }], [ok(20)], 'start');
    assert.deepEqual(armed.armed(), [{ file: FILE, line: 20, atSuspension: true }]);
    armed.set(FILE, [], [], 'start');
    assert.deepEqual(armed.armed(), []);
  });

  test('a hit condition set while the run went counts from that tick (told now or later); a new run counts from its start', async () => {
    const armed = new ArmedLoopBreakpoints();
    armed.set(FILE, [{ file: FILE, line: 10, hitCondition: '3' }], [ok(10)], { tick: 40 });
    assert.deepEqual(armed.armed(), [
      { file: FILE, line: 10, atSuspension: true, hitCondition: '3', hitsSince: { tick: 40, before: 0 } },
    ]);
    armed.newRun();
    assert.deepEqual(armed.armed(), [{ file: FILE, line: 10, atSuspension: true, hitCondition: '3' }]);
    const told = Promise.resolve(57);
    armed.set(FILE, [{ file: FILE, line: 10, hitCondition: '3' }], [ok(10)], { telling: told });
    await told;
    assert.deepEqual(armed.armed()[0]!.hitsSince, { tick: 57, before: 0 });
    // Without a hit condition the count does not matter.
    armed.set(FILE, [{ file: FILE, line: 10 }], [ok(10)], { tick: 40 });
    assert.equal(armed.armed()[0]!.hitsSince, undefined);
  });
});
