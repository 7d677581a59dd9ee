// Tests of runtime/host/main-thread/past-moment.ts over a real loop (VirtualClock) held between
// ticks as a replay pauses one: a task looked up by id (live; finished by then: taskFinished;
// never: unknownTask, both ProtocolErrors naming the tick and run), snapshots always full with the
// finished tasks' summaries and the crawl's progress, a finished task's detail from its summary,
// a live one's with its await chain and creation site, the lints reported by the tick, and
// every query only reading the loop (no tick runs, no task moves).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lint, SourcePosition, TaskSummary } from '../../../../protocol/host-protocol';
import { ProtocolError } from '../../../../protocol/rpc';
import { VirtualClock } from '../../../../runtime/clock';
import { coroutine } from '../../../../runtime/coroutine';
import { Crawler } from '../../../../runtime/crawler/crawler';
import { TaskHistory } from '../../../../runtime/inspect/history';
import { TaskRecorder } from '../../../../runtime/inspect/task-recorder';
import { EventLoop } from '../../../../runtime/loop';
import type { Coroutine, Task } from '../../../../runtime/task';
import { CreationSites } from '../../../../runtime/host/main-thread/creation-sites';
import { PastMoment } from '../../../../runtime/host/main-thread/past-moment';

const RUN_ID = 3;

/** A task that finished before the moment (kept only as its summary, as the run's history keeps it). */
const FINISHED: TaskSummary = {
  id: 90,
  name: 'fetch(/gone)',
  state: 'done',
  steps: 4,
  busyMs: null,
  sinceResumedMs: null,
  createdBy: null,
  awaiting: null,
  awaitedBy: [],
  frames: [],
  outcome: 'returned 200',
};

const LINTS: Lint[] = [
  { kind: 'slowCallback', message: 'early', tick: 1 },
  { kind: 'neverYields', message: 'at the moment', tick: 4 },
  { kind: 'lostWakeup', message: 'later', tick: 9 },
];

/** Where the program created a task, as the replay's CreationSites would say it (this file's are host files). */
const WAITER_SITE = { file: '/program/crawl.ts', line: 12, column: 3 };

/** Creation sites that name WAITER_SITE for the task named "waiter" and none for the others. */
class StubSites extends CreationSites {
  override siteOf(task: Task<unknown>): SourcePosition | null {
    return task.name === 'waiter' ? WAITER_SITE : null;
  }
}

interface Moment {
  moment: PastMoment;
  loop: EventLoop;
  sleeper: Task<void>;
  waiter: Task<void>;
}

/** A loop run 4 ticks (a waiter awaiting a sleeper), held there; the moment of it, closed after the test. */
async function momentAfterTick4(t: { after(fn: () => Promise<void>): void }, crawler: Crawler | null): Promise<Moment> {
  const loop = new EventLoop({ clock: new VirtualClock() });
  const sites = new StubSites();
  const recorder = TaskRecorder.attach(loop);
  // It waits on a future nobody settles: the virtual clock, which jumps to the next timer when idle, cannot end it.
  const never = loop.createFuture<void>();
  const sleeper = loop.createTask(
    coroutine(function* sleeper(): Coroutine<void> {
      yield* never;
    })(),
    { name: 'sleeper' },
  );
  const waiter = loop.createTask(
    coroutine(function* waiter(): Coroutine<void> {
      yield* sleeper;
    })(),
    { name: 'waiter' },
  );
  for (let i = 0; i < 4; i++) await loop.runOnce();
  assert.equal(loop.tickCount(), 4);
  t.after(async () => {
    sleeper.cancel();
    for (let i = 0; i < 4; i++) await loop.runOnce();
    loop.close();
  });
  const finished = new TaskHistory<TaskSummary>();
  finished.add(FINISHED);
  const moment = new PastMoment(
    RUN_ID,
    4,
    loop,
    () => crawler,
    recorder,
    finished,
    () => LINTS,
    loop.time(),
    sites,
  );
  return { moment, loop, sleeper, waiter };
}

/** A ProtocolError thrown by `fn`, as data. */
function refusal(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ProtocolError, `a ProtocolError, not ${String(e)}`);
    return { code: e.code, message: e.message };
  }
  assert.fail('it did not throw');
}

describe('PastMoment tasks', () => {
  test('liveTask: a live task by its id; a finished or unknown one is refused with its own code', async (t) => {
    const { moment, sleeper, waiter } = await momentAfterTick4(t, null);
    assert.equal(moment.liveTask(waiter.id, 'taskDetail'), waiter);
    assert.deepEqual(
      moment
        .liveTasks()
        .map((task) => task.id)
        .sort(),
      [sleeper.id, waiter.id].sort(),
    );
    assert.deepEqual(
      [refusal(() => moment.liveTask(90, 'cancelTask')), refusal(() => moment.liveTask(77, 'cancelTask'))],
      [
        { code: 'taskFinished', message: 'cancelTask: at tick 4 task #90 had finished (done)' },
        { code: 'unknownTask', message: `cancelTask: no task #77 at tick 4 of run ${RUN_ID}` },
      ],
    );
  });

  test("a finished task's detail is its summary alone; an unknown one is refused", async (t) => {
    const { moment } = await momentAfterTick4(t, null);
    assert.deepEqual(moment.taskDetail(90, true), {
      task: FINISHED,
      frames: [],
      awaitChain: [],
      createdAt: null,
      traceback: null,
    });
    assert.deepEqual(
      refusal(() => moment.taskDetail(77, false)),
      {
        code: 'unknownTask',
        message: `taskDetail: no task #77 at tick 4 of run ${RUN_ID}`,
      },
    );
  });

  test("a live task's detail: its summary, what it awaits, and where the program created it", async (t) => {
    const { moment, sleeper, waiter } = await momentAfterTick4(t, null);
    const detail = moment.taskDetail(waiter.id, false);
    assert.deepEqual(
      [detail.task.id, detail.task.name, detail.task.state, detail.task.awaiting?.taskId, detail.awaitChain],
      [waiter.id, 'waiter', 'suspended', sleeper.id, [sleeper.id]],
    );
    assert.deepEqual(detail.createdAt, WAITER_SITE);
    assert.equal(moment.taskDetail(sleeper.id, false).createdAt, null);
  });
});

describe('PastMoment snapshot, lints and graph', () => {
  test('every snapshot is full: the live tasks, then the finished ones, at the moment’s tick, paused', async (t) => {
    const { moment, sleeper, waiter } = await momentAfterTick4(t, null);
    const first = moment.snapshot();
    const again = moment.snapshot();
    for (const snap of [first, again]) {
      assert.deepEqual([snap.full, snap.tick, snap.paused, snap.progress, snap.removed], [true, 4, true, null, []]);
      assert.deepEqual(
        snap.tasks.map((s) => `${s.id} ${s.name} ${s.state}`),
        [`${sleeper.id} sleeper suspended`, `${waiter.id} waiter suspended`, '90 fetch(/gone) done'],
      );
    }
    assert.deepEqual(first.counts, { scheduled: 0, running: 0, suspended: 2, done: 1, cancelled: 0, failed: 0 });
  });

  test("a crawl's moment carries its progress", async (t) => {
    const crawler = new Crawler(['http://demo.test/']);
    const { moment } = await momentAfterTick4(t, crawler);
    assert.equal(moment.crawler, crawler);
    assert.deepEqual(moment.snapshot().progress, {
      done: 0,
      queued: 1,
      inFlight: 0,
      errors: 0,
      seen: 1,
      excluded: 0,
      seconds: 0,
      rate: 0,
      errorsByKind: {},
    });
  });

  test('the lints are those reported by the moment’s tick, in order', async (t) => {
    const { moment } = await momentAfterTick4(t, null);
    assert.deepEqual(
      moment.lints().map((l) => l.message),
      ['early', 'at the moment'],
    );
  });

  test('the await graph links the waiter to the task it awaits', async (t) => {
    const { moment, sleeper, waiter } = await momentAfterTick4(t, null);
    const graph = moment.graph();
    assert.deepEqual(
      graph.edges.filter((e) => e.from === `task:${waiter.id}`),
      [{ from: `task:${waiter.id}`, to: `task:${sleeper.id}`, kind: 'awaits' }],
    );
    assert.deepEqual(
      graph.nodes.filter((n) => n.kind === 'task').map((n) => `${n.id} ${n.label} ${n.state}`),
      [`task:${sleeper.id} #${sleeper.id} sleeper suspended`, `task:${waiter.id} #${waiter.id} waiter suspended`],
    );
  });

  test('no query runs a tick or moves a task', async (t) => {
    const { moment, loop, sleeper, waiter } = await momentAfterTick4(t, new Crawler(['http://demo.test/']));
    const before = [loop.tickCount(), loop.time(), sleeper.done(), waiter.done(), waiter.awaiting()];
    moment.snapshot();
    moment.taskDetail(waiter.id, true);
    moment.taskDetail(sleeper.id, true);
    moment.graph();
    moment.lints();
    assert.deepEqual([loop.tickCount(), loop.time(), sleeper.done(), waiter.done(), waiter.awaiting()], before);
  });
});
