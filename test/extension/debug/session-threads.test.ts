// Tests of the session's threads room (extension/debug/session-threads.ts) at the protocol level,
// attached to a paused run of the fake host (fake-debug-host.ts): Terminate Thread (the host's
// cancelTask params, and what it refuses), a task's stack (its frames innermost first, its creator's
// link, stable frame ids and paging within a stop, one label frame when the stack cannot be read),
// exceptionInfo at exception and cancel stops, and the callback stage's thread of a URL-failed stop (by the
// stop's `url`, never its words). Answers are compared as DAP bodies.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import { CALLBACK_THREAD_ID, LOOP_THREAD_ID } from '../../../extension/debug/dap-mapping';
import type { HostEvents, TaskDetail, TaskSummary, Traceback } from '../../../protocol/host-protocol';
import { FakeRun, FakeRuns, snapshotAt } from './fake-debug-host';
import type { DapClient } from './dap-client';
import { attachedInProcess, refusalOf } from './adapter-harness';

const TIMEOUT = 5000;
const FILE = '/work/prog.ts';

function summary(id: number, name: string, createdBy: number | null, state: TaskSummary['state']): TaskSummary {
  return {
    id,
    name,
    state,
    steps: 1,
    busyMs: 0,
    sinceResumedMs: 0,
    createdBy,
    awaiting: null,
    awaitedBy: [],
    frames: [name],
  };
}

/** Task 3 `worker` (frames main-loop > fetch, at lines 10 and 20) was created by task 1 `main` at line 5. */
function detailOf(taskId: number): TaskDetail {
  if (taskId === 1)
    return {
      task: summary(1, 'main', null, 'suspended'),
      frames: [{ index: 0, name: 'main', position: { file: FILE, line: 6, column: 3 }, generated: null, locals: [] }],
      awaitChain: [],
      createdAt: null,
      traceback: null,
    };
  if (taskId === 3)
    return {
      task: summary(3, 'worker', 1, 'suspended'),
      frames: [
        { index: 0, name: 'mainLoop', position: { file: FILE, line: 10, column: 5 }, generated: null, locals: [] },
        { index: 1, name: 'fetch', position: { file: FILE, line: 20, column: 7 }, generated: null, locals: [] },
      ],
      awaitChain: [],
      createdAt: { file: FILE, line: 5, column: 3 },
      traceback: null,
    };
  throw new Error(`task #${taskId} is not in this run`);
}

async function attachedAt(
  pause: HostEvents['paused'],
  serveMore: (run: FakeRun) => void = () => undefined,
): Promise<{ run: FakeRun; dap: DapClient }> {
  const run = new FakeRun('paused');
  run.lastPause = pause;
  const s = snapshotAt(pause.tick, true);
  const tasks = [summary(1, 'main', null, 'suspended'), summary(3, 'worker', 1, 'suspended')];
  run.endpoint.serve('snapshot', () => ({ ...s, tasks, counts: { ...s.counts, suspended: 2 } }));
  run.endpoint.serve('taskDetail', (p) => detailOf(p.taskId));
  run.endpoint.serve('cancelTask', (p) => ({ cancelled: p.taskId !== 1 }));
  serveMore(run);
  const dap = await attachedInProcess(
    new CoroscopeSession<FakeRun>({ hostScript: '/nonexistent/runtime-host.js', runs: new FakeRuns(run) }),
    { run: run.key },
    { timeoutMs: TIMEOUT },
  );
  await dap.waitForEvent('stopped', { from: 0, timeoutMs: TIMEOUT });
  return { run, dap };
}

const PAUSE: HostEvents['paused'] = { reason: 'pause', tick: 4, description: 'Paused after tick 4' };

type StackBody = DebugProtocol.StackTraceResponse['body'];

describe('session threads', () => {
  it('Terminate Thread cancels each task for the debugger; refuses the loop, no thread and a finished task', async () => {
    const { run, dap } = await attachedAt(PAUSE);
    try {
      await dap.request('terminateThreads', { threadIds: [3] });
      const cancels = (): unknown[] =>
        run.endpoint.requests.filter((r) => r.method === 'cancelTask').map((r) => r.params);
      assert.deepEqual(cancels(), [{ taskId: 3, by: 'debugger' }]);

      const loop = await refusalOf(dap, 'terminateThreads', { threadIds: [LOOP_THREAD_ID] });
      assert.equal(
        loop.message,
        'Terminate Thread: the event loop and its callbacks are not tasks; only a task can be cancelled',
      );
      assert.equal(
        (await refusalOf(dap, 'terminateThreads', { threadIds: [] })).message,
        'Terminate Thread: no thread given',
      );
      assert.deepEqual(cancels(), [{ taskId: 3, by: 'debugger' }], 'neither refusal asked the host');

      const finished = await refusalOf(dap, 'terminateThreads', { threadIds: [1, 3] });
      assert.equal(finished.message, 'Terminate Thread: task #1 had already finished; nothing to cancel');
      assert.deepEqual(cancels().slice(1), [
        { taskId: 1, by: 'debugger' },
        { taskId: 3, by: 'debugger' },
      ]);
    } finally {
      await dap.close();
    }
  });

  it("a task's stack: innermost first, then its creator; ids stable within the stop, pages by startFrame", async () => {
    const { run, dap } = await attachedAt(PAUSE);
    try {
      const whole = await dap.request<StackBody>('stackTrace', { threadId: 3 });
      const frames = whole.stackFrames.filter((f) => f.presentationHint !== 'label');
      assert.deepEqual(
        frames.slice(0, 2).map((f) => [f.name, f.line, f.column, f.source?.path]),
        [
          ['fetch', 20, 7],
          ['mainLoop', 10, 5],
        ].map(([n, l, c]) => [n, l, c, FILE]),
      );
      assert.ok(
        whole.stackFrames.some((f) => f.line === 5 && f.source?.path === FILE),
        'the creation site (line 5) is in the stack',
      );
      assert.equal(whole.totalFrames, whole.stackFrames.length);
      // The creator's detail is asked without locals.
      assert.ok(
        run.endpoint.requests.some(
          (r) => r.method === 'taskDetail' && JSON.stringify(r.params) === JSON.stringify({ taskId: 1, locals: false }),
        ),
      );

      const again = await dap.request<StackBody>('stackTrace', { threadId: 3 });
      assert.deepEqual(
        again.stackFrames.map((f) => f.id),
        whole.stackFrames.map((f) => f.id),
      );
      const page = await dap.request<StackBody>('stackTrace', { threadId: 3, startFrame: 1, levels: 1 });
      assert.deepEqual(page.stackFrames, whole.stackFrames.slice(1, 2));
      assert.equal(page.totalFrames, whole.totalFrames);
      const asked = run.endpoint.requests.filter(
        (r) => r.method === 'taskDetail' && (r.params as { taskId: number }).taskId === 3,
      );
      assert.equal(asked.length, 1, 'the stack is built once per thread and stop');
    } finally {
      await dap.close();
    }
  });

  it('a stack the host cannot give is one label frame saying why', async () => {
    const { dap } = await attachedAt(PAUSE);
    try {
      const body = await dap.request<StackBody>('stackTrace', { threadId: 9 });
      assert.equal(body.totalFrames, 1);
      assert.equal(body.stackFrames.length, 1);
      const [frame] = body.stackFrames;
      assert.equal(frame?.presentationHint, 'label');
      assert.equal(frame?.name, 'no stack: task #9 is not in this run');
    } finally {
      await dap.close();
    }
  });

  it("a URL-failed stop shows the callback stage's thread of its url; a task failure that mentions a fetch, none", async () => {
    const URL = 'http://127.0.0.1:9/a';
    const ripped: Traceback = {
      title: `Failed URL ${URL}`,
      error: 'Error: refused',
      frames: [{ name: 'onReadable', position: { file: FILE, line: 40, column: 3 }, kind: 'callback' }],
      text: 'Traceback (most recent call last):\nError: refused',
    };
    /** The session attached at `pause`: its thread ids and names, and the URLs it asked the callback stage of. */
    const threadsAt = async (
      pause: HostEvents['paused'],
    ): Promise<{ threads: Array<[number, string]>; asked: string[] }> => {
      const asked: string[] = [];
      const { dap } = await attachedAt(pause, (run) =>
        run.endpoint.serve('traces', (p) => {
          asked.push(String(p.url));
          return { url: String(p.url), coroutine: { ...ripped, frames: [] }, callback: ripped };
        }),
      );
      try {
        const { threads } = await dap.request<DebugProtocol.ThreadsResponse['body']>('threads');
        return { threads: threads.filter((t) => t.id >= LOOP_THREAD_ID).map((t) => [t.id, t.name]), asked };
      } finally {
        await dap.close();
      }
    };
    const urlFailed = await threadsAt({
      reason: 'exception',
      tick: 4,
      taskId: 3,
      url: URL,
      description: `Task #3 "worker" failed to fetch ${URL}: Error: refused`,
    });
    assert.deepEqual(urlFailed.asked, [URL]);
    assert.deepEqual(urlFailed.threads.slice(1), [[CALLBACK_THREAD_ID, `callback stage: ${URL} [ripped stack]`]]);
    // A task of the program failed; its error's words look like the crawler's, but no URL failed.
    const taskFailed = await threadsAt({
      reason: 'exception',
      tick: 4,
      taskId: 3,
      description: `Task #3 "worker" failed: Error: failed to fetch ${URL}: refused`,
    });
    assert.deepEqual(taskFailed, { threads: [urlFailed.threads[0]!], asked: [] });
  });

  it('exceptionInfo: an exception stop named from its description, a cancel stop as CancelledError', async () => {
    const failed = await attachedAt({
      reason: 'exception',
      tick: 4,
      taskId: 3,
      description: 'Task #3 "worker" failed: ValueError: bad page',
    });
    try {
      const info = await failed.dap.request<DebugProtocol.ExceptionInfoResponse['body']>('exceptionInfo', {
        threadId: 3,
      });
      assert.deepEqual(
        { exceptionId: info?.exceptionId, breakMode: info?.breakMode },
        { exceptionId: 'ValueError', breakMode: 'always' },
      );
      const none = await refusalOf(failed.dap, 'exceptionInfo', { threadId: 1 });
      assert.equal(none.message, 'no exception on this thread');
    } finally {
      await failed.dap.close();
    }
    const cancelled = await attachedAt({
      reason: 'cancelled',
      tick: 4,
      taskId: 3,
      description: 'Task #3 "worker" was cancelled',
    });
    try {
      const info = await cancelled.dap.request<DebugProtocol.ExceptionInfoResponse['body']>('exceptionInfo', {
        threadId: 3,
      });
      assert.deepEqual(info, {
        exceptionId: 'CancelledError',
        description: 'Task #3 "worker" was cancelled',
        breakMode: 'always',
      });
    } finally {
      await cancelled.dap.close();
    }
  });
});
