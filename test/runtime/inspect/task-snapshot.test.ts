// Tests of runtime/inspect/task-snapshot.ts and task-recorder.ts: task states, what each task
// awaits (sleep, queue, lock, event, another task, gather, waitFor) and who awaits it, who
// created it, frames of tracked and untracked chains with TypeScript lines and source names
// of locals, a dump of tasks linked by gather, and the cost of a summary of 10k tasks and of
// one task's frames with locals (printed, with generous bounds).
import { resourceIdOf } from '../../../runtime/inspect/resource-ids';
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  EventLoop,
  VirtualClock,
  Event,
  Lock,
  Queue,
  coroutine,
  gather,
  setCoroutineTracking,
  sleep,
  waitFor,
  type Coroutine,
  type Future,
  type LoopObserver,
  type Task,
} from '../../../runtime/index';
import {
  TaskRecorder,
  formatPsTable,
  formatPsTree,
  snapshotTasks,
  taskFrames,
  generatorReader,
  type TaskSummary,
} from '../../../runtime/inspect/index';

afterEach(() => setCoroutineTracking(false));

function virtualLoop(): EventLoop {
  const loop = new EventLoop({ clock: new VirtualClock() });
  loop.setExceptionHandler(() => {});
  return loop;
}

async function ticks(loop: EventLoop, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await loop.runOnce();
}

function summary(loop: EventLoop, task: Task<unknown>, recorder: TaskRecorder | null = null): TaskSummary {
  return snapshotTasks(loop, { recorder }).tasks.find((s) => s.id === task.id)!;
}

/** The 1-based line of this file holding `marker`. */
function lineOf(marker: string): number {
  return (
    readFileSync(__filename, 'utf8')
      .split('\n')
      .findIndex((l) => l.includes(marker)) + 1
  );
}

describe('states', () => {
  test('scheduled, running, suspended, done, failed and cancelled', async () => {
    setCoroutineTracking(true);
    const loop = virtualLoop();
    let seenRunning: TaskSummary | null = null;
    const selfAware = coroutine(function* selfAware(): Coroutine<void> {
      seenRunning = summary(loop, loop.currentTask()!);
      yield* sleep(1);
    });
    const fails = coroutine(function* fails(): Coroutine<void> {
      yield* sleep(0);
      throw new Error('boom');
    });
    const forever = coroutine(function* forever(): Coroutine<void> {
      yield* loop.createFuture<void>();
    });
    const quick = coroutine(function* quick(): Coroutine<number> {
      return 1;
    });
    const a = loop.createTask(selfAware(), { name: 'a' });
    assert.equal(summary(loop, a).state, 'scheduled');
    const b = loop.createTask(fails(), { name: 'b' });
    const c = loop.createTask(forever(), { name: 'c' });
    loop.createTask(quick(), { name: 'd' });
    const observed = loop.allTasks();
    await ticks(loop, 1);
    assert.equal((seenRunning as TaskSummary | null)?.state, 'running');
    assert.equal(summary(loop, a).state, 'suspended');
    assert.equal(summary(loop, b).state, 'scheduled', 'a bare yield (sleep(0)) leaves the task scheduled');
    c.cancel();
    await ticks(loop, 2);
    const states = new Map(snapshotTasks(loop).tasks.map((s) => [s.name, s.state]));
    assert.equal(states.get('a'), 'suspended');
    assert.equal(states.has('b'), false, 'done tasks leave the live list');
    const { summarizeTasks } = await import('../../../runtime/inspect/index');
    const finished = new Map(summarizeTasks(observed).map((s) => [s.name, s.state]));
    assert.equal(finished.get('b'), 'failed');
    assert.equal(finished.get('c'), 'cancelled');
    assert.equal(finished.get('d'), 'done');
    assert.equal(b._exception instanceof Error, true);
    a.cancel();
    await ticks(loop, 2);
    loop.close();
  });
});

describe('awaits and awaited by', () => {
  test('sleep, queue, lock, event, a task, gather children and waitFor', async () => {
    setCoroutineTracking(true);
    const loop = virtualLoop();
    const recorder = TaskRecorder.attach(loop);
    const q = new Queue<number>();
    const lock = new Lock();
    const ev = new Event();
    const child = coroutine(function* child(n: number): Coroutine<number> {
      yield* sleep(10 + n);
      return n;
    });
    const holder = coroutine(function* holder(): Coroutine<void> {
      yield* lock.acquire();
      yield* sleep(100);
      lock.release();
    });
    const parent = coroutine(function* parent(): Coroutine<number[]> {
      const kids = [loop.createTask(child(1), { name: 'kid-1' }), loop.createTask(child(2), { name: 'kid-2' })];
      return yield* gather(...kids);
    });
    const awaitsTask = coroutine(function* awaitsTask(t: Task<number[]>): Coroutine<number[]> {
      return yield* t;
    });
    const withDeadline = coroutine(function* withDeadline(): Coroutine<number> {
      const inner = loop.createTask(child(3), { name: 'inner' });
      return yield* waitFor(inner, 50);
    });
    const onQueue = loop.createTask(q.get(), { name: 'getter' });
    const h = loop.createTask(holder(), { name: 'holder' });
    const onLock = loop.createTask(lock.acquire(), { name: 'locker' });
    const onEvent = loop.createTask(ev.wait(), { name: 'waiter' });
    const p = loop.createTask(parent(), { name: 'parent' });
    const top = loop.createTask(awaitsTask(p), { name: 'top' });
    const wf = loop.createTask(withDeadline(), { name: 'deadline' });
    await ticks(loop, 3);

    const snap = snapshotTasks(loop, { recorder });
    const byName = new Map(snap.tasks.map((s) => [s.name, s]));
    const get = (n: string): TaskSummary => byName.get(n)!;
    assert.equal(get('getter').awaiting?.kind, 'queue.get');
    assert.equal(get('getter').awaiting?.resourceId, resourceIdOf(q));
    assert.equal(get('holder').awaiting?.kind, 'sleep');
    assert.equal(get('holder').awaiting?.detail, '100s');
    assert.equal(get('locker').awaiting?.kind, 'lock');
    assert.equal(get('locker').awaiting?.resourceId, resourceIdOf(lock));
    assert.equal(get('waiter').awaiting?.kind, 'event');
    assert.equal(get('parent').awaiting?.kind, 'gather');
    assert.equal(get('parent').awaiting?.detail, '2 awaitables');
    assert.deepEqual(get('kid-1').awaitedBy, [p.id]);
    assert.deepEqual(get('kid-2').awaitedBy, [p.id]);
    assert.equal(get('top').awaiting?.kind, 'task');
    assert.equal(get('top').awaiting?.detail, `Task #${p.id} "parent"`);
    assert.equal(get('top').awaiting?.taskId, p.id);
    assert.deepEqual(get('parent').awaitedBy, [top.id]);
    assert.equal(get('deadline').awaiting?.kind, 'waitFor');
    assert.deepEqual(get('inner').awaitedBy, [wf.id]);
    assert.equal(get('kid-1').createdBy, p.id);
    assert.equal(get('inner').createdBy, wf.id);
    assert.equal(get('parent').createdBy, null, 'created outside any task');
    assert.ok((get('holder').busyMs ?? -1) >= 0 && get('holder').sinceResumedMs !== null);

    // The tree puts gather's children under the gathering task, and that under its awaiter.
    const tree = formatPsTree(loop, { recorder, paths: 'basename' });
    const lines = tree.split('\n');
    const at = (name: string): number => lines.findIndex((l) => l.includes(` ${name} [`));
    assert.ok(at('top') < at('parent') && at('parent') < at('kid-1'), tree);
    assert.match(lines[at('top')]!, /^[├└]── \(T\) /);
    assert.match(lines[at('parent')]!, /^[│ ] {3}└── \(T\) /);
    assert.match(lines[at('kid-1')]!, /^[│ ] {7}├── \(T\) /);
    assert.match(tree, /awaits gather of #\d+, #\d+/);
    assert.match(formatPsTable(loop), /gather of #\d+, #\d+/);

    ev.set();
    q.putNowait(1);
    await loop.runUntilComplete(top);
    await loop.runUntilComplete(wf);
    for (const t of [onQueue, h, onLock, onEvent]) await loop.runUntilComplete(t as Future<unknown>);
    recorder.detach();
    loop.close();
  });

  test("the recorder joins the loop's observers beside the one already there, and leaves it on detach", async () => {
    const loop = virtualLoop();
    const seen: string[] = [];
    const previous: LoopObserver = {
      taskCreated: (t) => seen.push(`created ${t.name}`),
      taskDone: (t) => seen.push(`done ${t.name}`),
    };
    loop.setObserver(previous);
    const recorder = TaskRecorder.attach(loop);
    assert.equal(TaskRecorder.of(loop), recorder);
    await loop.runUntilComplete(loop.createTask(sleep(0), { name: 'x' }));
    recorder.detach();
    assert.equal(TaskRecorder.of(loop), null);
    assert.ok(loop.hasObserver(previous));
    assert.ok(!loop.hasObserver(recorder));
    assert.deepEqual(seen, ['created x', 'done x']);
    loop.close();
  });
});

describe('frames', () => {
  test('a tracked chain, root first, with TypeScript lines and source names of locals', async () => {
    setCoroutineTracking(true);
    const loop = virtualLoop();
    const ev = new Event();
    const inner = coroutine(function* inner(label: string): Coroutine<string> {
      const waiting = `${label}!`;
      yield* ev.wait(); // MARK:inner-wait
      return waiting;
    });
    const outer = coroutine(function* outer(): Coroutine<string> {
      const waiting = 'outer value';
      let got: string;
      {
        const waiting = 'shadowing value';
        got = yield* inner(waiting); // MARK:outer-call
      }
      return got + waiting;
    });
    const task = loop.createTask(outer(), { name: 'chain' });
    await ticks(loop, 1);
    const frames = taskFrames(task, { locals: true });
    assert.deepEqual(
      frames.map((f) => [f.functionName, f.file, f.line, f.tracked]),
      [
        ['outer', __filename, lineOf('MARK:outer' + '-call'), true],
        ['inner', __filename, lineOf('MARK:inner' + '-wait'), true],
        ['wait', frames[2]!.file, frames[2]!.line, true],
      ],
    );
    assert.equal(frames[2]!.file, join(__dirname, '..', '..', '..', 'runtime', 'event.ts'));
    // esbuild renamed the shadowing `waiting`; the frame shows the source name, inner value.
    const outerLocals = frames[0]!.locals!;
    const waiting = outerLocals.filter((l) => l.name === 'waiting');
    assert.equal(waiting.length, 1, outerLocals.map((l) => l.name).join(', '));
    assert.equal(waiting[0]!.value.text, '"shadowing value"');
    assert.equal(frames[1]!.locals!.find((l) => l.name === 'label')?.value.text, '"shadowing value"');
    ev.set();
    await loop.runUntilComplete(task);
    assert.deepEqual(taskFrames(task), [], 'a done task has no frames');
    loop.close();
  });

  test('a plain generator root is shown as an untracked frame above the tracked ones', async () => {
    setCoroutineTracking(true);
    const loop = virtualLoop();
    const ev = new Event();
    const tracked = coroutine(function* tracked(): Coroutine<void> {
      yield* ev.wait();
    });
    // Make the wrapper prototype known first (a coroutine() root), as in any real program.
    const known = loop.createTask(tracked(), { name: 'known' });
    function* plainRoot(): Coroutine<void> {
      yield* tracked(); // MARK:plain-root
    }
    const task = loop.createTask(plainRoot(), { name: 'plain' });
    await ticks(loop, 1);
    assert.deepEqual(
      taskFrames(known).map((f) => f.functionName),
      ['tracked', 'wait'],
    );
    const frames = taskFrames(task);
    assert.deepEqual(
      frames.map((f) => [f.functionName, f.tracked]),
      [
        ['plainRoot', false],
        ['tracked', true],
        ['wait', true],
      ],
    );
    assert.equal(frames[0]!.line, lineOf('MARK:plain' + '-root'));
    ev.set();
    await loop.runUntilComplete(task);
    await loop.runUntilComplete(known);
    loop.close();
  });

  test('with tracking off only the root frame is visible, and the dump says so', async () => {
    const loop = virtualLoop();
    const ev = new Event();
    const inner = coroutine(function* innerOff(): Coroutine<void> {
      yield* ev.wait();
    });
    const outer = coroutine(function* outerOff(): Coroutine<void> {
      yield* inner();
    });
    const task = loop.createTask(outer(), { name: 'untracked' });
    await ticks(loop, 1);
    const frames = taskFrames(task);
    assert.deepEqual(
      frames.map((f) => [f.functionName, f.tracked]),
      [['outerOff', false]],
    );
    const s = summary(loop, task);
    assert.deepEqual(s.frames, [], 'nothing tracked');
    assert.match(formatPsTree(loop), /coroutine tracking off/);
    ev.set();
    await loop.runUntilComplete(task);
    loop.close();
  });
});

describe('cost', () => {
  test('a summary snapshot of 10k suspended tasks', async () => {
    setCoroutineTracking(true);
    const loop = virtualLoop();
    const q = new Queue<number>();
    const ev = new Event();
    const consumer = coroutine(function* consumer(): Coroutine<void> {
      yield* q.get();
    });
    const sleeper = coroutine(function* sleeper(): Coroutine<void> {
      yield* ev.wait();
    });
    const tasks: Task<void>[] = [];
    for (let i = 0; i < 10_000; i++)
      tasks.push(loop.createTask(i % 2 === 0 ? consumer() : sleeper(), { name: `t${i}` }));
    await ticks(loop, 1);
    snapshotTasks(loop); // warm up
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const snap = snapshotTasks(loop);
      times.push(performance.now() - t0);
      assert.equal(snap.tasks.length, 10_000);
    }
    const best = Math.min(...times);
    const t0 = performance.now();
    const table = formatPsTable(loop);
    const tableMs = performance.now() - t0;
    console.log(
      `# summary snapshot of 10k suspended tasks: best ${best.toFixed(1)} ms, median ${times.sort((a, b) => a - b)[2]!.toFixed(1)} ms; ps table ${tableMs.toFixed(1)} ms`,
    );
    assert.ok(best < 250, `${best} ms`);
    assert.ok(table.split('\n').length < 10, 'the 10k look-alikes collapse');
    for (let i = 0; i < 5_000; i++) q.putNowait(i);
    ev.set();
    await ticks(loop, 3);
    assert.equal(loop.liveTaskCount(), 0);
    loop.close();
  });

  test('frames with locals of one 10-deep task', async () => {
    setCoroutineTracking(true);
    const loop = virtualLoop();
    const ev = new Event();
    // The recursion goes through the coroutine() wrapper (a named function expression's
    // own name would call the raw generator, which the runtime does not track).
    const level: (n: number, payload: { n: number; text: string }) => Coroutine<number> = coroutine(function* level(
      n: number,
      payload: { n: number; text: string },
    ): Coroutine<number> {
      const mine = { depth: n, note: payload.text.slice(0, 10) };
      if (n === 0) yield* ev.wait();
      else yield* deeper(n - 1, { n: n - 1, text: payload.text });
      return mine.depth;
    });
    const deeper = (n: number, payload: { n: number; text: string }): Coroutine<number> => level(n, payload);
    const task = loop.createTask(level(9, { n: 9, text: 'x'.repeat(1000) }), { name: 'deep' });
    await ticks(loop, 1);
    const reader = generatorReader();
    taskFrames(task, { locals: true }); // warm up (script scan, source maps)
    const times: number[] = [];
    let frameCount = 0;
    for (let i = 0; i < 20; i++) {
      const group = reader.newHandleGroup();
      const t0 = performance.now();
      const frames = taskFrames(task, { locals: true, handles: { table: reader.handles, group } });
      times.push(performance.now() - t0);
      frameCount = frames.length;
      reader.releaseHandles(group);
    }
    times.sort((a, b) => a - b);
    const median = times[10]!;
    console.log(
      `# frames with locals, one task of ${frameCount} frames: median ${median.toFixed(2)} ms (${((median * 1000) / frameCount).toFixed(0)} µs per frame), best ${times[0]!.toFixed(2)} ms`,
    );
    assert.equal(frameCount, 11);
    assert.ok(median < 50, `${median} ms`);
    ev.set();
    await loop.runUntilComplete(task);
    loop.close();
  });
});
