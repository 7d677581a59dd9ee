// Thread labels that agree with the stops (issue 26, item 3), through the standalone debug
// adapter over stdio: at every kind of stop (between ticks, on a line live, on a past line,
// at the run's end, at a past tick), the stopped event stops every thread on a thread that is
// listed, VS Code's state beside each thread (worked out from the events and answers, as its
// debug model does) is paused, and the names say the moment: the loop "paused after tick N"
// between ticks, "stopped on a line in tick N" on a line (the same tick live and replayed),
// "finished" at the end; the task on a line "running: line L" (its top frame's line), under
// the same name live and in the past; no other task says it runs.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROJECT_ROOT } from './build-adapter';
import { ClientThreadStates } from './client-thread-states';
import type { DapClient, DapEvent } from './dap-client';
import { initialize, launchToStop, moveToStop, spawnAdapter, stackOf, threadsOf } from './adapter-harness';
import { LOOP_THREAD_ID } from '../../../extension/debug/dap-mapping';
import { lineOf } from '../../source-line';

const GENERATORS_TS = join(PROJECT_ROOT, 'runtime', 'samples', 'generators.ts');

type StopKind = 'betweenTicks' | 'line' | 'end';

describe('thread labels agree with the stops (generators sample)', { timeout: 180_000 }, () => {
  let dap: DapClient;
  let states: ClientThreadStates;
  before(async () => {
    dap = await spawnAdapter();
    states = new ClientThreadStates(dap);
    await initialize(dap);
  });
  after(async () => {
    await dap?.close();
  });

  /** Sends a move; its stop (a relabel of the loop's row does not count). */
  async function move(command: string, threadId: number): Promise<DapEvent> {
    return moveToStop(dap, command, { threadId });
  }

  /** Checks the stop, the threads listed and their names; returns the stopped thread's name. */
  async function check(
    kind: StopKind,
    stopped: DapEvent,
    lineTick?: number,
  ): Promise<{ name: string; tick: number | null }> {
    assert.equal(stopped.body.allThreadsStopped, true, `a stop stops every thread: ${JSON.stringify(stopped.body)}`);
    const threadId = Number(stopped.body.threadId);
    // Whatever came with the stop (the loop's relabel) has arrived before VS Code lists the threads.
    await new Promise((r) => setTimeout(r, 200));
    const threads = await threadsOf(dap);
    states.listed(threads);
    const said = threads.map((t) => `${t.id}: ${t.name} (${states.stateOf(t.id)})`).join(' | ');
    const stoppedThread = threads.find((t) => t.id === threadId);
    assert.ok(stoppedThread !== undefined, `the stop's thread ${threadId} is listed: ${said}`);
    for (const t of threads)
      assert.equal(states.stateOf(t.id), 'paused', `every thread is paused at a ${kind} stop: ${said}`);
    const loop = threads.find((t) => t.id === LOOP_THREAD_ID)!.name;
    let tick: number | null = null;
    if (kind === 'end') assert.equal(loop, 'event loop [finished]', said);
    else if (kind === 'betweenTicks') assert.match(loop, /^event loop \[paused after tick \d+\]$/, said);
    else {
      const m = /^event loop \[stopped on a line in tick (\d+)\]$/.exec(loop);
      assert.ok(m !== null, `the loop says it is on a line: ${said}`);
      tick = Number(m[1]);
      if (lineTick !== undefined) assert.equal(tick, lineTick, `the line's tick, live and replayed: ${said}`);
      const top = (await stackOf(dap, threadId))[0]!;
      assert.match(
        stoppedThread.name,
        new RegExp(`^\\S+ \\[running: line ${top.line}\\]$`),
        `the task on the line says it runs it: ${said}`,
      );
    }
    const running = threads.filter((t) => / \[running/.test(t.name) && (kind !== 'line' || t.id !== threadId));
    assert.deepEqual(
      running.map((t) => t.name),
      [],
      `no other task says it runs: ${said}`,
    );
    return { name: stoppedThread.name, tick };
  }

  it('between ticks, on a line live and replayed, at the end and at a past tick', async () => {
    const entry = await launchToStop(
      dap,
      { type: 'coroscope', request: 'launch', name: 'labels', sample: 'generators', stopOnEntry: true },
      { exceptionFilters: [] },
    );
    assert.equal(entry.body.reason, 'entry');
    await check('betweenTicks', entry);

    // A tick stepped on the loop's thread: between ticks again.
    await check('betweenTicks', await move('next', LOOP_THREAD_ID));

    // A breakpoint on a line of the sample's next part: the task runs that line.
    const line = lineOf(GENERATORS_TS, 'const d = delegating();');
    await dap.request('setBreakpoints', { source: { path: GENERATORS_TS }, breakpoints: [{ line }] });
    const hit = await move('continue', LOOP_THREAD_ID);
    assert.equal(hit.body.reason, 'breakpoint');
    const live = await check('line', hit);
    const taskId = Number(hit.body.threadId);
    const taskName = live.name.replace(/ \[.*$/, '');
    // The sample's task carries the name its text gives its coroutine (issue 26, item 5).
    assert.equal(taskName, 'generatorTour');
    const stepped = await move('next', taskId);
    await check('line', stepped, live.tick!);

    // Step Back: the line before, replayed; the same task, under the same name, in the same tick.
    const back = await move('stepBack', taskId);
    assert.equal(Number(back.body.threadId), taskId);
    const past = await check('line', back, live.tick!);
    assert.equal(past.name, `${taskName} [running: line ${line}]`);

    // Back to the live line, then on to the end.
    await check('line', await move('continue', taskId), live.tick!);
    await dap.request('setBreakpoints', { source: { path: GENERATORS_TS }, breakpoints: [] });
    const end = await move('continue', taskId);
    assert.equal(end.body.reason, 'end');
    assert.equal(Number(end.body.threadId), LOOP_THREAD_ID);
    await check('end', end);

    // A past tick of the finished run.
    await check('betweenTicks', await move('stepBack', LOOP_THREAD_ID));
  });
});

describe("the loop's frame names the tick shown, whether or not the threads were listed", { timeout: 120_000 }, () => {
  let dap: DapClient;
  before(async () => {
    dap = await spawnAdapter();
    await initialize(dap);
  });
  after(async () => {
    await dap?.close();
  });

  it('at the end, and at each past tick Step Back goes to (stackTrace asked first, as a client may)', async () => {
    const end = await launchToStop(
      dap,
      { type: 'coroscope', request: 'launch', name: 'ticks', sample: 'generators' },
      { exceptionFilters: [] },
    );
    assert.equal(end.body.reason, 'end');
    const ticks = Number(/Finished at tick (\d+)/.exec(String(end.body.description))?.[1]);
    assert.ok(ticks > 2, String(end.body.description));
    assert.equal((await stackOf(dap, LOOP_THREAD_ID))[0]?.name, 'event loop: the run has finished');
    for (const tick of [ticks - 1, ticks - 2]) {
      const back = await moveToStop(dap, 'stepBack', { threadId: LOOP_THREAD_ID });
      assert.equal(back.body.description, `At tick ${tick} of ${ticks} (replayed)`);
      // No threads request since the stop: the frame says the stop's tick, not an older table's.
      assert.equal((await stackOf(dap, LOOP_THREAD_ID))[0]?.name, `event loop: paused after tick ${tick}`);
    }
  });
});
