// The timeline of a recorded run, on a virtual clock: who woke whom and when (a task through a
// queue, a timer), cancels and failures marked, tick times in ms, an incremental timeline
// that merges to the whole one, and the frame chains of a one-task timeline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventLoop } from '../../../runtime/loop';
import { VirtualClock } from '../../../runtime/clock';
import { coroutine, setCoroutineTracking } from '../../../runtime/coroutine';
import { sleep } from '../../../runtime/sleep';
import { Queue } from '../../../runtime/queue';
import { getRunningLoop } from '../../../runtime/running-loop';
import type { Coroutine, Task } from '../../../runtime/task';
import { RunRecorder, type RecordedStreams } from '../../../runtime/record/run-recorder';
import { RunTimeline } from '../../../runtime/record/run-timeline';
import { RecordedTasks } from '../../../runtime/record/recorded-tasks';
import { readRunLog } from '../../../runtime/record/run-log';
import type { Timeline, TimelineLane } from '../../../protocol/host-protocol';
import { awaitInfoOf } from '../../../runtime/inspect/task-summaries';
// The task table's words for an await, which the timeline's segments use too.
import { awaitingText } from '../../../webview/state/format';

const consume = coroutine(function* consume(q: Queue<number>): Coroutine<number> {
  const v = yield* q.get();
  return v * 2;
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

async function recordMain(): Promise<{ streams: RecordedStreams; mainTask: Task<number> }> {
  const rec = new RunRecorder({ clock: new VirtualClock() });
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  const mainTask = loop.createTask(main(), { name: 'main' });
  try {
    assert.equal(await loop.runUntilComplete(mainTask), 14);
    return { streams: rec.finish(), mainTask };
  } finally {
    rec.detach();
    loop.close();
  }
}

function lane(t: Timeline, name: string): TimelineLane {
  const l = t.lanes.find((x) => x.name === name);
  assert.ok(l !== undefined, `a lane for ${name}`);
  return l;
}

test('lanes say who woke whom at which tick; cancels and failures are marked; ticks carry their time', async () => {
  const { streams, mainTask } = await recordMain();
  const tl = new RunTimeline('test.corotrace');
  tl.update(streams.events);
  const t = tl.timeline(9, 0, false);
  assert.equal(t.ticks, streams.ticks);
  assert.equal(t.tickTimes.length, streams.ticks);
  const main = lane(t, 'main');
  assert.equal(main.taskId, mainTask.id);
  assert.equal(main.parentId, null);
  assert.equal(main.endState, 'done');
  // main slept: a timer woke it, and its next step is the tick after, at 1000 ms.
  const slept = main.segments.find((s) => s.state === 'suspended' && s.awaiting === 'sleep')!;
  assert.equal(slept.wokenBy, 'timer');
  const after = main.segments[main.segments.indexOf(slept) + 1]!;
  assert.deepEqual([after.state, after.fromTick], ['running', slept.wokenTick! + 1]);
  assert.equal(t.tickTimes[slept.wokenTick! - 1], 1000);
  assert.ok(t.marks.some((m) => m.kind === 'timer' && m.tick === slept.wokenTick));
  // consumer waited on the queue until main put into it: woken by main, in main's running tick.
  const consumer = lane(t, 'consumer');
  assert.equal(consumer.parentId, mainTask.id);
  const waited = consumer.segments.find((s) => s.state === 'suspended' && s.awaiting === 'queue.get')!;
  assert.equal(waited.wokenBy, mainTask.id);
  assert.ok(
    main.segments.some(
      (s) => s.state === 'running' && s.fromTick <= waited.wokenTick! && waited.wokenTick! <= s.toTick,
    ),
  );
  assert.equal(consumer.endState, 'done');
  // doomed was cancelled by main, in the same tick main put 7.
  const doomed = lane(t, 'doomed');
  assert.deepEqual(
    [doomed.cancelledBy, doomed.cancelledTick, doomed.endState],
    [{ kind: 'task', taskId: mainTask.id }, waited.wokenTick, 'cancelled'],
  );
  assert.ok(t.marks.some((m) => m.kind === 'cancel' && m.taskId === doomed.taskId && m.tick === doomed.cancelledTick));
  const failing = lane(t, 'failing');
  assert.equal(failing.endState, 'failed');
  assert.ok(t.marks.some((m) => m.kind === 'exception' && m.taskId === failing.taskId && m.tick === failing.endTick));
  // One task's lane and marks only.
  const only = tl.timeline(9, 0, false, doomed.taskId);
  assert.deepEqual(only.lanes, [doomed]);
  assert.ok(only.marks.length > 0 && only.marks.every((m) => m.taskId === doomed.taskId));
  // Segments are in order, and none of a finished task is open.
  for (const l of t.lanes) {
    for (let i = 1; i < l.segments.length; i++)
      assert.ok(l.segments[i]!.fromTick >= l.segments[i - 1]!.toTick, `${l.name} in order`);
    assert.ok(l.segments.every((s) => s.open !== true));
  }
});

/** What a client does with an incremental timeline: cut a lane's segments to segmentsFrom, append the new ones. */
function merge(into: Timeline, next: Timeline): Timeline {
  const lanes = new Map(into.lanes.map((l) => [l.taskId, l]));
  for (const l of next.lanes) {
    const old = lanes.get(l.taskId);
    const kept = old === undefined ? [] : old.segments.slice(0, l.segmentsFrom);
    assert.equal(kept.length, l.segmentsFrom, `${l.name}: the client has the segments before the new ones`);
    lanes.set(l.taskId, { ...l, segmentsFrom: 0, segments: [...kept, ...l.segments] });
  }
  return {
    ...next,
    sinceTick: 0,
    lanes: [...lanes.values()],
    marks: [...into.marks, ...next.marks],
    tickTimes: [...into.tickTimes, ...next.tickTimes],
  };
}

test('a timeline fed tick by tick, fetched with sinceTick, merges to the whole one', async () => {
  const { streams } = await recordMain();
  const whole = new RunTimeline('x');
  whole.update(streams.events);
  const log = readRunLog(streams.events, streams.gaps, streams.payload, 'x');
  const growing = new RunTimeline('x');
  let merged: Timeline | null = null;
  let since = 0;
  for (let tick = 1; tick <= log.times.length; tick += 2) {
    growing.update(streams.events, log.tickEnds[tick - 1]!);
    const part = growing.timeline(9, since, true);
    assert.equal(part.ticks, tick);
    merged = merged === null ? part : merge(merged, part);
    since = tick;
  }
  growing.update(streams.events);
  merged = merge(merged!, growing.timeline(9, since, false));
  const full = whole.timeline(9, 0, false);
  const byId = (t: Timeline): TimelineLane[] => [...t.lanes].sort((a, b) => a.taskId - b.taskId);
  assert.deepEqual(byId(merged), byId(full));
  assert.deepEqual(merged.marks, full.marks);
  assert.deepEqual(merged.tickTimes, full.tickTimes);
});

test("with the recorder's await details, each suspended segment says what it awaited in the task table's words (the summarizer's AwaitInfo)", async () => {
  const rec = new RunRecorder({ clock: new VirtualClock(), awaitDetails: true });
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  // What the task table said at each suspension, task by task, in order.
  const said = new Map<number, string[]>();
  loop.addObserver({
    taskSuspended: (t, fut) =>
      void (said.get(t.id) ?? said.set(t.id, []).get(t.id)!).push(awaitingText(awaitInfoOf(fut))),
  });
  let streams: RecordedStreams;
  try {
    await loop.runUntilComplete(loop.createTask(main(), { name: 'main' }));
    streams = rec.finish();
  } finally {
    rec.detach();
    loop.close();
  }
  const t = new RunTimeline('main');
  t.update(streams.events, streams.events.length, rec.awaitDetails);
  const tl = t.timeline(1, 0, false);
  const byName = (name: string): TimelineLane => tl.lanes.find((l) => l.name === name)!;
  const suspended = (lane: TimelineLane): string[] =>
    lane.segments
      .filter((s) => s.state === 'suspended')
      .map((s) => awaitingText({ kind: s.awaiting!, detail: s.awaitDetail ?? '' }));
  assert.deepEqual(suspended(byName('doomed')), ['sleep 100s']);
  assert.deepEqual(suspended(byName('failing')), ['sleep 0.5s']);
  const consumer = byName('consumer');
  assert.match(
    suspended(byName('main')).join(' | '),
    new RegExp(`^sleep 1s \\| .*task Task #${consumer.taskId} "consumer"`),
  );
  for (const lane of tl.lanes) assert.deepEqual(suspended(lane), said.get(lane.taskId) ?? [], lane.name);
  // Without them, the kind alone (as a recording opened from a file).
  const bare = new RunTimeline('main');
  bare.update(streams.events);
  assert.ok(bare.timeline(1, 0, false).lanes.every((l) => l.segments.every((s) => s.awaitDetail === undefined)));
});

const inner = coroutine(function* inner(): Coroutine<void> {
  yield* sleep(1);
});
const middle = coroutine(function* middle(): Coroutine<void> {
  yield* inner();
  yield* sleep(1);
});
const outer = coroutine(function* outer(): Coroutine<void> {
  yield* middle();
  yield* sleep(1);
  // inner twice: the same names at the same depth, two calls.
  yield* inner();
  yield* inner();
});

const again = coroutine(function* again(yieldFirst: boolean): Coroutine<void> {
  if (yieldFirst) yield* sleep(0);
  yield* sleep(1);
});
const caller = coroutine(function* caller(): Coroutine<void> {
  yield* again(false);
  yield* again(true);
});

/**
 * Records `main()` as a task named `name` with its frames (coroutine tracking on from before it is called):
 * its timeline, and the task's id.
 */
async function recordWithFrames(
  main: () => Coroutine<void>,
  name: string,
): Promise<{ tl: RunTimeline; taskId: number }> {
  const rec = new RunRecorder({ clock: new VirtualClock(), frames: true });
  const loop = new EventLoop({ clock: rec.clock });
  setCoroutineTracking(true);
  rec.attach(loop);
  try {
    const task = loop.createTask(main(), { name });
    await loop.runUntilComplete(task);
    const tl = new RunTimeline('frames');
    tl.update(rec.finish().events);
    return { tl, taskId: task.id };
  } finally {
    setCoroutineTracking(false);
    rec.detach();
    loop.close();
  }
}

test('a call that returned before a step that did not suspend is not counted as kept at the next suspension', async () => {
  const { tl, taskId } = await recordWithFrames(caller, 'caller');
  // The second `again` yielded (sleep(0): ready, not suspended) before it suspended: its
  // chain then kept `caller` only, though the names are those of the first call.
  assert.deepEqual(
    lane(tl.timeline(1, 0, false, taskId), 'caller')
      .segments.filter((s) => s.state === 'suspended')
      .map((s) => [s.frames, s.framesKept]),
    [
      [['caller', 'again', 'sleep'], 0],
      [['caller', 'again', 'sleep'], 1],
    ],
  );
});

test('a one-task timeline of a run recorded with frames gives each suspension its frame chain and the calls kept since the previous one; the whole timeline does not', async () => {
  const { tl, taskId } = await recordWithFrames(outer, 'outer');
  const suspended = (l: TimelineLane): Array<[string[] | undefined, number | undefined]> =>
    l.segments.filter((s) => s.state === 'suspended').map((s) => [s.frames, s.framesKept]);
  // framesKept: the calls going since the previous suspension (the first: none).
  assert.deepEqual(suspended(lane(tl.timeline(1, 0, false, taskId), 'outer')), [
    [['outer', 'middle', 'inner', 'sleep'], 0],
    [['outer', 'middle', 'sleep'], 2],
    [['outer', 'sleep'], 1],
    [['outer', 'inner', 'sleep'], 1],
    [['outer', 'inner', 'sleep'], 1],
  ]);
  assert.deepEqual(suspended(lane(tl.timeline(1, 0, false), 'outer')), Array(5).fill([undefined, undefined]));
});

// Who cancelled a task is the cancel that took effect (runtime/cancel-request.ts), in the log
// too (UNCANCEL and CANCEL_EFFECT records): a worker swallows task A's cancel without taking it
// back, then task B's cancel ends it; another worker's cancel by A is taken back (uncancel())
// and it returns. The lanes and the past's task table say B, and nobody, as the runtime does.
test('lanes and the past name the cancel in effect: the one that ended the task, none once taken back', async () => {
  const rec = new RunRecorder({ clock: new VirtualClock() });
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  const swallows = loop.createTask(
    coroutine(function* swallows(): Coroutine<void> {
      try {
        yield* sleep(10);
      } catch {
        // Swallowed: A's request still counts.
      }
      yield* sleep(10);
    })(),
    { name: 'swallows' },
  );
  const forgiven = loop.createTask(
    coroutine(function* forgiven(): Coroutine<string> {
      try {
        yield* sleep(10);
      } catch {
        getRunningLoop().currentTask()!.uncancel();
      }
      yield* sleep(1);
      return 'carried on';
    })(),
    { name: 'forgiven' },
  );
  const a = loop.createTask(
    coroutine(function* a(): Coroutine<void> {
      yield* sleep(0.1);
      swallows.cancel('a');
      forgiven.cancel('a');
    })(),
    { name: 'a' },
  );
  const b = loop.createTask(
    coroutine(function* b(): Coroutine<void> {
      yield* sleep(0.5);
      swallows.cancel('b');
      yield* sleep(2);
    })(),
    { name: 'b' },
  );
  try {
    await loop.runUntilComplete(b);
  } finally {
    rec.detach();
  }
  const streams = rec.finish();
  loop.close();
  assert.ok(swallows.cancelled() && forgiven.result() === 'carried on');
  assert.equal(swallows.cancelInEffect()?.by, b);
  assert.equal(forgiven.cancelInEffect(), null);
  const tl = new RunTimeline('test.corotrace');
  tl.update(streams.events);
  const t = tl.timeline(9, 0, false);
  assert.deepEqual(
    [lane(t, 'swallows').endState, lane(t, 'swallows').cancelledBy],
    ['cancelled', { kind: 'task', taskId: b.id }],
  );
  assert.deepEqual(
    [lane(t, 'forgiven').endState, lane(t, 'forgiven').cancelledBy, lane(t, 'forgiven').cancelledTick],
    ['done', undefined, undefined],
  );
  const past = new RecordedTasks('test.corotrace');
  past.update(streams.events);
  const rows = past.tableAt(streams.ticks, 100).rows;
  assert.deepEqual(rows.find((r) => r.id === swallows.id)?.cancelledBy, { kind: 'task', taskId: b.id });
  const row = rows.find((r) => r.id === forgiven.id);
  assert.deepEqual([row?.state, row?.cancelledBy], ['done', undefined]);
  assert.ok(a.done());
});
