// Line steps in the exception-chain sample through the standalone debug adapter (issue 26): a
// breakpoint on a `yield*` line stops before the line runs; next from a `throw` and step out of
// a frame the exception leaves land on the handler's first line, up the `yield*` chain
// (A throws -> B, which has no try, is crossed -> C's catch), across a suspension of the task.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { lineOf } from '../../source-line';
import { PROJECT_ROOT } from './build-adapter';
import type { DapClient } from './dap-client';
import { continueThroughEnd, launchToStop, stackOf, startAdapter } from './adapter-harness';

const FILE = join(PROJECT_ROOT, 'runtime', 'samples', 'exception-chain.ts');
const C_YIELD = lineOf(FILE, 'const b = yield* passThroughB();');
const B_YIELD = lineOf(FILE, 'const a = yield* raiseInA();');
const A_SLEEP = lineOf(FILE, 'yield* sleep(0.01);');
const A_THROW = lineOf(FILE, "throw new Error('Something went wrong in A');");
const C_CATCH = lineOf(FILE, 'const e = error as Error;');

/** Launches the sample with one breakpoint and waits for its stop there; the adapter is closed by `run`. */
async function stoppedAt(line: number, run: (dap: DapClient, threadId: number) => Promise<void>): Promise<void> {
  const dap = await startAdapter({ supportsVariableType: true });
  try {
    const stopped = await launchToStop(
      dap,
      { type: 'coroscope', request: 'launch', name: 'exception-chain', sample: 'exception-chain' },
      {
        configure: async (d) => {
          const set = await d.request<DebugProtocol.SetBreakpointsResponse['body']>('setBreakpoints', {
            source: { path: FILE },
            breakpoints: [{ line }],
          });
          assert.deepEqual(
            [set.breakpoints[0]!.verified, set.breakpoints[0]!.line],
            [true, line],
            set.breakpoints[0]!.message,
          );
        },
        exceptionFilters: [],
      },
    );
    assert.equal(stopped.body.reason, 'breakpoint');
    await run(dap, Number(stopped.body.threadId));
    await dap.request('setBreakpoints', { source: { path: FILE }, breakpoints: [] });
    await continueThroughEnd(dap, 0);
  } finally {
    await dap.close();
  }
}

/** One step; the new top frames and what the Debug Console said meanwhile. */
async function step(
  dap: DapClient,
  command: 'next' | 'stepIn' | 'stepOut',
  threadId: number,
): Promise<{ threadId: number; frames: DebugProtocol.StackFrame[]; said: string }> {
  const from = dap.mark();
  await dap.request(command, { threadId });
  const stopped = await dap.waitForEvent('stopped', { from, timeoutMs: 30_000 });
  assert.equal(stopped.body.reason, 'step');
  const t = Number(stopped.body.threadId);
  const said = dap.events
    .slice(from)
    .filter((e) => e.event === 'output')
    .map((e) => String(e.body.output))
    .join('');
  return { threadId: t, frames: await stackOf(dap, t), said };
}

const at = (frames: readonly DebugProtocol.StackFrame[], n: number): string[] =>
  frames.slice(0, n).map((f) => `${f.name}:${f.line}`);

describe('exception-chain: stepping follows the yield* chain and the error up it', { timeout: 120_000 }, () => {
  before(async () => {});

  it("a breakpoint on C's yield* line stops before the line runs: C on top, b not yet assigned, nothing suspended", async () => {
    await stoppedAt(C_YIELD, async (dap, threadId) => {
      const frames = await stackOf(dap, threadId);
      assert.deepEqual([frames[0]!.name, frames[0]!.line, frames[0]!.source?.path], ['C', C_YIELD, FILE]);
      assert.ok(!frames.some((f) => f.name === 'B' || f.name === 'A'), frames.map((f) => f.name).join(' < '));
      // `b` is not assigned yet: the line has not run.
      const b = await dap.request<DebugProtocol.EvaluateResponse['body']>('evaluate', {
        expression: 'typeof b',
        frameId: frames[0]!.id,
        context: 'repl',
      });
      assert.equal(b.result, '"undefined"');
      assert.doesNotMatch(dap.outputText(), /suspended/);
    });
  });

  it("next from A's throw: C's catch, its first line (B crossed), then the line after it", async () => {
    await stoppedAt(A_THROW, async (dap, threadId) => {
      assert.deepEqual(at(await stackOf(dap, threadId), 3), [`A:${A_THROW}`, `B:${B_YIELD}`, `C:${C_YIELD}`]);
      const inCatch = await step(dap, 'next', threadId);
      assert.deepEqual(at(inCatch.frames, 1), [`C:${C_CATCH}`]);
      const error = await dap.request<DebugProtocol.EvaluateResponse['body']>('evaluate', {
        expression: 'error.message',
        frameId: inCatch.frames[0]!.id,
        context: 'repl',
      });
      assert.equal(error.result, '"Something went wrong in A"');
      const after = await step(dap, 'next', inCatch.threadId);
      assert.deepEqual(at(after.frames, 1), [`C:${C_CATCH + 1}`]);
    });
  });

  it("step in from A's throw: C's catch too", async () => {
    await stoppedAt(A_THROW, async (dap, threadId) => {
      assert.deepEqual(at((await step(dap, 'stepIn', threadId)).frames, 1), [`C:${C_CATCH}`]);
    });
  });

  it("step out of A at its sleep: across the suspension (said), to C's catch, where the error A then threw went", async () => {
    await stoppedAt(A_SLEEP, async (dap, threadId) => {
      const out = await step(dap, 'stepOut', threadId);
      assert.equal(out.threadId, threadId);
      assert.deepEqual(at(out.frames, 1), [`C:${C_CATCH}`]);
      assert.match(out.said, /suspended on sleep/);
    });
  });

  it("next over B's yield*: across the suspension in A (said, and what ran meanwhile), to C's catch", async () => {
    await stoppedAt(B_YIELD, async (dap, threadId) => {
      const over = await step(dap, 'next', threadId);
      assert.deepEqual(at(over.frames, 1), [`C:${C_CATCH}`]);
      assert.match(
        over.said,
        /C suspended on sleep[^]*C resumed at tick \d+, \d+ ticks? after it suspended; meanwhile the loop ran no other task\n/,
      );
    });
  });
});
