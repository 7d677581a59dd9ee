// Tests of how logpoints in the past are armed and listed (runtime/host/shared/logpoint-hits.ts), the
// one mapping VS Code's list (the host's worker) and the CLI's `replay --log` share: a logpoint armed
// with only what it sets; a scan's hits listed in the scan's order, each with its logpoint's place, its
// ordinal among that logpoint's hits of its tick, its task's name (none: null) and its time (its own,
// else its tick's, else 0).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Breakpoint, ScanHit } from '../../../../protocol/host-protocol';
import { armedLogpoint, hitsNeedTickTimes, logpointHitsOf } from '../../../../runtime/host/shared/logpoint-hits';

test('a logpoint is armed with its place and what it sets, blank parts left out', () => {
  assert.deepEqual(armedLogpoint({ file: '/a.ts', line: 3, logMessage: '{x}' }), {
    file: '/a.ts',
    line: 3,
    logMessage: '{x}',
  });
  assert.deepEqual(
    armedLogpoint({ file: '/a.ts', line: 3, logMessage: 'x', condition: ' n > 1 ', hitCondition: '>2' }),
    { file: '/a.ts', line: 3, logMessage: 'x', condition: ' n > 1 ', hitCondition: '>2' },
  );
  assert.deepEqual(armedLogpoint({ file: '/a.ts', line: 3, logMessage: '', condition: '  ', hitCondition: '' }), {
    file: '/a.ts',
    line: 3,
  });
});

test('hits keep the scan order; ordinals count per logpoint and tick; names, times and messages filled', () => {
  const logpoints: Breakpoint[] = [
    { file: '/a.ts', line: 3, logMessage: '{x}' },
    { file: '/b.ts', line: 9, logMessage: 'b' },
  ];
  const scan: ScanHit[] = [
    { bp: 0, tick: 2, taskId: 5, count: 1, message: 'one', taskName: 'worker-1', time: 1.5 },
    { bp: 1, tick: 2, taskId: 5, count: 1, message: 'b', taskName: 'worker-1' },
    { bp: 0, tick: 2, taskId: 6, count: 2, message: 'two', taskName: '' },
    { bp: 0, tick: 4, taskId: null, count: 3 },
    { bp: 0, tick: 9, taskId: 7, count: 4, message: 'late' },
  ];
  assert.equal(hitsNeedTickTimes(scan), true);
  assert.equal(hitsNeedTickTimes([scan[0]!]), false);
  const hits = logpointHitsOf(scan, logpoints, [0, 3.25, 4, 8.5]);
  assert.deepEqual(
    hits.map((h) => [h.logpoint, h.file, h.line, h.tick, h.ordinal, h.taskId, h.task, h.time, h.message]),
    [
      [0, '/a.ts', 3, 2, 0, 5, 'worker-1', 1.5, 'one'],
      [1, '/b.ts', 9, 2, 0, 5, 'worker-1', 3.25, 'b'],
      [0, '/a.ts', 3, 2, 1, 6, null, 3.25, 'two'],
      [0, '/a.ts', 3, 4, 0, null, null, 8.5, ''],
      // A tick past the times known: 0, not undefined.
      [0, '/a.ts', 3, 9, 0, 7, null, 0, 'late'],
    ],
  );
});
