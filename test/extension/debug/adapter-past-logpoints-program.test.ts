// Logpoints in the past of a user's program (issue 28, item 1), through the standalone adapter: a
// logpoint set at a live line stop lists every execution of its line before that stop, the same
// messages in the same order a live run printed with the logpoint set from its start. A fresh
// replay host has not loaded the program (each replay loads it anew): the list said "ran 0 times"
// before it replayed once to find the line's code. From a line of the live stop's past (a Step Back), the
// same list: the ticks before the stop's, replayed beside the replay that shows the line.
//
// Program: fixtures/queue-workers.ts (five workers, two jobs each).

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { lineOf } from '../../source-line';
import {
  launchToStop,
  listLogpointHits,
  moveToStop,
  stackOf,
  startAdapter,
  startDebugging,
  stopPlace,
} from './adapter-harness';

const PROGRAM = join(__dirname, 'fixtures', 'queue-workers.ts');
const LABEL = lineOf(PROGRAM, 'const label = `worker-${n}: job ${first}`;');
const LAST = lineOf(PROGRAM, 'return done;');
const LAUNCH = { type: 'coroscope', request: 'launch', name: 'queue-workers', program: PROGRAM };
const LOGPOINT: DebugProtocol.SourceBreakpoint = { line: LABEL, logMessage: 'worker {n} took {first}' };

/** A live run with the logpoint set from its start: the lines it printed in the Debug Console, in order. */
async function printedLive(): Promise<string[]> {
  const live = await startAdapter();
  try {
    const from = await startDebugging(live, 'launch', LAUNCH, {
      configure: async (d) => {
        await d.request('setBreakpoints', { source: { path: PROGRAM }, breakpoints: [LOGPOINT] });
      },
    });
    // A recorded run stops at its end.
    const end = await live.waitForEvent('stopped', { from, timeoutMs: 60_000, failOn: ['terminated'] });
    assert.equal(end.body.reason, 'end');
    return live.events
      .slice(from)
      .filter((e) => e.event === 'output' && /^worker \d+ took \d+\n$/.test(String(e.body.output)))
      .map((e) => String(e.body.output).trim());
  } finally {
    await live.close();
  }
}

describe("a logpoint in a user program's past lists what a live logpoint printed", { timeout: 180_000 }, () => {
  it('the same messages, in the same order', async () => {
    const printed = await printedLive();
    assert.equal(printed.length, 5, printed.join('\n'));

    // Past: stopped on main's last line, the same logpoint set there lists its hits before the stop.
    const dap = await startAdapter();
    await launchToStop(dap, LAUNCH, {
      configure: async (d) => {
        await d.request('setBreakpoints', { source: { path: PROGRAM }, breakpoints: [{ line: LAST }] });
      },
    });
    const hits = await listLogpointHits(dap, PROGRAM, [{ line: LAST }, LOGPOINT]);
    await dap.close();
    assert.deepEqual(
      hits.map((h) => h.message),
      printed,
    );
    assert.deepEqual(
      hits.map((h) => h.task),
      ['worker-1', 'worker-2', 'worker-3', 'worker-5', 'worker-4'],
    );
  });

  it("from a line of the live stop's past (a Step Back): the same, the line still shown", async () => {
    const printed = await printedLive();
    const dap = await startAdapter();
    try {
      const stop = await launchToStop(dap, LAUNCH, {
        configure: async (d) => {
          await d.request('setBreakpoints', { source: { path: PROGRAM }, breakpoints: [{ line: LAST }] });
        },
      });
      const back = await moveToStop(dap, 'stepBack', { threadId: Number(stop.body.threadId) });
      const shown = await stopPlace(dap, back);
      assert.ok(shown.top.line < LAST, `stepped back to line ${shown.top.line}`);
      // Listed by a replay of its own: the replay showing the line is not moved.
      const hits = await listLogpointHits(dap, PROGRAM, [{ line: LAST }, LOGPOINT]);
      assert.deepEqual(
        hits.map((h) => h.message),
        printed,
      );
      const frames = await stackOf(dap, Number(back.body.threadId));
      assert.equal(frames[0]!.line, shown.top.line);
    } finally {
      await dap.close();
    }
  });
});
