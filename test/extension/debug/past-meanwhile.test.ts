// A step across a suspension says the same in the past as live (issue 26): F11 from a sample's
// breakpoint N times live, Step Back to the breakpoint's line on the recording, then F11 N times
// again. The Debug Console lines each step prints about its task's suspension ("... suspended on
// ...") and its resume ("... resumed at tick N, ...; meanwhile the loop ran ...") are the same,
// step by step, in the past as live: the replay runs the same ticks and the same tasks.
//
// Invariant: the live steps are checked to have crossed a suspension first, so the comparison
// is never one of two empty lists.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { lineOf } from '../../source-line';
import { PROJECT_ROOT } from './build-adapter';
import type { DapClient } from './dap-client';
import { launchToStop, setBreakpoint, stackOf, startAdapter } from './adapter-harness';

const SAMPLES_DIR = join(PROJECT_ROOT, 'runtime', 'samples');
/** The console's words about a task's suspension and its resume (a step's landing across one). */
const SUSPENSION_WORDS = / suspended on |resumed at tick \d+, .*meanwhile the loop ran /;

const CASES: readonly { sample: string; file: string; start: string; steps: number }[] = [
  {
    sample: 'gather-vs-ascompleted',
    file: 'gather-vs-ascompleted.ts',
    start: 'const loop = getRunningLoop();',
    steps: 12,
  },
  { sample: 'exception-chain', file: 'exception-chain.ts', start: 'const b = yield* passThroughB();', steps: 4 },
];

/** One move; the thread it lands on, its top line, and the suspension words the console printed meanwhile. */
async function move(
  dap: DapClient,
  command: 'stepIn' | 'stepBack',
  thread: number,
): Promise<{ thread: number; at: string; said: string[] }> {
  const m = dap.mark();
  const r = await dap.requestRaw(command, { threadId: thread });
  assert.equal(r.success, true, `${command} refused: ${JSON.stringify(r.body)}`);
  const s = await dap.waitForEvent('stopped', { from: m, timeoutMs: 30_000 });
  const next = Number(s.body.threadId);
  const top = (await stackOf(dap, next))[0];
  const said = dap.events
    .slice(m)
    .filter((e) => e.event === 'output')
    .flatMap((e) => String(e.body.output).split('\n'))
    .filter((l) => SUSPENSION_WORDS.test(l));
  return { thread: next, at: `${top?.name}:${top?.line}`, said };
}

describe('a step across a suspension says the same in the past as live', { timeout: 300_000 }, () => {
  before(async () => {});

  for (const c of CASES) {
    it(`${c.sample}: ${c.steps} F11 from "${c.start}"`, async () => {
      const file = join(SAMPLES_DIR, c.file);
      const line = lineOf(file, c.start);
      const dap = await startAdapter();
      try {
        const stopped = await launchToStop(
          dap,
          { type: 'coroscope', request: 'launch', name: c.sample, sample: c.sample },
          { configure: (d) => setBreakpoint(d, file, { line }).then(() => undefined), exceptionFilters: [] },
        );
        let thread = Number(stopped.body.threadId);
        const first = (await stackOf(dap, thread))[0];
        const startAt = `${first?.name}:${first?.line}`;
        const live: string[][] = [];
        for (let i = 0; i < c.steps; i++) {
          const r = await move(dap, 'stepIn', thread);
          thread = r.thread;
          live.push(r.said);
        }
        assert.ok(
          live.some((said) => said.some((l) => l.includes('meanwhile the loop ran'))),
          `live, a step crossed a suspension: ${JSON.stringify(live)}`,
        );
        let at = '';
        for (let i = 0; i < c.steps + 2 && at !== startAt; i++) {
          const r = await move(dap, 'stepBack', thread);
          thread = r.thread;
          at = r.at;
        }
        assert.equal(at, startAt, "Step Back comes to the breakpoint's line");
        const past: string[][] = [];
        for (let i = 0; i < c.steps; i++) {
          const r = await move(dap, 'stepIn', thread);
          thread = r.thread;
          past.push(r.said);
        }
        assert.deepEqual(past, live, 'the past F11 steps print what the live ones printed');
      } finally {
        await dap.close();
      }
    });
  }
});
