// A step over a `yield*` that suspends, given up because another task's breakpoint stopped the
// run first (as in js-debug, a breakpoint hit ends the step under way): nothing of that step may
// stop the program later. V8 keeps a generator stepped over at its `yield` and breaks when it
// resumes, however much later; that break stopped the run at the runtime's own `sleep` (reason
// 'pause', no breakpoint) when the cancel of a waitFor resumed it. A `debugger` statement of the
// program still stops it.
//
// Program: fixtures/step-given-up.ts, through the standalone adapter over stdio.

import assert from 'node:assert/strict';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { lineOf } from '../../source-line';
import type { DapClient, DapEvent } from './dap-client';
import { launchToStop, stackOf, startAdapter, stoppedBodyOf } from './adapter-harness';

const PROGRAM = join(__dirname, 'fixtures', 'step-given-up.ts');
const SLOW_SLEEP = lineOf(PROGRAM, 'yield* sleep(5);');
const TICKER_ROUND = lineOf(PROGRAM, 'const round = `round ${i}`;');
const DEBUGGER_LINE = lineOf(PROGRAM, 'debugger;');

/** Where a stop is: its reason and its top frame's file:line. */
async function placeOf(dap: DapClient, stop: DapEvent): Promise<string> {
  const body = stoppedBodyOf(stop);
  const [top] = await stackOf(dap, Number(body.threadId));
  return `${body.reason} ${basename(top?.source?.path ?? '?')}:${top?.line}`;
}

describe('a step given up at a breakpoint leaves nothing behind', { timeout: 180_000 }, () => {
  let dap: DapClient;
  let stop: DapEvent;

  before(async () => {
    dap = await startAdapter();
    stop = await launchToStop(
      dap,
      { type: 'coroscope', request: 'launch', name: 'step given up', program: PROGRAM },
      {
        configure: async (d) => {
          await d.request('setBreakpoints', {
            source: { path: PROGRAM },
            breakpoints: [{ line: SLOW_SLEEP }, { line: TICKER_ROUND }],
          });
        },
      },
    );
  });

  after(async () => {
    await dap?.close();
  });

  it("stops at the breakpoints, the step over slow's sleep given up at ticker's, and then only at theirs and the debugger statement", async () => {
    const name = basename(PROGRAM);
    const places: string[] = [await placeOf(dap, stop)];
    for (let i = 0; i < 10; i++) {
      const at = places.at(-1)!;
      const threadId = Number(stoppedBodyOf(stop).threadId);
      const command = at === `breakpoint ${name}:${SLOW_SLEEP}` ? 'next' : 'continue';
      const from = dap.mark();
      await dap.request(command, { threadId });
      const next = await dap
        .waitForEvent('stopped', { from, timeoutMs: 60_000, failOn: ['terminated'] })
        .catch(() => null);
      if (next === null || stoppedBodyOf(next).reason === 'end') {
        places.push(next === null ? 'no stop within 60 s' : 'end');
        break;
      }
      stop = next;
      places.push(await placeOf(dap, stop));
    }
    // ticker's first round, slow's sleep (stepped over: ticker's second round stops it first), ticker's
    // third round, then main's debugger statement, and Continue runs to the end; never a stop in the runtime's sleep.
    assert.deepEqual(places, [
      `breakpoint ${name}:${TICKER_ROUND}`,
      `breakpoint ${name}:${SLOW_SLEEP}`,
      `breakpoint ${name}:${TICKER_ROUND}`,
      `breakpoint ${name}:${TICKER_ROUND}`,
      `pause ${name}:${DEBUGGER_LINE}`,
      'end',
    ]);
  });
});

describe('a debugger statement of a plain JavaScript program (no source map) stops', { timeout: 120_000 }, () => {
  it('stops there, reason pause', async () => {
    const program = join(__dirname, 'fixtures', 'debugger-statement.js');
    const dap = await startAdapter();
    try {
      const stop = await launchToStop(dap, { type: 'coroscope', request: 'launch', name: 'js', program });
      assert.equal(stoppedBodyOf(stop).reason, 'pause');
    } finally {
      await dap.close();
    }
  });
});
