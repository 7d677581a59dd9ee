// A logpoint set at a line stop lists its past hits (pastLogpointHits) in the stop's line replay host; on a
// loaded machine that replay host starts seconds late (here: slow-replay-host-start.cjs), so the list is
// still under way while the user steps on and then Reverse Continues. Seen in CI: the list and Reverse
// Continue's search replayed in that one replay host at once, and Reverse Continue was never answered;
// or the replay host, opened for the stop the list was asked at, served the later stop as if it were that
// one (Reverse Continue refused: "seekTick: run 1 has ticks 1..4 recorded before the tick stopped in, not
// 6"). Reverse Continue lands on the breakpoint's hit before the stop shown, and the list is answered.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { lineOf } from '../../source-line';
import { launchToStop, moveToStop, startAdapter, stopPlace } from './adapter-harness';
import type { DapClient, DapEvent } from './dap-client';

const FIXTURE = join(__dirname, 'fixtures', 'steps-as-live.ts');
const BEAT = lineOf(FIXTURE, 'beats += 1;');
const TICKER_SLEEP = lineOf(FIXTURE, 'yield* sleep(0);', lineOf(FIXTURE, 'for (let i'));
const SLOW_REPLAY_HOST_START = join(__dirname, 'slow-replay-host-start.cjs');
/** Well within the harness's minute, well above what the moves take once the replay host has started. */
const MOVE_MS = 30_000;

const threadOf = (stop: DapEvent) => ({ threadId: Number(stop.body.threadId) });

describe('a logpoint listed at a line stop while its replay host starts late', { timeout: 120_000 }, () => {
  let dap: DapClient | null = null;
  after(async () => {
    await dap?.close();
  });

  it('Reverse Continue after steps meanwhile lands on the hit before; the list is answered', async () => {
    dap = await startAdapter({}, { ...process.env, NODE_OPTIONS: `--require ${SLOW_REPLAY_HOST_START}` });
    const run = dap;
    let stop = await launchToStop(
      run,
      { type: 'coroscope', request: 'launch', name: 'late replay host', program: FIXTURE },
      {
        configure: async () =>
          void (await run.request('setBreakpoints', { source: { path: FIXTURE }, breakpoints: [{ line: BEAT }] })),
        exceptionFilters: [],
      },
    );
    // At once, before the stop's past is warmed up: the logpoint's past hits are listed in its replay host.
    await run.request('setBreakpoints', {
      source: { path: FIXTURE },
      breakpoints: [{ line: BEAT }, { line: TICKER_SLEEP, logMessage: 'beat {beats}', hitCondition: '%2' }],
    });
    // Steps on (live: no replay host needed) into later ticks, while the list waits for its replay host.
    const beats: number[] = [];
    for (let i = 0; i < 4; i++) {
      stop = await moveToStop(run, 'next', threadOf(stop));
      const live = await stopPlace(run, stop);
      if (live.top.line === BEAT) beats.push(live.tick);
    }
    stop = await moveToStop(run, 'reverseContinue', threadOf(stop), { timeoutMs: MOVE_MS });
    const hit = await stopPlace(run, stop);
    // The breakpoint's last hit: where the last live step stopped on its line.
    assert.deepEqual(
      { reason: hit.reason, line: hit.top.line, tick: hit.tick },
      { reason: 'breakpoint', line: BEAT, tick: beats.at(-1) },
      JSON.stringify({ hit, beats }),
    );
    await run.waitForEvent('output', {
      timeoutMs: MOVE_MS,
      predicate: (body) =>
        /logpoint at steps-as-live\.ts:\d+ ran \d+ times? in the recorded run/.test(String(body.output)),
    });
    await run.close();
    dap = null;
  });
});
