// RunLogFeed (runtime/record/run-log-feed.ts): one decode of a recorded run's event log feeds
// both of its readers, the timeline and the task table by tick. Checks that each record is told
// once to each (whichever reader asks for the update), that the shared readers read exactly
// what readers decoding on their own do, fed whole or tick by tick, and that a reader joining
// after part of the log was decoded reads it from its start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventLoop } from '../../../runtime/loop';
import { VirtualClock } from '../../../runtime/clock';
import { coroutine } from '../../../runtime/coroutine';
import { sleep } from '../../../runtime/sleep';
import { Queue } from '../../../runtime/queue';
import { getRunningLoop } from '../../../runtime/running-loop';
import type { Coroutine } from '../../../runtime/task';
import { RunRecorder, type RecordedStreams } from '../../../runtime/record/run-recorder';
import { RunTimeline } from '../../../runtime/record/run-timeline';
import { RecordedTasks } from '../../../runtime/record/recorded-tasks';
import { RunLogFeed } from '../../../runtime/record/run-log-feed';
import { readRunLog } from '../../../runtime/record/run-log';

const consume = coroutine(function* consume(q: Queue<number>): Coroutine<number> {
  return (yield* q.get()) * 2;
});
const napper = coroutine(function* napper(): Coroutine<void> {
  yield* sleep(50);
});
const main = coroutine(function* main(): Coroutine<number> {
  const loop = getRunningLoop();
  const q = new Queue<number>();
  const consumer = loop.createTask(consume(q), { name: 'consumer' });
  const doomed = loop.createTask(napper(), { name: 'doomed' });
  yield* sleep(1);
  yield* q.put(21);
  doomed.cancel();
  return yield* consumer;
});

async function record(): Promise<RecordedStreams> {
  const rec = new RunRecorder({ clock: new VirtualClock() });
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  try {
    assert.equal(await loop.runUntilComplete(loop.createTask(main(), { name: 'main' })), 42);
    return rec.finish();
  } finally {
    rec.detach();
    loop.close();
  }
}

/** What the two readers say of every tick. */
function readings(timeline: RunTimeline, tasks: RecordedTasks, ticks: number): unknown {
  const tables = Array.from({ length: ticks }, (_, i) => {
    const table = tasks.tableAt(i + 1, 100);
    return { rows: table.rows, details: table.rows.map((r) => table.detailOf(r.id)) };
  });
  return { timeline: timeline.timeline(1, 0, false), tables };
}

test('one decode tells both readers every record once, whichever reader asks', async () => {
  const streams = await record();
  const feed = new RunLogFeed('x');
  const told: number[] = [];
  feed.join({ tick: (t) => told.push(t) });
  const timeline = new RunTimeline('x', null, feed);
  const tasks = new RecordedTasks('x', null, feed);
  timeline.update(streams.events);
  // The task table was fed by the timeline's update: nothing is decoded again.
  assert.equal(tasks.ticks, streams.ticks);
  tasks.update(streams.events);
  assert.equal(feed.decodes, 1);
  assert.deepEqual(
    told,
    Array.from({ length: streams.ticks }, (_, i) => i + 1),
  );
  // The same as readers decoding on their own.
  const ownTimeline = new RunTimeline('x');
  const ownTasks = new RecordedTasks('x');
  ownTimeline.update(streams.events);
  ownTasks.update(streams.events);
  assert.deepEqual(readings(timeline, tasks, streams.ticks), readings(ownTimeline, ownTasks, streams.ticks));
});

test('fed tick by tick by either reader, and joined late, the shared readers read what their own decodes do', async () => {
  const streams = await record();
  const log = readRunLog(streams.events, streams.gaps, streams.payload, 'x');
  assert.ok(log.times.length >= 4, `a run of a few ticks (${log.times.length})`);
  const feed = new RunLogFeed('x');
  const timeline = new RunTimeline('x', null, feed);
  let tasks: RecordedTasks | null = null;
  for (let tick = 1; tick <= log.times.length; tick++) {
    const upTo = log.tickEnds[tick - 1]!;
    // The task table is asked for first halfway: it reads the ticks before on its own, once.
    if (tick === 3) tasks = new RecordedTasks('x', null, feed);
    if (tasks !== null && tick % 2 === 0) tasks.update(streams.events, upTo);
    else timeline.update(streams.events, upTo);
  }
  tasks!.update(streams.events);
  assert.equal(feed.decodes, log.times.length);
  const ownTimeline = new RunTimeline('x');
  const ownTasks = new RecordedTasks('x');
  ownTimeline.update(streams.events);
  ownTasks.update(streams.events);
  assert.deepEqual(readings(timeline, tasks!, streams.ticks), readings(ownTimeline, ownTasks, streams.ticks));
});
