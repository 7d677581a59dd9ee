// Unit tests of extension/debug/dap-mapping.ts: host TaskSummary → DAP thread names and
// thread lists (100+ tasks), TaskDetail → stack frames (innermost first, await label,
// creation chain, breakpoint focus, tracebacks for finished tasks and callbacks), the Task
// scope and exceptionInfo.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FrameInfo, TaskDetail, TaskSummary, Traceback } from '../../../protocol/host-protocol';
import {
  LOOP_THREAD_ID,
  describeAwait,
  exceptionInfoOf,
  loopStackDrafts,
  splitError,
  taskScopeVariables,
  taskStackDrafts,
  threadName,
  threadsOf,
  tracebackDrafts,
} from '../../../extension/debug/dap-mapping';

const CRAWLER = '/project/runtime/crawler/crawler.ts';
const STREAMS = '/project/runtime/streams.ts';

function summary(over: Partial<TaskSummary> & { id: number; name: string }): TaskSummary {
  return {
    state: 'suspended',
    steps: 3,
    busyMs: 1.5,
    sinceResumedMs: 20,
    createdBy: null,
    awaiting: null,
    awaitedBy: [],
    frames: [],
    ...over,
  };
}

function frame(
  index: number,
  name: string,
  file: string | null,
  line: number,
  locals: FrameInfo['locals'] = [],
): FrameInfo {
  return { index, name, position: file === null ? null : { file, line, column: 5 }, generated: null, locals };
}

function detail(task: TaskSummary, frames: FrameInfo[], over: Partial<TaskDetail> = {}): TaskDetail {
  return { task, frames, awaitChain: [], createdAt: null, traceback: null, ...over };
}

const TRACEBACK: Traceback = {
  title: 'Failed URL http://127.0.0.1:8000/broken/',
  error: 'UnknownCharsetError: unknown charset "x-coroscope-unknown"',
  frames: [
    {
      name: 'onReadable',
      position: { file: '/project/runtime/crawler/callback-fetcher.ts', line: 40, column: 3 },
      kind: 'callback',
    },
    { name: 'runOnce', position: { file: '/project/runtime/loop.ts', line: 200, column: 7 }, kind: 'loop' },
    {
      name: 'decodeBody',
      position: { file: '/project/runtime/crawler/links.ts', line: 173, column: 9 },
      kind: 'callback',
    },
  ],
  text: 'Traceback (most recent call last):\n  File "callback-fetcher.ts", line 40, in onReadable\nUnknownCharsetError: unknown charset "x-coroscope-unknown"',
};

describe('thread names', () => {
  it('say the state and what a suspended task awaits', () => {
    assert.equal(
      threadName(summary({ id: 4, name: 'worker-3', awaiting: { kind: 'socket.read', detail: '127.0.0.1:80' } })),
      'worker-3 [suspended: socket.read]',
    );
    assert.equal(threadName(summary({ id: 1, name: 'crawl', state: 'scheduled' })), 'crawl [scheduled]');
    assert.equal(threadName(summary({ id: 1, name: 'crawl', state: 'running' })), 'crawl [running]');
    assert.equal(threadName(summary({ id: 1, name: 'x', state: 'suspended' })), 'x [suspended]');
    assert.equal(threadName(summary({ id: 1, name: 'x', state: 'done', outcome: 'result 3' })), 'x [done]');
  });

  it("carry a failed task's error, cut to one short line", () => {
    const name = threadName(
      summary({ id: 9, name: 'robots', state: 'failed', outcome: `TimeoutError: ${'slow '.repeat(30)}` }),
    );
    assert.equal(name, 'robots [failed: TimeoutError: slow slow slow slow slow slow slow …]');
    assert.ok(name.length < 80, name);
    assert.equal(threadName(summary({ id: 9, name: 'w', state: 'cancelled', outcome: 'cancelled' })), 'w [cancelled]');
    assert.equal(
      threadName(summary({ id: 9, name: 'w', state: 'cancelled', outcome: 'cancelled (stopped by the client)' })),
      'w [cancelled: stopped by the client]',
    );
  });
});

describe('thread lists', () => {
  it('list the loop first, then the live tasks by id; finished ones only when asked for', () => {
    const tasks = [
      summary({ id: 3, name: 'b' }),
      summary({ id: 1, name: 'a' }),
      summary({ id: 2, name: 'gone', state: 'failed', outcome: 'E: x' }),
    ];
    const loop = { tick: 7, paused: true, running: true };
    assert.deepEqual(
      threadsOf(tasks, loop).map((t) => t.id),
      [LOOP_THREAD_ID, 1, 3],
    );
    assert.deepEqual(
      threadsOf(tasks, loop, new Set([2])).map((t) => t.id),
      [LOOP_THREAD_ID, 1, 2, 3],
    );
    assert.equal(threadsOf(tasks, loop)[0]!.name, 'event loop [paused after tick 7]');
    assert.equal(threadsOf(tasks, { tick: 9, paused: false, running: true })[0]!.name, 'event loop [running, tick 9]');
    assert.equal(threadsOf(tasks, { tick: 9, paused: false, running: false })[0]!.name, 'event loop [finished]');
    // On a line the loop is within its tick, not after it (protocol/run-moment.ts), as the panel says it.
    assert.equal(
      threadsOf(tasks, { tick: 4, paused: true, onLine: true, running: true })[0]!.name,
      'event loop [stopped on a line in tick 4]',
    );
  });

  it('at a line stop, name its task as running that line, whatever its row says, listed even without a row', () => {
    // The row of another moment (the tick boundary before): suspended on the read it has resumed from.
    const tasks = [
      summary({ id: 9, name: 'worker-9', awaiting: { kind: 'socket.read', detail: '' } }),
      summary({ id: 4, name: 'worker-4', awaiting: { kind: 'queue.get', detail: '' } }),
    ];
    const loop = { tick: 14, paused: true, onLine: true, running: true };
    assert.deepEqual(
      threadsOf(tasks, loop, new Set(), { taskId: 9, line: 228 }).map((t) => t.name),
      ['event loop [stopped on a line in tick 14]', 'worker-4 [suspended: queue.get]', 'worker-9 [running: line 228]'],
    );
    // A past line whose table has no row for its task: listed in id order, under the name given (else its id).
    assert.deepEqual(
      threadsOf(tasks, loop, new Set(), { taskId: 7, line: 30, name: 'catchInC' }).map((t) => `${t.id} ${t.name}`),
      [
        `${LOOP_THREAD_ID} event loop [stopped on a line in tick 14]`,
        '4 worker-4 [suspended: queue.get]',
        '7 catchInC [running: line 30]',
        '9 worker-9 [suspended: socket.read]',
      ],
    );
    assert.equal(threadsOf([], loop, new Set(), { taskId: 3, line: 5 })[1]!.name, 'task #3 [running: line 5]');
  });

  it('stay one thread per task with 150 workers (ids unique, all present)', () => {
    const tasks = [summary({ id: 1, name: 'crawl', awaiting: { kind: 'queue.join', detail: '' } })];
    for (let i = 1; i <= 150; i++)
      tasks.push(
        summary({
          id: i + 1,
          name: `worker-${i}`,
          awaiting: { kind: 'queue.get', detail: '<Queue>', resourceId: 'queue:1' },
        }),
      );
    const threads = threadsOf(tasks.reverse(), { tick: 1, paused: true, running: true });
    assert.equal(threads.length, 152);
    assert.equal(new Set(threads.map((t) => t.id)).size, 152);
    assert.equal(threads[1]!.name, 'crawl [suspended: queue.join]');
    assert.equal(threads[151]!.name, 'worker-150 [suspended: queue.get]');
    assert.ok(
      threads.every((t, i) => i < 2 || t.id > threads[i - 1]!.id),
      'sorted by id',
    );
  });
});

describe('stack frames of a task', () => {
  const worker = summary({
    id: 2,
    name: 'worker-1',
    createdBy: 1,
    awaiting: { kind: 'socket.read', detail: '<Socket fd=3>' },
    frames: ['work', 'fetch', 'readuntil'],
  });
  const frames = [frame(0, 'work', CRAWLER, 145), frame(1, 'fetch', CRAWLER, 171), frame(2, 'readuntil', STREAMS, 286)];

  it('are the chain innermost first, under a label for what it awaits', () => {
    const drafts = taskStackDrafts(detail(worker, frames));
    assert.deepEqual(
      drafts.map((d) => d.frame.name),
      ['awaiting socket.read <Socket fd=3>', 'readuntil', 'fetch', 'work'],
    );
    assert.equal(drafts[0]!.frame.presentationHint, 'label');
    assert.equal(drafts[0]!.frame.source, undefined);
    assert.deepEqual(drafts[2]!.frame.source, { name: 'crawler.ts', path: CRAWLER });
    assert.equal(drafts[2]!.frame.line, 171);
    assert.equal(drafts[2]!.frame.column, 5);
    assert.deepEqual(drafts[2]!.ref, { kind: 'coroutine', taskId: 2, frameIndex: 1 });
    assert.deepEqual(drafts[0]!.ref, { kind: 'await', taskId: 2 });
  });

  it('end with the creation chain: "created by crawl #1" and the creator\'s frame where it created the task', () => {
    const creatorFrames = [frame(0, 'crawl', CRAWLER, 129), frame(1, 'join', '/project/runtime/queue.ts', 152)];
    const drafts = taskStackDrafts(detail(worker, frames, { createdAt: { file: CRAWLER, line: 127, column: 68 } }), {
      creation: [
        {
          childId: 2,
          creatorId: 1,
          creatorName: 'crawl',
          createdAt: { file: CRAWLER, line: 127, column: 68 },
          creatorFrames,
        },
        {
          childId: 1,
          creatorId: null,
          creatorName: null,
          createdAt: { file: '/project/runtime/host/run.ts', line: 180, column: 3 },
          creatorFrames: [],
        },
      ],
    });
    const names = drafts.map((d) => d.frame.name);
    assert.deepEqual(names.slice(4), ['created by crawl #1', 'crawl', 'created by outside any task', '<top level>']);
    const crawl = drafts[5]!.frame;
    assert.equal(crawl.line, 127);
    assert.equal(crawl.source?.path, CRAWLER);
    assert.equal(crawl.presentationHint, 'subtle');
    assert.deepEqual(drafts[5]!.ref, { kind: 'creation', taskId: 2, creatorId: 1 });
  });

  it("deemphasize the frames beneath a breakpoint's frame, so the editor shows the breakpoint line", () => {
    const drafts = taskStackDrafts(detail(worker, frames), { focus: { file: CRAWLER, line: 171 } });
    assert.equal(drafts[1]!.frame.source?.presentationHint, 'deemphasize');
    assert.equal(drafts[2]!.frame.source?.presentationHint, undefined);
    assert.equal(drafts[3]!.frame.source?.presentationHint, undefined);
    const unfocused = taskStackDrafts(detail(worker, frames), { focus: { file: CRAWLER, line: 999 } });
    assert.ok(unfocused.every((d) => d.frame.source?.presentationHint === undefined));
  });

  it("put a caught error's traceback first at its stop, then the chain as it is now", () => {
    const drafts = taskStackDrafts(detail(worker, frames), { raised: TRACEBACK });
    assert.deepEqual(
      drafts.map((d) => d.frame.name),
      [
        `raised: ${TRACEBACK.error}`,
        'decodeBody',
        'runOnce',
        'onReadable',
        'caught; the task went on, and now:',
        'awaiting socket.read <Socket fd=3>',
        'readuntil',
        'fetch',
        'work',
      ],
    );
    assert.equal(drafts[1]!.frame.source?.path, '/project/runtime/crawler/links.ts');
    assert.equal(drafts[1]!.frame.line, 173);
  });

  it('leave frames in node internals without a source a client would fail to open', () => {
    const tb: Traceback = {
      ...TRACEBACK,
      frames: [
        {
          name: 'processTicksAndRejections',
          position: { file: 'node:internal/process/task_queues', line: 95, column: 5 },
          kind: 'native',
        },
      ],
    };
    const [draft] = tracebackDrafts(tb, null);
    assert.equal(draft!.frame.source, undefined);
    assert.equal(draft!.frame.presentationHint, 'subtle');
  });

  it("show a finished task's traceback, innermost first, the loop's machinery subtle", () => {
    const failed = summary({ id: 5, name: 'w', state: 'failed', outcome: TRACEBACK.error });
    const drafts = taskStackDrafts(detail(failed, []), { traceback: TRACEBACK });
    assert.deepEqual(
      drafts.map((d) => d.frame.name),
      [`failed: ${TRACEBACK.error}`, 'decodeBody', 'runOnce', 'onReadable'],
    );
    assert.equal(drafts[2]!.frame.presentationHint, 'subtle');
    assert.equal(drafts[2]!.frame.source?.presentationHint, 'deemphasize');
    assert.equal(drafts[1]!.frame.presentationHint, 'normal');
    assert.deepEqual(drafts[1]!.ref, { kind: 'trace', taskId: 5, index: 2 });
  });

  it('say why there are no frames when there is no traceback either', () => {
    const done = taskStackDrafts(detail(summary({ id: 5, name: 'w', state: 'done', outcome: 'result 42' }), []));
    assert.deepEqual(
      done.map((d) => d.frame.name),
      ['done: result 42'],
    );
    const untracked = taskStackDrafts(detail(summary({ id: 6, name: 'w', state: 'suspended' }), []));
    assert.equal(untracked[0]!.frame.name, 'suspended: no frames (inspection is off, or the task has not started)');
  });
});

describe('the loop thread and callback-stage tracebacks', () => {
  it('shows the ripped stack of a failure outside any task as it is', () => {
    const drafts = loopStackDrafts({ tick: 3, paused: true, running: true }, TRACEBACK);
    assert.equal(drafts[0]!.frame.presentationHint, 'label');
    assert.equal(drafts[0]!.frame.name, `raised in a callback: ${TRACEBACK.error}`);
    assert.deepEqual(
      drafts.slice(1).map((d) => d.frame.name),
      ['decodeBody', 'runOnce', 'onReadable'],
    );
    assert.deepEqual(tracebackDrafts(TRACEBACK, null)[0]!.ref, { kind: 'trace', taskId: null, index: 2 });
  });

  it('shows a label with the tick otherwise', () => {
    assert.deepEqual(
      loopStackDrafts({ tick: 3, paused: true, running: true }, null).map((d) => d.frame.name),
      ['event loop: paused after tick 3'],
    );
  });
});

describe('the Task scope', () => {
  it('lists state, awaiting, awaited by, steps, created by (with task names)', () => {
    const t = summary({
      id: 2,
      name: 'worker-1',
      createdBy: 1,
      steps: 12,
      awaitedBy: [7],
      awaiting: { kind: 'task', detail: '', taskId: 3 },
      frames: ['work', 'fetch'],
    });
    const names = new Map([
      [1, 'crawl'],
      [3, 'robots'],
      [7, 'gather'],
    ]);
    const vars = taskScopeVariables(
      t,
      detail(t, [], { createdAt: { file: CRAWLER, line: 127, column: 1 }, awaitChain: [3, 7] }),
      (id) => names.get(id),
    );
    const byName = new Map(vars.map((v) => [v.name, v.value]));
    assert.equal(byName.get('state'), 'suspended');
    assert.equal(byName.get('awaiting'), 'task robots #3');
    assert.equal(byName.get('awaited by'), 'gather #7');
    assert.equal(byName.get('steps'), '12');
    assert.equal(byName.get('created by'), 'crawl #1');
    assert.equal(byName.get('created at'), 'crawler.ts:127');
    assert.equal(byName.get('coroutine chain'), 'work → fetch');
    assert.equal(byName.get('await chain'), 'robots #3, gather #7');
    assert.ok(vars.every((v) => v.variablesReference === 0));
  });

  it('says "nothing" and "nobody" for a free task', () => {
    const vars = taskScopeVariables(summary({ id: 1, name: 'main' }), null);
    const byName = new Map(vars.map((v) => [v.name, v.value]));
    assert.equal(byName.get('awaiting'), 'nothing');
    assert.equal(byName.get('awaited by'), 'nobody');
    assert.equal(byName.get('created by'), 'outside any task');
    assert.equal(byName.has('created at'), false);
  });

  it("says a past task's busy time is not recorded, never a number the run did not hold", () => {
    const past = new Map(
      taskScopeVariables(summary({ id: 1, name: 'main', busyMs: null }), null).map((v) => [v.name, v.value]),
    );
    assert.equal(past.get('busy'), 'not recorded');
    const live = new Map(taskScopeVariables(summary({ id: 1, name: 'main' }), null).map((v) => [v.name, v.value]));
    assert.equal(live.get('busy'), '1.5 ms');
  });
});

describe('awaits and exceptions', () => {
  it('describes an await with its detail and the task behind it', () => {
    assert.equal(describeAwait({ kind: 'queue.get', detail: '<Queue maxsize=0>' }), 'queue.get <Queue maxsize=0>');
    assert.equal(
      describeAwait({ kind: 'gather', detail: '2 children', taskId: 4 }, () => 'child'),
      'gather 2 children → child #4',
    );
    assert.equal(describeAwait({ kind: 'task', detail: 'Task #4 "x"', taskId: 4 }), 'task Task #4 "x"');
  });

  it('splits "Name: message"', () => {
    assert.deepEqual(splitError('UnknownCharsetError: unknown charset "x"'), {
      name: 'UnknownCharsetError',
      message: 'unknown charset "x"',
    });
    assert.deepEqual(splitError('CancelledError'), { name: 'CancelledError', message: '' });
    assert.deepEqual(splitError('exception 42 (a number)'), { name: 'Error', message: 'exception 42 (a number)' });
  });

  it('puts the coroutine traceback text into exceptionInfo', () => {
    const info = exceptionInfoOf(TRACEBACK, 'always');
    assert.equal(info.exceptionId, 'UnknownCharsetError');
    assert.equal(info.breakMode, 'always');
    assert.equal(
      info.description,
      'UnknownCharsetError: unknown charset "x-coroscope-unknown" (Failed URL http://127.0.0.1:8000/broken/)',
    );
    assert.deepEqual(info.details, {
      message: 'unknown charset "x-coroscope-unknown"',
      typeName: 'UnknownCharsetError',
      fullTypeName: 'UnknownCharsetError',
      stackTrace: TRACEBACK.text,
    });
  });
});
