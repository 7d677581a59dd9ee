// Step Back from the first line a task ever ran (its first step's, reached by stepping back
// from a later line of that step) has nowhere to go: nothing of the task ran before. The
// adapter refuses it (a failed response naming the task and its line), the stop shown stays,
// and a step forward from there still goes on as the live run did. Before, it answered
// success and stopped on the same line again: a success that did not move.
//
// Also: the Task scope names the tasks it refers to (its creator) whichever request came first.
//
// Program: fixtures/queue-workers.ts (five workers on one queue), a breakpoint on a worker's
// second line, hit in its first step.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { lineOf } from '../../source-line';
import type { DapClient } from './dap-client';
import {
  launchToStop,
  moveToStop,
  refusalOf,
  scopeOf,
  setBreakpoint,
  stackOf,
  startAdapter,
  stoppedBodyOf,
} from './adapter-harness';

const PROGRAM = join(__dirname, 'fixtures', 'queue-workers.ts');
const FIRST_LINE = lineOf(PROGRAM, 'if (n === 4) yield* sleep(0);');
const SECOND_LINE = lineOf(PROGRAM, 'const first = yield* q.get();');

describe('Step Back at the first line of a task is refused, and nothing moves', { timeout: 180_000 }, () => {
  let dap: DapClient;
  let threadId = 0;

  before(async () => {
    dap = await startAdapter();
    const stop = await launchToStop(
      dap,
      { type: 'coroscope', request: 'launch', name: 'queue-workers', program: PROGRAM },
      { configure: (d) => setBreakpoint(d, PROGRAM, { line: SECOND_LINE }).then(() => undefined) },
    );
    threadId = Number(stoppedBodyOf(stop).threadId);
  });

  after(async () => {
    await dap?.close();
  });

  it("the Task scope names the worker's creator before any Call Stack asked for the threads", async () => {
    const [top] = await stackOf(dap, threadId);
    const { variables } = await scopeOf(dap, top!.id, 'Task');
    assert.equal(variables.get('created by')?.value, 'main #1');
  });

  it('Step Back from the second line lands on the first, in the same step', async () => {
    const [top] = await stackOf(dap, threadId);
    assert.equal(top?.line, SECOND_LINE);
    const back = await moveToStop(dap, 'stepBack', { threadId });
    assert.equal(Number(stoppedBodyOf(back).threadId), threadId);
    const [first] = await stackOf(dap, threadId);
    assert.equal(first?.line, FIRST_LINE);
  });

  it('Step Back again is refused: a failed response naming the task and its first line', async () => {
    const from = dap.mark();
    const refused = await refusalOf(dap, 'stepBack', { threadId });
    const said = (refused.body as { error?: { format?: string } } | undefined)?.error?.format ?? refused.message ?? '';
    assert.ok(said.includes(`queue-workers.ts:${FIRST_LINE}`), said);
    assert.ok(said.includes('worker-1'), said);
    // The stop shown again is the same line (no move was made).
    const [top] = await stackOf(dap, threadId);
    assert.equal(top?.line, FIRST_LINE);
    const stops = dap.events.slice(from).filter((e) => e.event === 'stopped');
    assert.ok(stops.every((e) => Number(stoppedBodyOf(e).threadId) === threadId));
  });

  it('a step forward from there goes on to the second line, as the live run did', async () => {
    await moveToStop(dap, 'next', { threadId });
    const [top] = await stackOf(dap, threadId);
    assert.equal(top?.line, SECOND_LINE);
  });
});
