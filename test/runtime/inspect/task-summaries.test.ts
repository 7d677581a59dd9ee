// Tests of runtime/inspect/task-summaries.ts: how a finished task's outcome reads where a live task's
// await goes (the panel's Awaiting column): `returned` for a coroutine that returns nothing,
// `returned <value>`, the error, or `cancelled (why)`; and who asked for a cancellation (a
// task, the inspector, the debugger, the CLI, or unknown: a callback).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventLoop } from '../../../runtime/loop';
import { VirtualClock } from '../../../runtime/clock';
import { coroutine } from '../../../runtime/coroutine';
import { sleep } from '../../../runtime/sleep';
import { outcomeOf, summarizeTasks } from '../../../runtime/inspect/task-summaries';
import { TaskRecorder, cancelTaskAs } from '../../../runtime/inspect/task-recorder';
import type { Task } from '../../../runtime/task';

test('outcomeOf: returned, returned a value, failed, cancelled; nothing while live', async () => {
  const loop = new EventLoop({ clock: new VirtualClock() });
  const nothing = loop.createTask(
    coroutine(function* worker() {
      yield* sleep(0);
    })(),
  );
  const value = loop.createTask(
    coroutine(function* answer() {
      yield* sleep(0);
      return 42;
    })(),
  );
  const failing = loop.createTask(
    coroutine(function* failing() {
      yield* sleep(0);
      throw new RangeError('no');
    })(),
  );
  const cancelled = loop.createTask(
    coroutine(function* waiting() {
      yield* sleep(10);
    })(),
  );
  assert.equal(outcomeOf(nothing), undefined);
  await loop.runUntilComplete(
    coroutine(function* main() {
      yield* sleep(0);
      cancelled.cancel('enough');
      yield* sleep(1);
    })(),
  );
  assert.equal(outcomeOf(nothing), 'returned');
  assert.equal(outcomeOf(value), 'returned 42');
  assert.equal(outcomeOf(failing), 'RangeError: no');
  assert.equal(outcomeOf(cancelled), 'cancelled (enough)');
  failing.exception();
  loop.close();
});

test('summarizeTasks: cancelledBy names the task, the tool (inspector, debugger, CLI) or unknown (a callback)', async () => {
  const loop = new EventLoop({ clock: new VirtualClock() });
  const recorder = TaskRecorder.attach(loop);
  const sleeper = (name: string): Task<unknown> =>
    loop.createTask(
      coroutine(function* sleeper() {
        yield* sleep(10);
      })(),
      { name },
    );
  const byTask = sleeper('by-task');
  const byInspector = sleeper('by-inspector');
  const byDebugger = sleeper('by-debugger');
  const byCli = sleeper('by-cli');
  const byCallback = sleeper('by-callback');
  const never = loop.createTask(
    coroutine(function* quick() {
      yield* sleep(0);
    })(),
    { name: 'never' },
  );
  let mainId = -1;
  await loop.runUntilComplete(
    coroutine(function* main() {
      mainId = loop.currentTask()!.id;
      yield* sleep(0);
      // Inside a task, the task is who asked, even when a tool is named.
      assert.equal(cancelTaskAs(byTask, 'inspector', 'from a task'), true);
      loop.callSoon(() => {
        assert.equal(cancelTaskAs(byInspector, 'inspector', 'from the panel'), true);
        assert.equal(
          recorder.cancelAs('debugger', () => byDebugger.cancel()),
          true,
        );
        cancelTaskAs(byCli, 'cli', 'interrupted');
        byCallback.cancel();
      });
      yield* sleep(1);
    })(),
  );
  const byName = new Map(
    summarizeTasks([byTask, byInspector, byDebugger, byCli, byCallback, never], { recorder }).map((s) => [s.name, s]),
  );
  assert.deepEqual(byName.get('by-task')?.cancelledBy, { kind: 'task', taskId: mainId });
  // Outside any task: the tool named, else unknown.
  assert.deepEqual(byName.get('by-inspector')?.cancelledBy, { kind: 'inspector' });
  assert.deepEqual(byName.get('by-debugger')?.cancelledBy, { kind: 'debugger' });
  assert.deepEqual(byName.get('by-cli')?.cancelledBy, { kind: 'cli' });
  assert.deepEqual(byName.get('by-callback')?.cancelledBy, { kind: 'unknown' });
  assert.equal(byName.get('never')?.cancelledBy, undefined);
  recorder.detach();
  loop.close();
});
