// "Cancelled by" is the cancel that took effect (issue 25, item 5). A worker's read times out
// (withTimeout: its cancel is taken back by uncancel() and the read is retried); later the
// crawl task cancels it. While it retries nothing cancels it; once the crawl asked, and after
// it ended, the crawl task is its canceller: in the live snapshot (summarizeTasks), the task
// detail (liveTaskDetail, what the panel and the debugger's Task scope show), the CLI's task
// table (formatPsTable), the recorded timeline's lane and the task table of the recorded past
// (RecordedTasks through RecordedMoment). Before, all of them named the expired timeout's
// cancel (a timer's: 'unknown').
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventLoop } from '../../../../runtime/loop';
import { VirtualClock } from '../../../../runtime/clock';
import { coroutine } from '../../../../runtime/coroutine';
import { sleep } from '../../../../runtime/sleep';
import { withTimeout } from '../../../../runtime/timeout';
import { TimeoutError } from '../../../../runtime/errors';
import { getRunningLoop } from '../../../../runtime/running-loop';
import type { Coroutine, Task } from '../../../../runtime/task';
import type { CancelOrigin, TaskSummary } from '../../../../protocol/host-protocol';
import { TaskRecorder } from '../../../../runtime/inspect/task-recorder';
import { AwaitIndex, summarizeTasks } from '../../../../runtime/inspect/task-summaries';
import { formatPsTable } from '../../../../runtime/inspect/dumps';
import { liveTaskDetail } from '../../../../runtime/host/main-thread/task-detail';
import { VariableStore } from '../../../../runtime/host/main-thread/variables';
import { generatorReader } from '../../../../runtime/inspect/generator-reader';
import { RunRecorder } from '../../../../runtime/record/run-recorder';
import { RunTimeline } from '../../../../runtime/record/run-timeline';
import { RecordedTasks } from '../../../../runtime/record/recorded-tasks';
import { RecordedMoment } from '../../../../runtime/host/main-thread/recorded-moment';
import { startDemoSite, demoSiteOptions } from '../../../../runtime/demo-site/index';
import { startMain } from '../../../../runtime/host/main-thread/launch-programs';
import type { LaunchOptions, LaunchTarget } from '../../../../protocol/host-protocol';
import type { CancelRequest } from '../../../../runtime/cancel-request';

/** A read whose first try hangs until its read timeout fires; the retry then takes long. */
const readWithRetry = coroutine(function* readWithRetry(): Coroutine<string> {
  for (let tries = 1; ; tries++) {
    try {
      return yield* withTimeout(tries === 1 ? 0.5 : 5, sleep(tries === 1 ? 10 : 100));
    } catch (e) {
      if (!(e instanceof TimeoutError)) throw e;
    }
  }
});

/** What every view said of the worker at one moment, seen from inside the crawl task. */
interface Seen {
  readonly tick: number;
  readonly summary: TaskSummary;
  readonly detail: TaskSummary;
  readonly table: string;
}

function look(worker: Task<unknown>, recorder: TaskRecorder, variables: VariableStore): Seen {
  const loop = worker.getLoop();
  const summary = summarizeTasks([worker], { recorder })[0]!;
  const detail = liveTaskDetail(worker, {
    recorder,
    index: new AwaitIndex(loop.allTasks()),
    variables,
    locals: false,
    createdAt: null,
  }).task;
  const table =
    formatPsTable(loop, { recorder })
      .split('\n')
      .find((line) => line.includes('worker')) ?? '';
  return { tick: loop.tickCount(), summary, detail, table };
}

test('a worker whose read timeout was taken back and that the crawl cancelled later: every view names the crawl task', async () => {
  const rec = new RunRecorder({ clock: new VirtualClock() });
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  const recorder = TaskRecorder.attach(loop);
  const variables = new VariableStore(generatorReader());
  const seen: Record<'retrying' | 'asked', Seen | null> = { retrying: null, asked: null };
  let worker: Task<string> | null = null;
  const crawl = coroutine(function* crawl(): Coroutine<void> {
    const w = getRunningLoop().createTask(readWithRetry(), { name: 'worker' });
    worker = w;
    // The first read's timeout fires at 0.5 s and is taken back; the retry is under way.
    yield* sleep(1);
    assert.equal(w.cancelling(), 0);
    seen.retrying = look(w, recorder, variables);
    w.cancel('crawl done');
    seen.asked = look(w, recorder, variables);
    yield* sleep(0.1);
  });
  const crawlTask = loop.createTask(crawl(), { name: 'crawl' });
  try {
    await loop.runUntilComplete(crawlTask);
  } finally {
    recorder.detach();
    rec.detach();
  }
  const streams = rec.finish();
  loop.close();
  const w = worker as Task<string> | null;
  assert.ok(w !== null && w.cancelled(), 'the worker ended cancelled');
  const byCrawl: CancelOrigin = { kind: 'task', taskId: crawlTask.id };

  // Live, while it retries: nothing cancels it (its timeout's cancel was taken back).
  const retrying = seen.retrying!;
  assert.equal(retrying.summary.cancelledBy, undefined, 'snapshot while retrying');
  assert.equal(retrying.detail.cancelledBy, undefined, 'task detail while retrying');
  assert.doesNotMatch(retrying.table, /cancel/, 'the CLI task table while retrying');
  // Once the crawl asked, and once it ended: the crawl task.
  assert.deepEqual(seen.asked!.summary.cancelledBy, byCrawl, 'snapshot once the crawl asked');
  assert.deepEqual(seen.asked!.detail.cancelledBy, byCrawl, 'task detail once the crawl asked');
  assert.match(seen.asked!.table, /cancel requested by #\d+ crawl|cancel requested by .*crawl/);
  const ended = summarizeTasks([w], { recorder })[0]!;
  assert.deepEqual([ended.state, ended.cancelledBy], ['cancelled', byCrawl], 'snapshot after it ended');
  assert.equal(w.cancelInEffect()?.by, crawlTask);
  assert.equal(w.cancelInEffect()?.message, 'crawl done');

  // The recorded timeline: the lane's canceller and its tick are the crawl's cancel.
  const tl = new RunTimeline('cancel-in-effect.corotrace');
  tl.update(streams.events);
  const timeline = tl.timeline(1, 0, false);
  const lane = timeline.lanes.find((l) => l.name === 'worker')!;
  assert.deepEqual([lane.endState, lane.cancelledBy, lane.cancelledTick], ['cancelled', byCrawl, seen.asked!.tick]);
  assert.ok(
    timeline.marks.some((m) => m.kind === 'cancel' && m.taskId === w.id && /taken back/.test(m.detail)),
    'the taken-back cancel is marked',
  );

  // The recorded past: right after the tick before the one it was seen retrying in (the
  // crawl's cancel comes later in that tick), nothing cancels it; right after the crawl's
  // cancel, and at the end, the crawl task does.
  const past = new RecordedTasks('cancel-in-effect.corotrace');
  past.update(streams.events);
  const rowAt = (tick: number): TaskSummary => {
    const moment = new RecordedMoment(1, tick, past, () => []);
    const row = moment.snapshot().tasks.find((t) => t.id === w.id)!;
    assert.deepEqual(moment.taskDetail(w.id).task.cancelledBy, row.cancelledBy, `the past detail at tick ${tick}`);
    return row;
  };
  assert.equal(rowAt(retrying.tick - 1).cancelledBy, undefined, `the past at tick ${retrying.tick - 1} (retrying)`);
  assert.deepEqual(rowAt(seen.asked!.tick).cancelledBy, byCrawl, `the past at tick ${seen.asked!.tick} (asked)`);
  const last = rowAt(streams.ticks);
  assert.deepEqual([last.state, last.cancelledBy], ['cancelled', byCrawl], 'the past at the end');
});

// The same over a real demo crawl (instant site, its fault routes on, 0.3 s per request): the
// stalled and endless bodies time out, each timeout's cancel is taken back and the URL tried
// again; at the end the crawl task cancels its workers. A worker whose read timed out and was
// retried reads "cancelled by #<crawl>" everywhere, not the timeout's 'unknown'.
test('a demo crawl: workers whose read timeout fired and was retried are cancelled by the crawl task, in every view', {
  timeout: 60_000,
}, async () => {
  const site = await startDemoSite({ ...demoSiteOptions('instant', 12), faults: true });
  const target: LaunchTarget = { kind: 'demo', pages: 12, latency: 'instant' };
  const options: LaunchOptions = { maxTasks: 4, maxTries: 2, timeout: 0.3, record: true };
  const rec = new RunRecorder({ awaitDetails: true });
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  const recorder = TaskRecorder.attach(loop);
  // The workers, and who had a cancel taken back, read through the loop's observer interface (not the views').
  const workers: Task<unknown>[] = [];
  const takenBack = new Map<Task<unknown>, CancelRequest[]>();
  const watcher = {
    taskCreated: (task: Task<unknown>) => void (task.name.startsWith('worker-') && workers.push(task)),
    taskUncancelled: (task: Task<unknown>, request: CancelRequest) =>
      void takenBack.set(task, [...(takenBack.get(task) ?? []), request]),
  };
  loop.addObserver(watcher);
  let crawl: Task<unknown> | null = null;
  let timeouts = 0;
  try {
    const main = startMain(loop, target, options, site.url);
    crawl = main.task;
    await loop.runUntilComplete(crawl);
    timeouts = main.crawler!.errors.filter((e) => /timed out/.test(String(e.error))).length;
  } finally {
    loop.removeObserver(watcher);
    recorder.detach();
    rec.detach();
    await site.close();
  }
  const streams = rec.finish();
  const notes = rec.tableNotes();
  const crawlTask = crawl as Task<unknown> | null;
  assert.ok(crawlTask !== null && crawlTask.done() && !crawlTask.cancelled());
  assert.ok(timeouts >= 1, `a fetch timed out after its retry (${timeouts})`);
  assert.ok(
    workers.length === options.maxTasks && workers.every((w) => w.done()),
    `${workers.length} workers, all finished`,
  );
  const byCrawl: CancelOrigin = { kind: 'task', taskId: crawlTask.id };
  const tl = new RunTimeline('demo crawl');
  tl.update(streams.events, streams.events.length, notes?.details ?? null, notes?.cancels ?? null);
  const { lanes, marks } = tl.timeline(1, 0, false);
  const past = new RecordedTasks('demo crawl');
  past.update(streams.events, streams.events.length, notes);
  const end = new RecordedMoment(1, streams.ticks, past, () => []);
  // Every worker (those that timed out first) reads cancelled by the crawl.
  for (const w of workers) {
    const summary = summarizeTasks([w], { recorder })[0]!;
    // (A worker takes the crawl's cancel and returns: it ends done, its cancel still asked by the crawl.)
    assert.deepEqual(
      [summary.state, summary.cancelledBy],
      [w.cancelled() ? 'cancelled' : 'done', byCrawl],
      `${w.name}: the snapshot`,
    );
    const detail = liveTaskDetail(w, {
      recorder,
      index: new AwaitIndex([]),
      variables: new VariableStore(generatorReader()),
      locals: false,
      createdAt: null,
    });
    assert.deepEqual(detail.task.cancelledBy, byCrawl, `${w.name}: the task detail`);
    const lane = lanes.find((l) => l.taskId === w.id)!;
    assert.deepEqual([lane.endState, lane.cancelledBy], [summary.state, byCrawl], `${w.name}: the timeline's lane`);
    const lastTakenBack = Math.max(
      0,
      ...marks.filter((m) => m.taskId === w.id && /taken back/.test(m.detail)).map((m) => m.tick),
    );
    if (takenBack.has(w)) {
      assert.ok(
        takenBack.get(w)!.every((r) => r.by === null),
        `${w.name}: the timeouts' cancels were a timer's`,
      );
      assert.ok(lastTakenBack > 0, `${w.name}: its timeouts' cancels are marked taken back`);
    }
    assert.ok(
      lane.cancelledTick !== undefined &&
        lane.cancelledTick > lastTakenBack &&
        lane.endTick !== null &&
        lane.cancelledTick >= lane.endTick - 1,
      `${w.name}: "Cancelled by" jumps to the crawl's cancel at the end (tick ${lane.cancelledTick}, ended ${lane.endTick}, last timeout taken back at ${lastTakenBack})`,
    );
    assert.deepEqual(end.taskDetail(w.id).task.cancelledBy, byCrawl, `${w.name}: the recorded past`);
    assert.equal(w.cancelInEffect()?.by, crawlTask, `${w.name}: the runtime's cancel in effect`);
  }
  const retried = workers.filter((w) => takenBack.has(w));
  assert.ok(
    retried.length >= 1,
    `a worker's read timed out and was retried (${takenBack.size} tasks had a cancel taken back)`,
  );
  loop.close();
});
