// runtime/record/recorded-tasks.ts: the task table of every tick, read from the event log alone,
// against the live table the same run showed after that tick (the oracle, taken by an observer).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VirtualClock } from '../../../runtime/clock';
import { coroutine } from '../../../runtime/coroutine';
import { TaskRecorder } from '../../../runtime/inspect/task-recorder';
import { snapshotTasks } from '../../../runtime/inspect/task-snapshot';
import { EventLoop } from '../../../runtime/loop';
import { Queue } from '../../../runtime/queue';
import { RecordedTasks } from '../../../runtime/record/recorded-tasks';
import { RunRecorder } from '../../../runtime/record/run-recorder';
import { getRunningLoop } from '../../../runtime/running-loop';
import { sleep } from '../../../runtime/sleep';
import type { Coroutine } from '../../../runtime/task';

const consume = coroutine(function* consume(q: Queue<number>): Coroutine<number> {
  return (yield* q.get()) * 2;
});
const sleepy = coroutine(function* sleepy(): Coroutine<void> {
  yield* sleep(100);
});
const fails = coroutine(function* fails(): Coroutine<void> {
  yield* sleep(0.5);
  throw new Error('boom');
});
const main = coroutine(function* main(): Coroutine<number> {
  const loop = getRunningLoop();
  const q = new Queue<number>();
  const consumer = loop.createTask(consume(q), { name: 'consumer' });
  const doomed = loop.createTask(sleepy(), { name: 'doomed' });
  const failing = loop.createTask(fails(), { name: 'failing' });
  yield* sleep(1);
  yield* q.put(7);
  doomed.cancel();
  const got = yield* consumer;
  try {
    yield* failing;
  } catch {
    // Its failure is the point.
  }
  return got;
});

/** What both tables must agree on, row by row. */
type Row = {
  id: number;
  name: string;
  state: string;
  steps: number;
  createdBy: number | null;
  awaiting: string | null;
};

test("every tick's table read from the log is the live table after that tick", async () => {
  const rec = new RunRecorder({ clock: new VirtualClock() });
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  const recorder = TaskRecorder.attach(loop);
  const live: Array<{ time: number; rows: Row[] }> = [];
  const project = (rows: ReturnType<typeof snapshotTasks>['tasks']): Row[] =>
    rows
      .filter((r) => r.state !== 'done' && r.state !== 'cancelled' && r.state !== 'failed')
      .map((r) => ({
        id: r.id,
        name: r.name,
        state: r.state,
        steps: r.steps,
        createdBy: r.createdBy,
        awaiting: r.awaiting?.kind ?? null,
      }));
  loop.addObserver({
    tickEnd: () => void live.push({ time: loop.time(), rows: project(snapshotTasks(loop, { recorder }).tasks) }),
  });
  let streams;
  try {
    assert.equal(await loop.runUntilComplete(loop.createTask(main(), { name: 'main' })), 14);
    streams = rec.finish();
  } finally {
    rec.detach();
    loop.close();
  }
  const past = new RecordedTasks('test.corotrace');
  past.update(streams.events);
  assert.equal(past.ticks, streams.ticks);
  assert.ok(live.length >= streams.ticks && streams.ticks >= 5, `${streams.ticks} ticks recorded`);
  for (let tick = 1; tick <= streams.ticks; tick++) {
    const table = past.tableAt(tick, 0);
    assert.equal(table.tick, tick);
    assert.deepEqual(project(table.rows), live[tick - 1]!.rows, `tick ${tick}`);
  }
  // Time: the tick that put 7 in the queue ran at 1 s of the virtual clock.
  const names = (tick: number): string[] => past.tableAt(tick, 0).rows.map((r) => r.name);
  assert.deepEqual(names(1), ['main', 'consumer', 'doomed', 'failing']);
  const doomedGone = [...Array(streams.ticks).keys()].map((i) => i + 1).find((t) => !names(t).includes('doomed'));
  assert.ok(doomedGone !== undefined);
  assert.equal(past.timeOf(doomedGone), 1);
});
