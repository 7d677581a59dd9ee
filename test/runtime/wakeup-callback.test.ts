// Tests of how a task suspends on a future whose class overrides addDoneCallback
// (runtime/wakeup-callback.ts), on a virtual clock: the override sees one registration per suspension and
// the task resumes with the result; a plain future or task takes the waiter path (the override is not
// called); the future's inspection lists the waiting task either way; a cancellation unhooks the task
// through removeDoneCallback, and a callback an override failed to remove never steps the task again.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CancelledError,
  type Coroutine,
  coroutine,
  EventLoop,
  Future,
  inspect,
  VirtualClock,
} from '../../runtime/index';
import { overridesAddDoneCallback } from '../../runtime/wakeup-callback';
import type { DoneCallback } from '../../runtime/future';

/** A future whose done callbacks are registered through an override, as asyncio's subclasses may. */
class Watched<T> extends Future<T> {
  readonly added: Array<DoneCallback<T>> = [];
  readonly removed: Array<DoneCallback<T>> = [];
  /** A broken override: removeDoneCallback leaves the callback registered. */
  leaky = false;
  /** Run first when the future is cancelled (a future that passes the cancel on, back to its waiter). */
  onCancel: (() => void) | null = null;
  override cancel(msg?: string): boolean {
    this.onCancel?.();
    return super.cancel(msg);
  }
  override addDoneCallback(fn: DoneCallback<T>): void {
    this.added.push(fn);
    super.addDoneCallback(fn);
  }
  override removeDoneCallback(fn: DoneCallback<T>): number {
    this.removed.push(fn);
    return this.leaky ? 0 : super.removeDoneCallback(fn);
  }
}

function virtualLoop(): EventLoop {
  return new EventLoop({ clock: new VirtualClock() });
}

test('overridesAddDoneCallback: a subclass that overrides it, not a plain future or a task', async () => {
  const loop = virtualLoop();
  const task = loop.createTask(
    coroutine(function* () {
      return 1;
    })(),
  );
  assert.deepEqual(
    [new Watched<number>(loop), new Future<number>(loop), task].map((f) => overridesAddDoneCallback(f)),
    [true, false, false],
  );
  task.cancel();
  await loop.runUntilComplete(task).catch(() => undefined);
  loop.close();
});

describe('a task awaiting an overriding future', () => {
  test('one registration the override sees, the task listed as waiting, resumed with the result', async () => {
    const loop = virtualLoop();
    const fut = new Watched<string>(loop);
    const log: string[] = [];
    const waiter = coroutine(function* (): Coroutine<string> {
      log.push('waiting');
      const v = yield* fut;
      log.push(`resumed with ${v}`);
      return v;
    });
    const task = loop.createTask(waiter());
    loop.callLater(1, () => {
      log.push(`registrations ${fut.added.length}`);
      log.push(`waiting tasks ${fut[inspect]().waitingTasks().length}`);
      fut.setResult('x');
    });
    assert.equal(await loop.runUntilComplete(task), 'x');
    assert.deepEqual(log, ['waiting', 'registrations 1', 'waiting tasks 1', 'resumed with x']);
    assert.equal(fut[inspect]().waitingTasks()[0], undefined, 'no task waits on a done future');
    loop.close();
  });

  test('a plain future: the waiter path, still listed as waiting', async () => {
    const loop = virtualLoop();
    const fut = new Future<string>(loop);
    const task = loop.createTask(
      coroutine(function* (): Coroutine<string> {
        return yield* fut;
      })(),
    );
    let waiting: unknown[] = [];
    loop.callLater(1, () => {
      waiting = fut[inspect]().waitingTasks();
      fut.setResult('y');
    });
    assert.equal(await loop.runUntilComplete(task), 'y');
    assert.deepEqual(waiting, [task]);
    loop.close();
  });

  test('a cancel that comes back: unhooked by removeDoneCallback; a leaked callback wakes nothing', async () => {
    const loop = virtualLoop();
    const first = new Watched<string>(loop);
    first.leaky = true;
    const second = new Watched<string>(loop);
    const reported: unknown[] = [];
    loop.setExceptionHandler((_loop, context) => reported.push(context.message));
    const log: string[] = [];
    const task = loop.createTask(
      coroutine(function* (): Coroutine<string> {
        try {
          yield* first;
          log.push('first resumed');
        } catch (e) {
          if (!(e instanceof CancelledError)) throw e;
          log.push('cancelled');
        }
        const v = yield* second;
        log.push(`second gave ${v}`);
        return v;
      })(),
    );
    // The cancel comes back to the task (a cycle): it stops waiting, unhooked, and takes the CancelledError
    // at a step of its own; `first` is cancelled after, and its leaked wake-up runs while the task waits on
    // `second`: the task is not stepped.
    first.onCancel = () => task.cancel();
    loop.callLater(1, () => task.cancel());
    loop.callLater(3, () => {
      log.push(`at 3: done=${task.done()}`);
      second.setResult('z');
    });
    assert.equal(await loop.runUntilComplete(task), 'z');
    assert.deepEqual(log, ['cancelled', 'at 3: done=false', 'second gave z']);
    assert.deepEqual(first.removed, first.added, 'the very registration was asked to be removed');
    assert.equal(first.added.length, 1);
    // Stepped once per suspension: one registration on `second`, and nothing reported to the loop.
    assert.equal(second.added.length, 1);
    assert.deepEqual(reported, []);
    loop.close();
  });
});
