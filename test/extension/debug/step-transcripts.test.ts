// The golden step transcripts (step-transcripts.ts, issue 26) through the standalone debug
// adapter over stdio, as VS Code drives it: for each sample, a breakpoint on the first line of
// its own code stops there before the line runs (a `yield*` line included), then F11 (stepIn)
// once per entry; the positions visited are the transcript's, and the steps marked `~` (and only
// those) were reached across a suspension the Debug Console names ("... suspended on ...",
// then "... resumed at tick N, ...; meanwhile the loop ran ...").

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
 * The Debug Console's words for a step that crossed a suspension of its task: on what it suspended, then what
 * ran until it resumed.
 */
const SUSPENDED = /suspended on [^]*resumed at tick \d+, \d+ ticks? after it suspended; meanwhile the loop ran /;

/** The top frame as a transcript writes it: `function:line` in the sample's file, else `function@file.ts:line`. */
async function positionOf(dap: DapClient, threadId: number, sampleFile: string): Promise<string> {
  const top = (await stackOf(dap, threadId))[0];
  assert.ok(top !== undefined, `thread ${threadId} has frames`);
  const path = top.source?.path ?? '';
  return path === sampleFile ? `${top.name}:${top.line}` : `${top.name}@${path.split(/[\\/]/).pop() ?? ''}:${top.line}`;
}

describe('golden step transcripts: F11 from the first line of each sample', { timeout: 600_000 }, () => {
  before(async () => {});

  it('covers the 13 samples', async () => {
    const { SAMPLES } = await import('../../../runtime/samples/index');
    assert.deepEqual([...new Set(STEP_TRANSCRIPTS.map((t) => t.sample))].sort(), SAMPLES.map((s) => s.id).sort());
  });

  for (const t of STEP_TRANSCRIPTS) {
    it(`${t.sample} from "${t.start}": ${t.why}`, async () => {
      const file = join(SAMPLES_DIR, t.file);
      const line = lineOf(file, t.start);
      const dap = await startAdapter({ supportsVariableType: true });
      try {
        const stopped = await launchToStop(
          dap,
          { type: 'coroscope', request: 'launch', name: t.sample, sample: t.sample },
          {
            configure: async (d) => {
              const set = await setBreakpoint(d, file, { line });
              assert.deepEqual([set.verified, set.line], [true, line], set.message);
            },
            exceptionFilters: [],
          },
        );
        assert.equal(stopped.body.reason, 'breakpoint');
        let thread = Number(stopped.body.threadId);
        const visited = [await positionOf(dap, thread, file)];
        for (let i = 1; i < t.steps.length; i++) {
          const m = dap.mark();
          await dap.request('stepIn', { threadId: thread });
          const s = await dap.waitForEvent('stopped', { from: m, timeoutMs: 30_000 });
          assert.equal(s.body.reason, 'step', `step ${i}: ${visited.join(', ')}`);
          thread = Number(s.body.threadId);
          const said = dap.events
            .slice(m)
            .filter((e) => e.event === 'output')
            .map((e) => String(e.body.output))
            .join('');
          visited.push(`${SUSPENDED.test(said) ? '~' : ''}${await positionOf(dap, thread, file)}`);
        }
        assert.deepEqual(visited, t.steps);
      } finally {
        await dap.close();
      }
    });
  }
});
