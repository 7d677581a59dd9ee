// The log-derived task table is the replayed one: for EVERY tick of a recorded demo crawl and
// of two samples (one with failing tasks, one gathering tasks), the rows the event log and
// its table notes give (runtime/record/recorded-tasks.ts, served by recorded-moment.ts) equal
// the snapshot of a replay paused right after that tick (past-moment.ts) on every field the
// log says: all but the await's resourceId; busyMs is not known on either side (null: the replay's CPU
// time is not the run's, and the log does not keep it). A task's detail without locals too:
// its summary (awaitedBy from the await index), its frames' function names, its await chain.
// Cancels a view asked (the host's cancelTask) read as the live run said them: in the log's
// table, the timeline and the replayed moment.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PROTOCOL_VERSION, type Snapshot, type TaskSummary } from '../../../../protocol/host-protocol';
import { EventLoop } from '../../../../runtime/loop';
import { setCoroutineTracking } from '../../../../runtime/coroutine';
import { startDemoSite, demoSiteOptions } from '../../../../runtime/demo-site/index';
import { RunRecorder } from '../../../../runtime/record/run-recorder';
import { wholeRecording } from '../../../../runtime/record/run-log';
import type { TableNotes } from '../../../../runtime/record/await-details';
import { RunRewind, type ReplayableProgram } from '../../../../runtime/host/main-thread/run-rewind';
import { RecordedMoment } from '../../../../runtime/host/main-thread/recorded-moment';
import { RecordedTasks } from '../../../../runtime/record/recorded-tasks';
import { startMain, startReplayed } from '../../../../runtime/host/main-thread/launch-programs';
import { SAMPLES } from '../../../../runtime/samples/index';
import type { LaunchOptions, LaunchTarget } from '../../../../protocol/host-protocol';
import { VirtualClock } from '../../../../runtime/clock';
import { coroutine } from '../../../../runtime/coroutine';
import { sleep } from '../../../../runtime/sleep';
import { gather } from '../../../../runtime/gather';
import { waitFor } from '../../../../runtime/wait-for';
import { withTimeout } from '../../../../runtime/timeout';
import { TimeoutError } from '../../../../runtime/errors';
import { getRunningLoop } from '../../../../runtime/running-loop';
import type { Coroutine, Task } from '../../../../runtime/task';
import { cancelTaskAs } from '../../../../runtime/inspect/task-recorder';
import { outsideCanceller } from '../../../../runtime/host/main-thread/launch-programs';
import { forkHost } from '../host-client';

before(() => setCoroutineTracking(true));
after(() => setCoroutineTracking(false));

interface Recorded {
  readonly what: string;
  readonly streams: ReturnType<RunRecorder['finish']>;
  readonly notes: TableNotes;
  readonly program: ReplayableProgram;
}

/** Records `run` on a fresh loop with frames and the table notes, as the host records a run. */
async function record(
  what: string,
  run: (loop: EventLoop) => Promise<unknown>,
  program: ReplayableProgram,
  virtual = false,
): Promise<Recorded> {
  const rec = new RunRecorder({ frames: true, awaitDetails: true, ...(virtual ? { clock: new VirtualClock() } : {}) });
  const loop = new EventLoop({ clock: rec.clock, debug: true });
  rec.attach(loop);
  try {
    await run(loop).catch(() => undefined);
    const streams = rec.finish();
    return { what, streams, notes: rec.tableNotes()!, program };
  } finally {
    rec.detach();
    loop.close();
  }
}

/** The fields of a row the log says (resourceId is the replay's alone). */
function logged(s: TaskSummary): unknown {
  const { awaiting, location: _location, ...rest } = s;
  if (awaiting === null) return { ...rest, awaiting };
  const { resourceId: _resource, ...await_ } = awaiting;
  return { ...rest, awaiting: await_ };
}

function rowsOf(s: Snapshot): unknown[] {
  return s.tasks.map(logged);
}

async function everyTickAgrees(r: Recorded): Promise<number> {
  const rewind = new RunRewind({
    runId: 1,
    what: r.what,
    frames: true,
    debug: true,
    recording: () => wholeRecording(r.streams),
    ticks: () => r.streams.ticks,
    program: r.program,
    lints: () => [],
  });
  const past = new RecordedTasks(r.what);
  past.update(r.streams.events, r.streams.events.length, r.notes);
  let compared = 0;
  try {
    for (let tick = 1; tick <= r.streams.ticks; tick++) {
      const replayed = await rewind.seek(tick);
      const fromLog = new RecordedMoment(1, tick, past, () => []);
      const a = replayed.snapshot();
      const b = fromLog.snapshot();
      assert.equal(b.fromLog, true);
      assert.equal(b.tick, tick);
      assert.deepEqual(rowsOf(b), rowsOf(a), `${r.what}: the task table right after tick ${tick}`);
      assert.deepEqual(b.counts, a.counts, `${r.what}: counts at tick ${tick}`);
      // The replay's own CPU time is a value the run never held: a past task's busy time is not known.
      assert.deepEqual(
        a.tasks.filter((t) => t.busyMs !== null).map((t) => `#${t.id} ${t.busyMs} ms`),
        [],
        `${r.what}: busy times at tick ${tick}`,
      );
      for (const t of a.tasks) {
        const da = replayed.taskDetail(t.id, false);
        const db = fromLog.taskDetail(t.id);
        assert.deepEqual(logged(db.task), logged(da.task), `${r.what}: task #${t.id}'s detail at tick ${tick}`);
        assert.deepEqual(
          db.frames.map((f) => f.name),
          da.frames.map((f) => f.name),
          `${r.what}: task #${t.id}'s frames at tick ${tick}`,
        );
        assert.deepEqual(db.awaitChain, da.awaitChain, `${r.what}: task #${t.id}'s await chain at tick ${tick}`);
        assert.ok(
          db.frames.every((f) => f.position === null && f.locals.length === 0),
          'no positions nor locals from the log',
        );
        compared++;
      }
    }
  } finally {
    rewind.close();
  }
  return compared;
}

test('a recorded demo crawl: at every tick the log-derived task table and details are the replayed ones', async () => {
  const site = await startDemoSite(demoSiteOptions('instant', 24));
  const target: LaunchTarget = { kind: 'demo', pages: 24, latency: 'instant' };
  const options: LaunchOptions = { maxTasks: 3, record: true };
  let r: Recorded;
  try {
    r = await record('demo crawl', (loop) => loop.runUntilComplete(startMain(loop, target, options, site.url).task), {
      start: (loop) => startReplayed(loop, target, options, site.url),
    });
  } finally {
    await site.close();
  }
  assert.ok(r.streams.ticks > 50, `${r.streams.ticks} ticks`);
  const compared = await everyTickAgrees(r);
  assert.ok(compared > r.streams.ticks, `${compared} task details compared`);
});

for (const id of ['exception-chain', 'gather-vs-ascompleted']) {
  test(`sample ${id}: at every tick the log-derived task table and details are the replayed ones`, async () => {
    const sample = SAMPLES.find((s) => s.id === id)!;
    const site = await startDemoSite({ pages: 30 });
    let r: Recorded;
    try {
      r = await record(id, (loop) => sample.run({ siteUrl: site.url, log: () => undefined, loop }), {
        start: (loop) => ({ crawler: null, run: () => sample.run({ siteUrl: site.url, log: () => undefined, loop }) }),
      });
    } finally {
      await site.close();
    }
    assert.ok(r.streams.ticks >= 3, `${r.streams.ticks} ticks`);
    await everyTickAgrees(r);
  });
}

// A tangle of awaits and cancels: three tasks await one (its awaitedBy has three, in order),
// a task cancelled by another takes a while to end (cancelledBy while still live), a gather
// of several and a waitFor's timeout (a cancel from a callback), results and failures.
const napper = coroutine(function* napper(seconds: number): Coroutine<string> {
  try {
    yield* sleep(seconds);
  } catch (e) {
    yield* sleep(0.002);
    throw e;
  }
  return 'napped';
});
const awaitIt = coroutine(function* awaitIt(t: Task<string>): Coroutine<string> {
  return yield* t;
});
const failing = coroutine(function* failing(): Coroutine<never> {
  yield* sleep(0.003);
  throw new RangeError('out of range on purpose');
});
const tangle = coroutine(function* tangle(): Coroutine<number> {
  const loop = getRunningLoop();
  const a = loop.createTask(napper(0.05), { name: 'a' });
  const b = loop.createTask(napper(0.01), { name: 'b' });
  const waiters = [0, 1, 2].map((k) => loop.createTask(awaitIt(a), { name: `await-a-${k}` }));
  const bad = loop.createTask(failing(), { name: 'bad' });
  yield* sleep(0.005);
  a.cancel('enough');
  const slow = loop.createTask(napper(1), { name: 'slow' });
  const timedOut = loop.createTask(waitFor(slow, 0.02), { name: 'timed' });
  const results = yield* gather(...waiters, b, bad, timedOut, { returnExceptions: true });
  return results.length;
});

test('a tangle of awaits and cancels: at every tick the log-derived task table and details are the replayed ones', async () => {
  const start = (loop: EventLoop): Promise<unknown> =>
    loop.runUntilComplete(loop.createTask(tangle(), { name: 'tangle' }));
  const r = await record('tangle', start, { start: (loop) => ({ crawler: null, run: () => start(loop) }) }, true);
  await everyTickAgrees(r);
});

// Cancels taken back and cancels in effect: a worker's read timeout expires and is taken back
// (withTimeout's uncancel) before the crawl cancels it; another swallows one cancel and is
// ended by a later one; a third has its cancel taken back by its handler and returns. At
// every tick the log's table (UNCANCEL, CANCEL_EFFECT records) names who the replay's does.
const retried = coroutine(function* retried(): Coroutine<string> {
  for (let tries = 1; ; tries++) {
    try {
      return yield* withTimeout(tries === 1 ? 0.01 : 5, sleep(10));
    } catch (e) {
      if (!(e instanceof TimeoutError)) throw e;
    }
  }
});
const swallowing = coroutine(function* swallowing(): Coroutine<void> {
  try {
    yield* sleep(10);
  } catch {
    // Swallowed: the request still counts.
  }
  yield* sleep(10);
});
const forgiving = coroutine(function* forgiving(): Coroutine<string> {
  try {
    yield* sleep(10);
  } catch {
    getRunningLoop().currentTask()!.uncancel();
  }
  yield* sleep(0.01);
  return 'carried on';
});
const cancelsTakenBack = coroutine(function* cancelsTakenBack(): Coroutine<void> {
  const loop = getRunningLoop();
  const w = loop.createTask(retried(), { name: 'worker' });
  const s = loop.createTask(swallowing(), { name: 'swallowing' });
  const f = loop.createTask(forgiving(), { name: 'forgiving' });
  yield* sleep(0.005);
  s.cancel('first');
  f.cancel('forgiven');
  yield* sleep(0.02);
  w.cancel('crawl done');
  s.cancel('second');
  yield* sleep(0.02);
});

test('cancels taken back: at every tick the log-derived task table and details are the replayed ones, naming the cancel in effect', async () => {
  let main: Task<void> | null = null;
  const start = (loop: EventLoop): Promise<unknown> =>
    loop.runUntilComplete((main = loop.createTask(cancelsTakenBack(), { name: 'crawl' })));
  const r = await record(
    'cancels taken back',
    start,
    { start: (loop) => ({ crawler: null, run: () => start(loop) }) },
    true,
  );
  await everyTickAgrees(r);
  const past = new RecordedTasks(r.what);
  past.update(r.streams.events, r.streams.events.length, r.notes);
  const rows = past.tableAt(r.streams.ticks, 100).rows;
  const crawlId = rows.find((t) => t.name === 'crawl')!.id;
  const by = (name: string): unknown => {
    const row = rows.find((t) => t.name === name)!;
    return [row.state, row.cancelledBy];
  };
  assert.deepEqual(by('worker'), ['cancelled', { kind: 'task', taskId: crawlId }]);
  assert.deepEqual(by('swallowing'), ['cancelled', { kind: 'task', taskId: crawlId }]);
  assert.deepEqual(by('forgiving'), ['done', undefined]);
  assert.ok(main !== null);
});

// Cancels asked from outside the loop by a tool (a view's cancelTask, the debugger's) between
// ticks: the log's table names the tool, as the replay (which makes each again as it was asked)
// does, at every tick; before the asked cancels were kept both said 'unknown'.
test('cancels asked by tools between ticks: at every tick the log-derived table and the replayed one name the tool that asked', async () => {
  const site = await startDemoSite(demoSiteOptions('instant', 24));
  const target: LaunchTarget = { kind: 'demo', pages: 24, latency: 'instant' };
  const options: LaunchOptions = { maxTasks: 3, record: true };
  let asked: ReturnType<RunRecorder['tableNotes']> = null;
  const program: ReplayableProgram = {
    start: (loop) => startReplayed(loop, target, options, site.url),
    cancelFromOutside: outsideCanceller(() => asked?.cancels, null),
  };
  let r: Recorded;
  const cancelled: string[] = [];
  try {
    r = await record(
      'demo crawl with cancels',
      async (loop) => {
        const crawl = loop.runUntilComplete(startMain(loop, target, options, site.url).task);
        // Between ticks (a timer of Node's, not of the loop): the views' cancels of two workers.
        await new Promise((resolve) => setTimeout(resolve, 15));
        const workers = loop.allTasks().filter((t) => t.name.startsWith('worker-') && !t.done());
        assert.ok(workers.length >= 2, `${workers.length} workers going`);
        cancelTaskAs(workers[0]!, 'inspector', 'cancelled by the inspector');
        cancelTaskAs(workers[1]!, 'debugger', 'enough of this one');
        cancelled.push(workers[0]!.name, workers[1]!.name);
        return crawl;
      },
      program,
    );
  } finally {
    await site.close();
  }
  asked = r.notes;
  assert.deepEqual(r.notes.cancels, [
    { by: 'inspector', message: 'cancelled by the inspector' },
    { by: 'debugger', message: 'enough of this one' },
  ]);
  const past = new RecordedTasks(r.what);
  past.update(r.streams.events, r.streams.events.length, r.notes);
  const end = new RecordedMoment(1, r.streams.ticks, past, () => []).snapshot();
  assert.deepEqual(
    cancelled.map((name) => end.tasks.find((t) => t.name === name)?.cancelledBy),
    [{ kind: 'inspector' }, { kind: 'debugger' }],
  );
  await everyTickAgrees(r);
});

test("a view's cancelTask in a recorded run: the replayed moment and the timeline say who cancelled, as the live run did", async () => {
  const host = forkHost();
  try {
    await host.rpc.request('hello', { client: 'test', protocolVersion: PROTOCOL_VERSION });
    const run = await host.rpc.request('launch', {
      target: { kind: 'demo', latency: 'instant', pages: 40 },
      options: { stopOnEntry: true, maxTasks: 3, record: true },
    });
    await host.waitFor('paused', (p) => p.reason === 'entry');
    for (let i = 0; i < 5; i++) await host.rpc.request('stepTick', {});
    const workers = (await host.rpc.request('snapshot', {})).tasks.filter((t) => t.name.startsWith('worker-'));
    const [a, b] = workers as [TaskSummary, TaskSummary];
    assert.deepEqual(await host.rpc.request('cancelTask', { taskId: a.id, by: 'inspector' }), { cancelled: true });
    assert.deepEqual(await host.rpc.request('cancelTask', { taskId: b.id, by: 'debugger', message: 'enough of b' }), {
      cancelled: true,
    });
    let tick = 0;
    let live: TaskSummary[] = [];
    for (let i = 0; i < 50; i++) {
      tick = (await host.rpc.request('stepTick', {})).tick;
      const rows = (await host.rpc.request('snapshot', {})).tasks;
      live = [a, b].map((w) => rows.find((t) => t.id === w.id)!);
      if (live.every((t) => t.state !== 'suspended' && t.state !== 'scheduled' && t.state !== 'running')) break;
    }
    const said = (rows: TaskSummary[]): unknown[] => rows.map((t) => [t.id, t.state, t.cancelledBy, t.outcome]);
    assert.deepEqual(
      live.map((t) => t.cancelledBy),
      [{ kind: 'inspector' }, { kind: 'debugger' }],
    );
    await host.rpc.request('continue', {});
    await host.waitFor('finished', (f) => f.runId === run.runId);
    // The replayed moment of the tick the live run was paused at says what the live run said.
    await host.rpc.request('seekTick', { tick, replayed: true });
    const rows = (await host.rpc.request('snapshot', {})).tasks;
    const replayed = [a, b].map((w) => rows.find((t) => t.id === w.id)!);
    assert.deepEqual(said(replayed), said(live), `tick ${tick}: the replayed rows of the cancelled workers`);
    // The timeline's lanes ("Cancelled by") and marks too.
    const timeline = await host.rpc.request('timeline', {});
    assert.deepEqual(
      [a, b].map((w) => timeline.lanes.find((l) => l.taskId === w.id)?.cancelledBy),
      [{ kind: 'inspector' }, { kind: 'debugger' }],
    );
    const marks = timeline.marks.filter((m) => m.kind === 'cancel').map((m) => m.detail);
    assert.ok(
      marks.includes(`cancel of ${a.name} asked by the inspector`) &&
        marks.includes(`cancel of ${b.name} asked by the debugger`),
      marks.join('; '),
    );
  } finally {
    await host.close();
  }
});
