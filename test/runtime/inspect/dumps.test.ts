// Tests of runtime/inspect/dumps.ts: the task tree and table say who asked for a task's
// cancellation (the CLI, another task, nobody known), in the words of
// protocol/cancel-origin-label.ts, while the task still runs and after it ended.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventLoop, VirtualClock, coroutine, sleep, type Coroutine } from '../../../runtime/index';
import { TaskRecorder, formatPsTable, formatPsTree } from '../../../runtime/inspect/index';
import { cancelTaskAs } from '../../../runtime/inspect/task-recorder';

const napper = coroutine(function* napper(): Coroutine<void> {
  yield* sleep(1000);
});

test('the tree and the table name who asked for a cancellation: the CLI, a task, or unknown', async () => {
  const loop = new EventLoop({ clock: new VirtualClock() });
  loop.setExceptionHandler(() => {});
  const recorder = TaskRecorder.attach(loop);
  const byCli = loop.createTask(napper(), { name: 'by-cli' });
  const byTask = loop.createTask(napper(), { name: 'by-task' });
  const byTimer = loop.createTask(napper(), { name: 'by-timer' });
  const untouched = loop.createTask(napper(), { name: 'untouched' });
  const canceller = loop.createTask(
    coroutine(function* canceller(): Coroutine<void> {
      yield* sleep(0);
      byTask.cancel();
      yield* sleep(1000);
    })(),
    { name: 'canceller' },
  );
  loop.callLater(0.5, () => byTimer.cancel());
  // Tick 1: every task starts and sleeps; tick 2: the canceller cancels by-task. (A third
  // would move the virtual clock on to the timer's 0.5 s.)
  for (let i = 0; i < 2; i++) await loop.runOnce();
  cancelTaskAs(byCli, 'cli', 'interrupted');
  // The cancels are requested; byTask and byCli have not run since, byTimer's time has not come.
  let tree = formatPsTree(loop, { paths: 'basename' });
  const line = (name: string): string =>
    tree.split('\n').find((l) => l.includes(` ${name} [`)) ?? `(no line for ${name})`;
  assert.match(line('by-cli'), /\[suspended, \d+ steps?, cancel requested by the CLI\]$/);
  assert.match(line('by-task'), new RegExp(`, cancel requested by #${canceller.id} canceller\\]$`));
  assert.doesNotMatch(line('untouched'), /cancel/);
  const table = formatPsTable(loop, { recorder, collapse: 'none' });
  assert.match(table.split('\n').find((l) => l.includes('by-cli'))!, /suspended \(cancel requested by the CLI\)/);

  // The timer's cancel comes from no task and no tool: unknown, not the CLI's.
  while (!byTimer.done()) await loop.runOnce();
  assert.ok(byCli.cancelled() && byTask.cancelled());
  tree = formatPsTree(loop, { paths: 'basename', tasks: [byCli, byTimer, untouched] });
  assert.match(line('by-cli'), /\[cancelled, \d+ steps?, cancelled by the CLI\]$/);
  assert.match(
    line('by-timer'),
    /\[cancelled, \d+ steps?, cancelled by unknown \(outside any task: a callback or a timer\)\]$/,
  );
  canceller.cancel();
  untouched.cancel();
  loop.close();
});
