// Tests of runtime/inspect/task-recorder.ts on real loops with a VirtualClock: attach() puts the
// recorder first among the loop's observers and of() names it until detach(); each task's record
// (its creator, creation time, the loop time of its last resume, its busy time, unknown on a
// replayed loop); who cancelled a task (a task, a tool through cancelAs/cancelTaskAs, nobody for
// a callback, never a cancel taken back); cancelAskedNow() while cancelTaskAs runs, and only then.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '../../../runtime/clock';
import { coroutine } from '../../../runtime/coroutine';
import { CancelledError } from '../../../runtime/errors';
import { EventLoop, type LoopObserver } from '../../../runtime/loop';
import { getRunningLoop } from '../../../runtime/running-loop';
import { sleep } from '../../../runtime/sleep';
import type { Coroutine, Task } from '../../../runtime/task';
import { TaskRecorder, cancelAskedNow, cancelTaskAs, type AskedCancel } from '../../../runtime/inspect/task-recorder';

/** A loop on a VirtualClock; after the test its tasks left pending are cancelled and it is closed. */
function virtualLoop(t: { after(fn: () => Promise<void>): void }): EventLoop {
  const loop = new EventLoop({ clock: new VirtualClock() });
  t.after(async () => {
    for (const task of loop.allTasks()) task.cancel();
    await ticks(loop);
    loop.close();
  });
  return loop;
}

/** A task that waits until it is cancelled (on a future nobody settles: the virtual clock cannot end it). */
const forever = coroutine(function* forever(): Coroutine<void> {
  yield* getRunningLoop().createFuture<void>();
});

/** Runs the loop a few ticks (ready callbacks, no timers due). */
async function ticks(loop: EventLoop, n = 3): Promise<void> {
  for (let i = 0; i < n; i++) await loop.runOnce();
}

describe('TaskRecorder attach and detach', () => {
  test('attach puts it before the observers already there; of() names it until it is detached', async (t) => {
    const loop = virtualLoop(t);
    const seen: string[] = [];
    let recorder: TaskRecorder | null = null;
    const other: LoopObserver = {
      taskCreated: (task) => seen.push(`other sees a record: ${recorder?.recordOf(task) !== undefined}`),
    };
    loop.addObserver(other);
    assert.equal(TaskRecorder.of(loop), null);
    recorder = TaskRecorder.attach(loop);
    assert.equal(TaskRecorder.of(loop), recorder);
    loop.createTask(forever());
    assert.deepEqual(seen, ['other sees a record: true']);
    recorder.detach();
    recorder.detach();
    assert.equal(TaskRecorder.of(loop), null);
    assert.equal(loop.hasObserver(recorder), false);
    assert.equal(loop.hasObserver(other), true);
    const later = loop.createTask(forever());
    assert.equal(recorder.recordOf(later), undefined, 'a detached recorder records nothing');
  });

  test('of() is the last attached; detaching an earlier one leaves it', (t) => {
    const loop = virtualLoop(t);
    const first = TaskRecorder.attach(loop);
    const second = TaskRecorder.attach(loop);
    assert.equal(TaskRecorder.of(loop), second);
    first.detach();
    assert.equal(TaskRecorder.of(loop), second);
    second.detach();
    assert.equal(TaskRecorder.of(loop), null);
  });
});

describe('TaskRecord', () => {
  test('creator, creation time and last resume are loop data; tasks made before attach have none', async (t) => {
    const loop = virtualLoop(t);
    const before = loop.createTask(forever());
    const recorder = TaskRecorder.attach(loop);
    let child: Task<void> | null = null;
    const parent = loop.createTask(
      coroutine(function* parent(): Coroutine<void> {
        yield* sleep(2.5);
        child = loop.createTask(
          coroutine(function* child(): Coroutine<void> {
            yield* sleep(1);
          })(),
        );
        yield* child;
      })(),
    );
    const outside = recorder.recordOf(parent);
    assert.deepEqual(outside, { createdBy: null, createdAt: 0, busySeconds: 0, lastResumedAt: null });
    await loop.runUntilComplete(parent);
    const made = recorder.recordOf(child!);
    assert.ok(made !== undefined);
    assert.deepEqual([made.createdBy, made.createdAt, made.lastResumedAt], [parent, 2.5, 3.5]);
    // The parent last resumed when its child finished, at 3.5.
    assert.equal(recorder.recordOf(parent)?.lastResumedAt, 3.5);
    assert.equal(recorder.recordOf(before), undefined);
  });

  test("busy time adds up the task's steps (wall clock), not its waits", async (t) => {
    // A real clock: the wait between the two steps takes wall time that must not count.
    const loop = new EventLoop();
    t.after(() => loop.close());
    const recorder = TaskRecorder.attach(loop);
    const spin = (ms: number): void => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    const worker = loop.createTask(
      coroutine(function* worker(): Coroutine<void> {
        spin(15);
        yield* sleep(0.06);
        spin(15);
      })(),
    );
    const started = performance.now();
    await loop.runUntilComplete(worker);
    const wall = (performance.now() - started) / 1000;
    const busy = recorder.recordOf(worker)?.busySeconds;
    assert.ok(typeof busy === 'number' && busy >= 0.029 && busy <= wall - 0.055, `busy ${busy} s, wall ${wall} s`);
  });

  test('a task of a replayed loop has no busy time, even after it ran', async (t) => {
    const loop = virtualLoop(t);
    const recorder = TaskRecorder.attach(loop);
    const feed = { nextTick: () => undefined };
    loop.setTickFeed(feed);
    const replayed = loop.createTask(
      coroutine(function* replayed(): Coroutine<void> {
        yield* sleep(0);
      })(),
    );
    loop.clearTickFeed(feed);
    await loop.runUntilComplete(replayed);
    assert.deepEqual(recorder.recordOf(replayed), {
      createdBy: null,
      createdAt: 0,
      busySeconds: null,
      lastResumedAt: 0,
    });
  });
});

describe('cancelledBy', () => {
  test('a task, a tool (innermost cancelAs), nobody for a callback; undefined when not cancelled', async (t) => {
    const loop = virtualLoop(t);
    const recorder = TaskRecorder.attach(loop);
    const byTask = loop.createTask(forever());
    const byTool = loop.createTask(forever());
    const byNested = loop.createTask(forever());
    const byOuter = loop.createTask(forever());
    const byCallback = loop.createTask(forever());
    const untouched = loop.createTask(forever());
    const canceller = loop.createTask(
      coroutine(function* canceller(): Coroutine<void> {
        // A cancel asked by a task inside cancelAs is the task's.
        recorder.cancelAs('cli', () => byTask.cancel());
      })(),
    );
    assert.equal(
      recorder.cancelAs('inspector', () => byTool.cancel('from the panel')),
      true,
    );
    recorder.cancelAs('debugger', () => {
      recorder.cancelAs('deadline', () => byNested.cancel());
      byOuter.cancel();
    });
    loop.callSoon(() => byCallback.cancel());
    await ticks(loop);
    assert.deepEqual(
      [byTask, byTool, byNested, byOuter, byCallback, untouched].map((task) => recorder.cancelledBy(task)),
      [canceller, 'inspector', 'deadline', 'debugger', null, undefined],
    );
  });

  test('a cancel taken back (a timeout handled) is never the one named; the next one in effect is', async (t) => {
    const loop = virtualLoop(t);
    const recorder = TaskRecorder.attach(loop);
    const log: string[] = [];
    const target = loop.createTask(
      coroutine(function* target(): Coroutine<void> {
        try {
          yield* getRunningLoop().createFuture<void>();
        } catch (e) {
          // As a Timeout does: the cancel it asked is handled here and taken back.
          if (!(e instanceof CancelledError)) throw e;
          log.push(`caught, ${loop.currentTask()!.uncancel()} pending`);
        }
        yield* forever();
      })(),
    );
    await ticks(loop, 1);
    recorder.cancelAs('cli', () => target.cancel());
    assert.equal(recorder.cancelledBy(target), 'cli');
    await ticks(loop);
    assert.deepEqual(log, ['caught, 0 pending']);
    assert.equal(recorder.cancelledBy(target), undefined);
    const asker = loop.createTask(
      coroutine(function* asker(): Coroutine<void> {
        target.cancel();
      })(),
    );
    await ticks(loop);
    assert.equal(target.cancelled(), true);
    assert.equal(recorder.cancelledBy(target), asker);
  });
});

describe('cancelTaskAs', () => {
  test('cancelAskedNow says who asks while the cancel runs, and null after', (t) => {
    const loop = virtualLoop(t);
    const recorder = TaskRecorder.attach(loop);
    const asked: Array<AskedCancel | null> = [];
    loop.addObserver({ taskCancelRequested: () => asked.push(cancelAskedNow()) });
    const target = loop.createTask(forever());
    const other = loop.createTask(forever());
    assert.equal(cancelTaskAs(target, 'inspector', 'stop it'), true);
    cancelTaskAs(other, 'deadline', 'crawl over');
    assert.deepEqual(asked, [
      { by: 'inspector', message: 'stop it' },
      { by: 'deadline', message: 'crawl over' },
    ]);
    assert.equal(cancelAskedNow(), null);
    assert.deepEqual([recorder.cancelledBy(target), recorder.cancelledBy(other)], ['inspector', 'deadline']);
  });

  test('without a recorder the task is still cancelled and the asker still said; a done task is not', async (t) => {
    const loop = virtualLoop(t);
    const asked: Array<AskedCancel | null> = [];
    loop.addObserver({ taskCancelRequested: () => asked.push(cancelAskedNow()) });
    const target = loop.createTask(forever());
    const finished = loop.createTask(
      coroutine(function* finished(): Coroutine<number> {
        return 1;
      })(),
    );
    await ticks(loop);
    assert.deepEqual([cancelTaskAs(target, 'cli', 'bye'), cancelTaskAs(finished, 'cli', 'too late')], [true, false]);
    assert.deepEqual(asked, [{ by: 'cli', message: 'bye' }]);
    await ticks(loop);
    assert.equal(target.cancelled(), true);
    assert.equal(cancelAskedNow(), null);
  });
});
