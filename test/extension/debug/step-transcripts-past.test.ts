// The golden step transcripts (step-transcripts.ts, issue 26) in the past: for a few samples, F11
// from the breakpoint's stop N times live (the transcript's first N + 1 positions), then Step
// Back N times to the breakpoint's line on the recording, then F11 N times again: the past's
// forward steps land on the same (function, line) positions as the live ones, in the same order
// (a step into a function the live stop's frames do not hold included, across a suspension too).
//
// Invariant: the live positions are checked against the transcript first, so the past is
// compared with the reader's steps, not only with whatever the live run did.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { STEP_TRANSCRIPTS } from './step-transcripts';
import { lineOf } from '../../source-line';
import { PROJECT_ROOT } from './build-adapter';
import type { DapClient } from './dap-client';
import { launchToStop, setBreakpoint, stackOf, startAdapter } from './adapter-harness';

const SAMPLES_DIR = join(PROJECT_ROOT, 'runtime', 'samples');

/**
 * The transcripts replayed in the past (by sample and start line) and how many of their steps: those of the
 * task's own coroutines.
 */
const PAST_CASES: readonly { sample: string; start: string; steps: number }[] = [
  { sample: 'exception-chain', start: 'const b = yield* passThroughB();', steps: 4 },
  { sample: 'generators', start: 'const chain = top(lines);', steps: 5 },
  { sample: 'json-fetch', start: 'const site = new URL(siteUrl);', steps: 4 },
  { sample: 'generators', start: "t.log('1. Values sent in", steps: 8 },
  { sample: 'gather-vs-ascompleted', start: 'const loop = getRunningLoop();', steps: 12 },
];

async function positionOf(dap: DapClient, threadId: number, sampleFile: string): Promise<string> {
  const top = (await stackOf(dap, threadId))[0];
  assert.ok(top !== undefined, `thread ${threadId} has frames`);
  const path = top.source?.path ?? '';
  return path === sampleFile ? `${top.name}:${top.line}` : `${top.name}@${path.split(/[\\/]/).pop() ?? ''}:${top.line}`;
}

/** One move (stepIn or stepBack) and the position it lands on. */
async function move(
  dap: DapClient,
  command: 'stepIn' | 'stepBack',
  thread: number,
  file: string,
): Promise<{ thread: number; at: string }> {
  const m = dap.mark();
  const r = await dap.requestRaw(command, { threadId: thread });
  assert.equal(r.success, true, `${command} refused: ${JSON.stringify(r.body)}`);
  const s = await dap.waitForEvent('stopped', { from: m, timeoutMs: 30_000 });
  const next = Number(s.body.threadId);
  return { thread: next, at: await positionOf(dap, next, file) };
}

describe('golden step transcripts in the past: Step Back N, then F11 N lands as live', { timeout: 600_000 }, () => {
  before(async () => {});

  for (const c of PAST_CASES) {
    const t = STEP_TRANSCRIPTS.find((x) => x.sample === c.sample && x.start === c.start);
    assert.ok(t !== undefined, c.start);
    it(`${t.sample} from "${t.start}", ${c.steps} steps`, async () => {
      const file = join(SAMPLES_DIR, t.file);
      const line = lineOf(file, t.start);
      const dap = await startAdapter();
      try {
        const stopped = await launchToStop(
          dap,
          { type: 'coroscope', request: 'launch', name: t.sample, sample: t.sample },
          { configure: (d) => setBreakpoint(d, file, { line }).then(() => undefined), exceptionFilters: [] },
        );
        let thread = Number(stopped.body.threadId);
        const live = [await positionOf(dap, thread, file)];
        for (let i = 0; i < c.steps; i++) {
          const r = await move(dap, 'stepIn', thread, file);
          thread = r.thread;
          live.push(r.at);
        }
        assert.deepEqual(
          live,
          t.steps.slice(0, c.steps + 1).map((s) => s.replace(/^~/, '')),
          'live F11 follows the transcript',
        );
        // Step Back (the reverse of a step over: lines of the same frame or a caller) until the breakpoint's
        // line again.
        const back: string[] = [];
        for (let i = 0; i < c.steps + 2 && back.at(-1) !== live[0]; i++) {
          const r = await move(dap, 'stepBack', thread, file);
          thread = r.thread;
          back.push(r.at);
        }
        assert.equal(back.at(-1), live[0], `Step Back comes to the breakpoint's line: ${back.join(', ')}`);
        const past = [back.at(-1)!];
        for (let i = 0; i < c.steps; i++) {
          const r = await move(dap, 'stepIn', thread, file);
          thread = r.thread;
          past.push(r.at);
        }
        assert.deepEqual(past, live, 'F11 in the past lands where it did live');
      } finally {
        await dap.close();
      }
    });
  }
});
