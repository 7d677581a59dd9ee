// The host's recorded past: `timeline`, `seekTick` (a replayed past tick that snapshot,
// taskDetail, variables, graph and lints then answer for, announced by `viewedTick`), back to
// the present, refusals, an opened recording replayed with its demo site gone, and a live
// run's past viewed while it goes on.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProtocolError, RemoteError } from '../../../../protocol/rpc';
import type { TaskDetail } from '../../../../protocol/host-protocol';
import { forkHost, type HostClient } from '../host-client';
import { EventLoop } from '../../../../runtime/loop';
import { VirtualClock } from '../../../../runtime/clock';
import { coroutine } from '../../../../runtime/coroutine';
import { sleep } from '../../../../runtime/sleep';
import { Queue } from '../../../../runtime/queue';
import { getRunningLoop } from '../../../../runtime/running-loop';
import type { Coroutine } from '../../../../runtime/task';
import { RunRecorder, type RecordedStreams } from '../../../../runtime/record/run-recorder';
import { RunRewind } from '../../../../runtime/host/main-thread/run-rewind';
import { wholeRecording, type RecordingSoFar } from '../../../../runtime/record/run-log';
import { readRecordingFile } from '../../../../runtime/record/recording-file';
import { SAMPLES } from '../../../../runtime/samples/index';

async function rejectsWith(p: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof RemoteError && e.code === code && message.test(e.message));
}

/** A worker fetching at the viewed moment: its detail, or null. */
async function fetchingWorker(host: HostClient): Promise<TaskDetail | null> {
  const snap = await host.rpc.request('snapshot', {});
  for (const t of snap.tasks) {
    if (!t.name.startsWith('worker-') || t.state !== 'suspended' || !t.frames.includes('fetch')) continue;
    return host.rpc.request('taskDetail', { taskId: t.id });
  }
  return null;
}

describe('host: the recorded past of a run', () => {
  let host: HostClient;
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-rewind-'));

  before(() => {
    host = forkHost();
  });
  after(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a finished recorded crawl: timeline, seek back and forth, every view at the past tick, then the present', async () => {
    const from = host.events.length;
    const launched = await host.rpc.request('launch', {
      target: { kind: 'demo', pages: 40, latency: 'instant' },
      options: { record: true, maxTasks: 4 },
    });
    await host.waitFor('finished', (f) => f.runId === launched.runId, 30000, from);
    const present = await host.rpc.request('snapshot', {});
    const tl = await host.rpc.request('timeline', {});
    assert.equal(tl.runId, launched.runId);
    assert.equal(tl.live, false);
    assert.equal(tl.tickTimes.length, tl.ticks);
    const workers = tl.lanes.filter((l) => l.name.startsWith('worker-'));
    assert.equal(workers.length, 4);
    // A worker reads sockets: woken by I/O; it waits on the queue: woken by a task.
    const segs = workers.flatMap((w) => w.segments);
    assert.ok(segs.some((s) => s.awaiting === 'socket.read' && s.wokenBy === 'io'));
    assert.ok(segs.some((s) => s.awaiting === 'queue.get' && typeof s.wokenBy === 'number'));
    assert.ok(tl.marks.some((m) => m.kind === 'io'));

    // Mid-crawl: a worker fetching, with its frames and locals as they were then.
    const mid = Math.floor(tl.ticks / 2);
    let at = mid;
    let detail: TaskDetail | null = null;
    for (; at < tl.ticks && detail === null; at++) {
      const moment = await host.rpc.request('seekTick', { tick: at });
      // Known from the log at once, its replay under way (taskDetail with locals waits for it).
      assert.deepEqual(moment, { runId: launched.runId, tick: at, ticks: tl.ticks, replayed: false });
      detail = await fetchingWorker(host);
    }
    assert.ok(detail !== null, 'a worker was fetching after the middle tick');
    const viewed = at - 1;
    const snap = await host.rpc.request('snapshot', {});
    assert.equal(snap.tick, viewed);
    assert.ok(snap.paused && snap.full);
    assert.ok(
      snap.progress !== null && snap.progress.done < present.progress!.done,
      'fewer pages done at the past tick',
    );
    const fetch = detail.frames.find((f) => f.name === 'fetch')!;
    const url = fetch.locals.find((l) => l.name === 'url');
    assert.ok(url !== undefined && /127\.0\.0\.1/.test(url.value), JSON.stringify(fetch.locals.map((l) => l.name)));
    // Its lane says it is suspended at that tick.
    const lane = tl.lanes.find((l) => l.taskId === detail!.task.id)!;
    const segment = lane.segments.find((s) => s.state === 'suspended' && s.fromTick <= viewed && viewed <= s.toTick);
    assert.ok(segment !== undefined);
    // In the task table's words, as the table at that tick says it: its socket's file number too (the replay
    // numbers its sockets as the run did).
    const awaited = detail.task.awaiting!;
    assert.deepEqual([segment.awaiting, segment.awaitDetail], [awaited.kind, awaited.detail]);
    assert.ok(awaited.detail !== '', 'a fetching worker awaits something with a detail');
    const graph = await host.rpc.request('graph', {});
    assert.ok(graph.nodes.some((n) => n.id.includes(String(detail!.task.id))));
    const { lints } = await host.rpc.request('lints', {});
    assert.ok(lints.every((l) => l.tick <= viewed));
    const ev = await host.rpc.request('evaluate', { expression: 'tasks.length' });
    assert.equal(
      ev.value,
      String(snap.tasks.filter((t) => t.state !== 'done' && t.state !== 'failed' && t.state !== 'cancelled').length),
    );

    // Back to an early tick (a new replay), forward again (the same one goes on).
    const early = await host.rpc.request('seekTick', { tick: 3 });
    assert.equal(early.tick, 3);
    assert.equal((await host.rpc.request('snapshot', {})).tick, 3);
    await host.rpc.request('seekTick', { tick: viewed });
    const again = await fetchingWorker(host);
    assert.ok(
      again !== null &&
        again.frames.find((f) => f.name === 'fetch')!.locals.find((l) => l.name === 'url')!.value === url.value,
      'the same moment, the same locals',
    );

    // Each seek: the moment from the log, then (for the tick still viewed) the replay landed.
    const told = host.eventsOf('viewedTick').filter((v) => v.runId === launched.runId);
    assert.deepEqual(
      told
        .filter((v) => v.replayed === false)
        .map((v) => v.tick)
        .slice(-2),
      [3, viewed],
    );
    assert.deepEqual(told.at(-1), { runId: launched.runId, tick: viewed, ticks: tl.ticks, replayed: true });
    const back = await host.rpc.request('seekTick', { tick: null });
    assert.equal(back.tick, null);
    assert.equal(host.eventsOf('viewedTick').at(-1)!.tick, null);
    assert.equal((await host.rpc.request('snapshot', {})).tick, present.tick);

    await rejectsWith(
      host.rpc.request('seekTick', { tick: 0 }),
      'badTick',
      new RegExp(`has ticks 1\\.\\.${tl.ticks} recorded, not 0`),
    );
    await rejectsWith(host.rpc.request('seekTick', { tick: tl.ticks + 1 }), 'badTick', /recorded, not/);
    await rejectsWith(host.rpc.request('seekTick', { tick: 1.5 } as never), 'badRequest', /integer/);

    // The recording saved, then opened: the demo site is gone (the run was replaced), the past is the same.
    const file = join(dir, 'crawl.corotrace');
    const runLints = (await host.rpc.request('lints', {})).lints;
    await host.rpc.request('saveRecording', { path: file });
    assert.ok(Array.isArray(readRecordingFile(file).meta.lints), 'the lints are saved with the recording');
    const fromOpen = host.events.length;
    const opened = await host.rpc.request('openRecording', { path: file });
    assert.notEqual(opened.runId, launched.runId);
    const shown = await host.waitFor('viewedTick', (v) => v.runId === opened.runId, 20000, fromOpen);
    assert.deepEqual(shown, { runId: opened.runId, tick: tl.ticks, ticks: tl.ticks, replayed: false });
    const tl2 = await host.rpc.request('timeline', {});
    assert.deepEqual(
      { ...tl2, runId: 0, lanes: tl2.lanes.map((l) => ({ ...l, createdSite: undefined })) },
      { ...tl, runId: 0, lanes: tl.lanes.map((l) => ({ ...l, createdSite: undefined })) },
    );
    // The crawl's progress comes with the replay (the log's table has none).
    await host.waitFor('viewedTick', (v) => v.runId === opened.runId && v.replayed === true, 60000, fromOpen);
    assert.equal((await host.rpc.request('snapshot', {})).progress!.done, present.progress!.done);
    assert.deepEqual(
      (await host.rpc.request('lints', {})).lints,
      runLints.filter((l) => l.tick <= tl.ticks),
    );
    await host.rpc.request('seekTick', { tick: viewed });
    const replayed = await fetchingWorker(host);
    assert.ok(replayed !== null && replayed.task.id === again.task.id);
    assert.equal(
      replayed.frames.find((f) => f.name === 'fetch')!.locals.find((l) => l.name === 'url')!.value,
      url.value,
    );
  });

  test("fast scrubs right after opening a recording: each seek answers from the log at once, only the tick still viewed is told replayed, and locals asked meanwhile are that tick's", async () => {
    const from = host.events.length;
    const launched = await host.rpc.request('launch', {
      target: { kind: 'demo', pages: 60, latency: 'instant' },
      options: { record: true, maxTasks: 4 },
    });
    await host.waitFor('finished', (f) => f.runId === launched.runId, 30000, from);
    const file = join(dir, 'scrub.corotrace');
    await host.rpc.request('saveRecording', { path: file });
    const opened = await host.rpc.request('openRecording', { path: file });
    const scrubFrom = host.events.length;
    // Forward (a replay under way is taken on to the later tick), then back (a queued one is dropped
    // unreplayed), then forward.
    const asked = [0.5, 0.7, 0.9, 0.3, 0.8].map((f) => Math.max(1, Math.floor(opened.ticks * f)));
    for (const tick of asked) {
      const moment = await host.rpc.request('seekTick', { tick });
      assert.deepEqual([moment.tick, moment.replayed], [tick, false]);
      const snap = await host.rpc.request('snapshot', {});
      assert.equal(snap.tick, tick);
    }
    const last = asked.at(-1)!;
    const snap = await host.rpc.request('snapshot', {});
    const crawl = snap.tasks.find((t) => t.name === 'crawl')!;
    const detail = await host.rpc.request('taskDetail', { taskId: crawl.id, locals: true });
    assert.equal(detail.fromLog, undefined);
    assert.ok(
      detail.frames.length > 0 && detail.frames.every((f) => f.position !== null),
      'positions come with the replay',
    );
    assert.ok(
      detail.frames.some((f) => f.locals.length > 0),
      'and locals',
    );
    assert.equal(
      (await host.rpc.request('snapshot', {})).fromLog,
      undefined,
      'once landed, the table is the replayed one',
    );
    // Never stale: a tick is told replayed only while it is the one viewed, and the last one is.
    const told = host
      .eventsOf('viewedTick')
      .slice(0)
      .filter((v) => v.runId === opened.runId);
    const since = host.events
      .slice(scrubFrom)
      .filter((e) => e.event === 'viewedTick')
      .map((e) => e.body as { tick: number | null; replayed?: boolean });
    let viewing: number | null = null;
    for (const v of since) {
      if (v.replayed === false) viewing = v.tick;
      else
        assert.equal(
          v.tick,
          viewing,
          `told replayed at tick ${String(v.tick)} while tick ${String(viewing)} was viewed`,
        );
    }
    assert.deepEqual(told.at(-1), { runId: opened.runId, tick: last, ticks: opened.ticks, replayed: true });
  });

  test('a run not recorded is refused; a live run is viewed in the past while it goes on', async () => {
    let from = host.events.length;
    const plain = await host.rpc.request('launch', {
      target: { kind: 'demo', pages: 10, latency: 'instant' },
      options: { maxTasks: 4 },
    });
    await host.waitFor('finished', (f) => f.runId === plain.runId, 30000, from);
    await rejectsWith(host.rpc.request('timeline', {}), 'notRecorded', /was not recorded/);
    await rejectsWith(host.rpc.request('seekTick', { tick: 1 }), 'notRecorded', /was not recorded/);

    from = host.events.length;
    const live = await host.rpc.request('launch', {
      target: { kind: 'demo', pages: 200 },
      options: { record: true, maxTasks: 4 },
    });
    let tl = await host.rpc.request('timeline', {});
    for (let i = 0; i < 200 && tl.ticks < 30; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      tl = await host.rpc.request('timeline', { sinceTick: 0 });
    }
    assert.equal(tl.live, true);
    assert.ok(tl.ticks >= 30, `${tl.ticks} ticks recorded`);
    const moment = await host.rpc.request('seekTick', { tick: 20 });
    assert.deepEqual([moment.tick, moment.runId], [20, live.runId]);
    assert.equal((await host.rpc.request('snapshot', {})).tick, 20);
    // The run went on meanwhile: its timeline grew, and the present is later.
    let more = await host.rpc.request('timeline', { sinceTick: tl.ticks });
    for (let i = 0; i < 200 && more.ticks <= tl.ticks; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      more = await host.rpc.request('timeline', { sinceTick: tl.ticks });
    }
    assert.ok(more.ticks > tl.ticks && more.sinceTick === tl.ticks);
    assert.equal(more.tickTimes.length, more.ticks - tl.ticks);
    await host.rpc.request('seekTick', { tick: null });
    assert.ok((await host.rpc.request('snapshot', {})).tick > 20);
    await host.rpc.request('stop', {});
    await host.waitFor('finished', (f) => f.runId === live.runId, 30000, from);
  });
});

// In-process: a program of producers and consumers on a virtual clock, recorded, then rewound.
const produce = coroutine(function* produce(q: Queue<number>, n: number): Coroutine<void> {
  for (let i = 0; i < n; i++) {
    yield* q.put(i);
    yield* sleep(0.01 * (i % 3));
  }
});
const consumeAll = coroutine(function* consumeAll(q: Queue<number>, n: number): Coroutine<number> {
  let sum = 0;
  for (let i = 0; i < n; i++) sum += yield* q.get();
  return sum;
});
const pipelineOf = (items: number): (() => Coroutine<number>) =>
  coroutine(function* pipeline(): Coroutine<number> {
    const loop = getRunningLoop();
    const q = new Queue<number>(2);
    const producers = [0, 1, 2].map((k) => loop.createTask(produce(q, items), { name: `producer-${k}` }));
    const consumer = loop.createTask(consumeAll(q, 3 * items), { name: 'consumer' });
    for (const p of producers) yield* p;
    return yield* consumer;
  });
const pipeline = pipelineOf(200);
// The same, ten times as long: a replay of it from the start runs for many of the loop's slices.
const longPipeline = pipelineOf(2000);

async function recordPipeline(program = pipeline): Promise<RecordedStreams> {
  const rec = new RunRecorder({ clock: new VirtualClock() });
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  try {
    await loop.runUntilComplete(loop.createTask(program(), { name: 'pipeline' }));
    return rec.finish();
  } finally {
    rec.detach();
    loop.close();
  }
}

function rewindOfSource(streams: RecordedStreams, program = pipeline): ConstructorParameters<typeof RunRewind>[0] {
  return {
    runId: 1,
    what: 'pipeline',
    frames: false,
    debug: false,
    recording: () => wholeRecording(streams),
    ticks: () => streams.ticks,
    program: {
      start: (loop) => ({
        crawler: null,
        run: () => loop.runUntilComplete(loop.createTask(program(), { name: 'pipeline' })),
      }),
    },
    lints: () => [],
  };
}

function rewindOf(streams: RecordedStreams, program = pipeline): RunRewind {
  // A checkpoint every 2 ms of replaying: this small program replays in tens of milliseconds.
  return new RunRewind(rewindOfSource(streams, program), 2);
}

test('checkpoints: replays get parked along the run between seeks, and a seek from one shows what a replay from the start shows', async () => {
  const streams = await recordPipeline();
  const rewind = rewindOf(streams);
  try {
    await rewind.seek(streams.ticks);
    // Built in the background between seeks, a slice at a time: waited for up to 120 s of wall
    // time (a full suite on a loaded 2-core machine took over 30 s), ending as soon as three are parked.
    const deadline = Date.now() + 120_000;
    while (rewind.parkedTicks().length < 3 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const parked = rewind.parkedTicks();
    assert.ok(parked.length >= 3, `replays parked at ${parked.join(', ')}`);
    for (const tick of [Math.floor(streams.ticks / 3), Math.floor(streams.ticks / 3) + 7, 2, streams.ticks - 1]) {
      const viaCheckpoint = (await rewind.seek(tick)).snapshot();
      const fresh = rewindOf(streams);
      const fromStart = (await fresh.seek(tick)).snapshot();
      fresh.close();
      const shape = (s: typeof viaCheckpoint): unknown =>
        s.tasks.map((t) => [t.id, t.name, t.state, t.steps, t.awaiting?.kind ?? null]).sort();
      assert.equal(viaCheckpoint.tick, tick);
      assert.deepEqual(shape(viaCheckpoint), shape(fromStart), `tick ${tick}`);
    }
  } finally {
    rewind.close();
  }
});

test("warm-up: replays parked ahead at a line stop's ticks, none moved from the viewed tick or another warm tick, dropped once a seek is asked after; seeks there replay nothing and show what a replay from the start shows", async () => {
  const streams = await recordPipeline();
  // No checkpoints of its own (a gap longer than any replay): only the seeks and warm-ups park replays.
  const rewind = new RunRewind(rewindOfSource(streams), 1e9);
  try {
    const quarter = Math.floor(streams.ticks / 4);
    const [viewed, stop, before] = [quarter, 3 * quarter, 2 * quarter];
    await rewind.seek(viewed);
    // The tick before a stop, then before its task's step before (kept apart from the first).
    assert.equal(await rewind.warm(stop), true);
    assert.equal(await rewind.warm(before, [stop]), true);
    assert.deepEqual(
      rewind.parkedTicks().sort((a, b) => a - b),
      [viewed, before, stop],
      'the viewed replay stays where it is, each warm tick has one of its own',
    );
    // Superseded before its turn, or a seek asked after it (the user moved on): nothing replayed. At the viewed
    // tick: that replay is the one.
    const ran = rewind.ticksReplayed();
    assert.equal(await rewind.warm(stop + 1, [], () => false), false);
    const dropped = rewind.warm(stop + 2);
    const seen = rewind.seek(stop);
    assert.equal(await dropped, false);
    await seen;
    assert.equal(await rewind.warm(stop), true);
    assert.equal(rewind.ticksReplayed(), ran);
    // The walks' seeks land on them at once, and show the run as a replay from the start does.
    for (const tick of [stop, before]) {
      const at = (await rewind.seek(tick)).snapshot();
      assert.equal(rewind.ticksReplayed(), ran, `tick ${tick} replayed nothing more`);
      const fresh = rewindOf(streams);
      const fromStart = (await fresh.seek(tick)).snapshot();
      fresh.close();
      const shape = (s: typeof at): unknown =>
        s.tasks.map((t) => [t.id, t.name, t.state, t.steps, t.awaiting?.kind ?? null]).sort();
      assert.deepEqual(shape(at), shape(fromStart), `tick ${tick}`);
    }
  } finally {
    rewind.close();
  }
});

/**
 * Once a replay under way has run a few ticks, a replay host's scan begins (holdBuilding): nothing more is
 * replayed while it lasts (`what` says what); the ticks replayed when it began.
 */
async function heldUnderWay(rewind: RunRewind, deadline: number, what: string): Promise<number> {
  while (rewind.ticksReplayed() < 5 && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
  rewind.holdBuilding(true);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const held = rewind.ticksReplayed();
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(rewind.ticksReplayed(), held, what);
  return held;
}

test("held (a replay host's scan under way): no checkpoint is built, the one under way pauses, seeks go on; released, building goes on", async () => {
  const streams = await recordPipeline(longPipeline);
  const rewind = rewindOf(streams, longPipeline);
  try {
    rewind.follow();
    // The first checkpoint under way: held at its next tick.
    const deadline = Date.now() + 120_000;
    const held = await heldUnderWay(rewind, deadline, 'nothing replayed while held');
    // A seek goes on (from tick 0 or the checkpoint held), and none is built after it while held.
    const seek = Math.floor(streams.ticks / 4);
    assert.equal((await rewind.seek(seek)).snapshot().tick, seek);
    const sought = rewind.ticksReplayed();
    assert.ok(sought > held, 'the seek replayed');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(rewind.ticksReplayed(), sought, 'no checkpoint built after the seek while held');
    rewind.holdBuilding(false);
    while (rewind.ticksReplayed() === sought && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(rewind.ticksReplayed() > sought, 'released: checkpoints are built again');
  } finally {
    rewind.close();
  }
});

test("a seek under way when a replay host's scan begins (the views' seek to an opened recording's end) pauses until it ends; one asked meanwhile lets it go on", async () => {
  const streams = await recordPipeline(longPipeline);
  // No checkpoints of its own: only the seeks replay.
  const rewind = new RunRewind(rewindOfSource(streams, longPipeline), 1e9);
  try {
    const end = rewind.seek(streams.ticks);
    const held = await heldUnderWay(rewind, Date.now() + 120_000, 'the seek under way replays nothing while held');
    assert.ok(held < streams.ticks, 'it had not landed');
    rewind.holdBuilding(false);
    assert.equal((await end).tick, streams.ticks, 'released, it lands');
    // Held again with a seek under way, then another seek asked: both land, none waits for the scan's end.
    const first = rewind.seek(1);
    const second = rewind.seek(Math.floor(streams.ticks / 2));
    rewind.holdBuilding(true);
    const third = rewind.seek(streams.ticks - 1);
    const landed = await Promise.allSettled([first, second, third]);
    assert.equal(landed[2]?.status, 'fulfilled');
    rewind.holdBuilding(false);
  } finally {
    rewind.close();
  }
});

test('a seek no longer wanted when its turn comes is dropped unreplayed; a replay under way for a tick no longer wanted goes on to the later one asked', async () => {
  const streams = await recordPipeline();
  const rewind = rewindOf(streams);
  try {
    let viewing = 1;
    const quarter = Math.floor(streams.ticks / 4);
    // Asked one after the other at once: the first is no longer wanted when its turn comes.
    const dropped = rewind.seek(3 * quarter + 1, () => viewing === 1);
    viewing = 2;
    const kept = rewind.seek(quarter + 1, () => viewing === 2);
    await assert.rejects(dropped, (e: unknown) => e instanceof ProtocolError && e.code === 'superseded');
    assert.equal((await kept).tick, quarter + 1);
    assert.ok(!rewind.parkedTicks().includes(3 * quarter + 1), 'nothing replayed for the dropped seek');
    // A replay from the start under way to one tick, taken on to a later one by the next seek.
    const fresh = rewindOf(streams);
    try {
      viewing = 3;
      const first = fresh.seek(2 * quarter, () => viewing === 3);
      await new Promise((resolve) => setImmediate(resolve));
      viewing = 4;
      const later = fresh.seek(3 * quarter, () => viewing === 4);
      const outcome = await first.then(
        () => 'landed',
        (e: unknown) => (e instanceof ProtocolError ? e.code : String(e)),
      );
      const moment = await later;
      assert.equal(moment.tick, 3 * quarter);
      assert.equal(moment.snapshot().tick, 3 * quarter);
      if (outcome === 'superseded')
        assert.ok(!fresh.parkedTicks().includes(2 * quarter), 'the replay went on past the tick no longer wanted');
      else assert.equal(outcome, 'landed', 'it had landed before the next seek was asked');
    } finally {
      fresh.close();
    }
  } finally {
    rewind.close();
  }
});

test('scrubbing back while a replay goes forward: the back seek does not wait for it (stopped where it is, parked there), and lands after replaying only its own ticks', async () => {
  const streams = await recordPipeline(longPipeline);
  // No checkpoints built between seeks (a gap wider than the run): each seek replays from a parked replay or
  // from tick 0.
  const rewind = new RunRewind(rewindOfSource(streams, longPipeline), 1e9);
  try {
    let viewing = 1;
    const far = streams.ticks;
    const forward = rewind.seek(far, () => viewing === 1);
    // Under way: its replay has run some ticks (the loop's driver runs them in slices of a few milliseconds,
    // and yields to Node between).
    // (50 ticks at least: the replay's speed is then learnt from it, and no checkpoint is built between the seeks.)
    while (rewind.ticksReplayed() < 50) await new Promise((resolve) => setImmediate(resolve));
    const stoppedAt = rewind.ticksReplayed();
    assert.ok(stoppedAt < far / 2, `the forward replay ran ${stoppedAt} of ${far} ticks in its first slice`);
    viewing = 2;
    const early = 5;
    const t0 = performance.now();
    const back = await rewind.seek(early, () => viewing === 2);
    const backMs = performance.now() - t0;
    // Its own ticks only, from tick 0: none more of the forward replay's.
    assert.equal(rewind.ticksReplayed() - stoppedAt, early, 'ticks replayed from the back seek asked to its landing');
    assert.equal(back.tick, early);
    await assert.rejects(
      forward,
      (e: unknown) =>
        e instanceof ProtocolError &&
        e.code === 'superseded' &&
        new RegExp(`stopped at tick ${stoppedAt}\\b`).test(e.message),
    );
    assert.deepEqual(
      rewind.parkedTicks().sort((a, b) => a - b),
      [early, stoppedAt],
      'the forward replay parked where it stopped',
    );
    // The moment is exact: what a replay from the start shows; and the stopped replay is a checkpoint a later
    // seek goes on from.
    const fresh = new RunRewind(rewindOfSource(streams, longPipeline), 1e9);
    try {
      const shape = (m: Awaited<ReturnType<RunRewind['seek']>>): unknown =>
        m.snapshot().tasks.map((t) => [t.id, t.state, t.steps]);
      assert.deepEqual(shape(back), shape(await fresh.seek(early)));
      const t1 = performance.now();
      await fresh.seek(far);
      const wholeMs = performance.now() - t1;
      // Wall time only as a generous bound: the back seek took less than a replay of the whole run.
      assert.ok(
        backMs < wholeMs,
        `back seek ${backMs.toFixed(0)} ms, a replay to tick ${far} ${wholeMs.toFixed(0)} ms`,
      );
      const before = rewind.ticksReplayed();
      viewing = 3;
      const later = stoppedAt + 10;
      assert.deepEqual(shape(await rewind.seek(later, () => viewing === 3)), shape(await fresh.seek(later)));
      assert.equal(rewind.ticksReplayed() - before, 10, 'went on from the stopped replay');
    } finally {
      fresh.close();
    }
    // Asked for a tick it has not replayed yet, a forward replay stops there instead (retargeted earlier),
    // for the later seek.
    const from = rewind.ticksReplayed();
    viewing = 4;
    const ahead = rewind.seek(far, () => viewing === 4);
    while (rewind.ticksReplayed() === from) await new Promise((resolve) => setImmediate(resolve));
    const between = stoppedAt + 10 + (rewind.ticksReplayed() - from) + 100;
    viewing = 5;
    assert.equal((await rewind.seek(between, () => viewing === 5)).tick, between);
    await assert.rejects(
      ahead,
      (e: unknown) =>
        e instanceof ProtocolError &&
        e.code === 'superseded' &&
        new RegExp(`stopped at tick ${between}\\b`).test(e.message),
    );
    assert.equal(
      rewind.ticksReplayed() - from,
      between - (stoppedAt + 10),
      'one replay, from the checkpoint to the tick asked last',
    );
  } finally {
    rewind.close();
  }
});

test("a traced stretch of whole ticks (a breakpoint search's) stays parked at its end as a checkpoint; a traced open tick would not", async () => {
  const streams = await recordPipeline();
  const rewind = rewindOf(streams);
  try {
    const traced: Array<number | null> = [];
    const to = Math.floor(streams.ticks / 2);
    await rewind.traceTick(to, (loop) => traced.push(loop === null ? null : loop.tickCount()), to - 5);
    assert.deepEqual(traced, [to - 5, null], "the loop was given at the stretch's start, taken back after it");
    assert.ok(rewind.parkedTicks().includes(to), `parked at ${rewind.parkedTicks().join(', ')}`);
    // And a seek there is served from it, what a replay from the start shows.
    const viaTrace = (await rewind.seek(to)).snapshot();
    const fresh = rewindOf(streams);
    const fromStart = (await fresh.seek(to)).snapshot();
    fresh.close();
    assert.deepEqual(
      viaTrace.tasks.map((t) => [t.id, t.state, t.steps]),
      fromStart.tasks.map((t) => [t.id, t.state, t.steps]),
    );
  } finally {
    rewind.close();
  }
});

test("a held replay (a forward watch's pinned objects) goes on for the walk's next traced tick, nearer checkpoints and warm-ups aside, and no seek elsewhere takes it", async () => {
  const streams = await recordPipeline();
  // No checkpoints of its own: only traced ticks, seeks and warm-ups park replays.
  const rewind = new RunRewind(rewindOfSource(streams), 1e9);
  try {
    const quarter = Math.floor(streams.ticks / 4);
    const loops: EventLoop[] = [];
    const trace = (tick: number, inHeld: boolean): Promise<void> =>
      rewind.traceTick(tick, (loop) => (loop === null ? undefined : loops.push(loop)), tick - 1, undefined, inHeld);
    await trace(quarter, true);
    const walked = loops.at(-1)!;
    rewind.holdReplay(walked);
    // A replay parked nearer the next tick the walk traces, and a warm-up that would take the nearest one.
    await rewind.seek(2 * quarter);
    assert.equal(await rewind.warm(2 * quarter + 2), true);
    await trace(2 * quarter + 3, true);
    assert.equal(loops.at(-1), walked, "the walk's tick ran on in the held replay, not the nearer one");
    assert.ok(rewind.parkedTicks().includes(2 * quarter + 3), `parked at ${rewind.parkedTicks().join(', ')}`);
    // A seek past it, or a tick traced for anything else (a search's), replays elsewhere: the held one stays.
    await rewind.seek(3 * quarter);
    await trace(3 * quarter + 1, false);
    assert.notEqual(loops.at(-1), walked);
    await trace(3 * quarter + 2, true);
    assert.equal(loops.at(-1), walked, 'still there for the walk');
    assert.equal(walked.tickCount(), 3 * quarter + 2);
  } finally {
    rewind.close();
  }
});

// A program that waits on a real clock between bursts of work: most of its run the loop is idle.
const bursts = coroutine(function* bursts(): Coroutine<number> {
  const loop = getRunningLoop();
  let total = 0;
  for (let round = 0; round < 30; round++) {
    const q = new Queue<number>(2);
    const producers = [0, 1].map((k) => loop.createTask(produce(q, 20), { name: `producer-${round}-${k}` }));
    total += yield* consumeAll(q, 40);
    for (const p of producers) yield* p;
    yield* sleep(0.01);
  }
  return total;
});

test('a live run: checkpoints are built in its idle time as it is recorded, so when it ends they are there, and seeks from them (over longer readings) show what a replay from the start shows', async () => {
  const rec = new RunRecorder();
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  let live = true;
  const program = {
    start: (l: EventLoop) => ({
      crawler: null,
      run: () => l.runUntilComplete(l.createTask(bursts(), { name: 'bursts' })),
    }),
  };
  const source = (
    what: string,
    recording: () => RecordingSoFar,
    ticks: () => number,
    isLive: () => boolean,
  ): ConstructorParameters<typeof RunRewind>[0] => ({
    runId: 1,
    what,
    frames: false,
    debug: false,
    recording,
    ticks,
    live: () => (isLive() ? { busy: loop.readyCount() > 0 } : null),
    program,
    lints: () => [],
  });
  const rewind = new RunRewind(
    source(
      'bursts',
      () => rec.soFar(),
      () => rec.ticks,
      () => live,
    ),
    1,
  );
  rewind.follow();
  let finished: RecordedStreams;
  try {
    await loop.runUntilComplete(loop.createTask(bursts(), { name: 'bursts' }));
    finished = rec.finish();
  } finally {
    live = false;
    rec.detach();
    loop.close();
  }
  try {
    const parked = rewind.parkedTicks();
    assert.ok(
      parked.length >= 1,
      `checkpoints parked while the run went: ${parked.join(', ')} of ${finished.ticks} ticks`,
    );
    assert.ok(parked.every((t) => t < finished.ticks));
    for (const tick of [finished.ticks - 2, Math.max(...parked) + 1, Math.floor(finished.ticks / 2)]) {
      const viaCheckpoint = (await rewind.seek(tick)).snapshot();
      const fresh = new RunRewind(
        source(
          'bursts (finished)',
          () => wholeRecording(finished),
          () => finished.ticks,
          () => false,
        ),
        1,
      );
      const fromStart = (await fresh.seek(tick)).snapshot();
      fresh.close();
      const shape = (s: typeof viaCheckpoint): unknown =>
        s.tasks.map((t) => [t.id, t.name, t.state, t.steps, t.awaiting?.kind ?? null]).sort();
      assert.deepEqual(shape(viaCheckpoint), shape(fromStart), `tick ${tick}`);
    }
  } finally {
    rewind.close();
  }
});

// Another program: the consumer takes a nap after its first item (the run goes another way).
const drowsy = coroutine(function* drowsy(): Coroutine<number> {
  const loop = getRunningLoop();
  const q = new Queue<number>(2);
  const producers = [0, 1, 2].map((k) => loop.createTask(produce(q, 200), { name: `producer-${k}` }));
  const first = yield* q.get();
  yield* sleep(0.005);
  const consumer = loop.createTask(consumeAll(q, 599), { name: 'consumer' });
  for (const p of producers) yield* p;
  return first + (yield* consumer);
});

test("leaders: replays are kept parked a little short of the recording's end, first of all, and follow a live recording as it grows", async () => {
  // A finished recording: the first two replays parked are the leaders, within a lag short of the end, before
  // any checkpoint mid-run.
  const streams = await recordPipeline();
  const lead = { count: 2, lag: 5, share: 0.5 };
  const finished = new RunRewind(rewindOfSource(streams), 2, lead);
  try {
    finished.follow();
    const deadline = Date.now() + 60_000;
    while (finished.parkedTicks().length < 2 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const first = finished.parkedTicks().slice(0, 2);
    assert.deepEqual(
      first,
      [streams.ticks - lead.lag, streams.ticks - lead.lag],
      `parked first: ${finished.parkedTicks().join(', ')} of ${streams.ticks} ticks`,
    );
    // A seek to the tick before the end goes on from a leader: what a replay from the start shows.
    const viaLeader = (await finished.seek(streams.ticks - 1)).snapshot();
    const fresh = rewindOf(streams);
    const fromStart = (await fresh.seek(streams.ticks - 1)).snapshot();
    fresh.close();
    assert.deepEqual(
      viaLeader.tasks.map((t) => [t.id, t.state, t.steps]),
      fromStart.tasks.map((t) => [t.id, t.state, t.steps]),
    );
  } finally {
    finished.close();
  }

  // A live recording: the leaders go on as it grows (at their share of the time), so when it ends they are
  // near its end.
  const rec = new RunRecorder();
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  let live = true;
  const program = {
    start: (l: EventLoop) => ({
      crawler: null,
      run: () => l.runUntilComplete(l.createTask(bursts(), { name: 'bursts' })),
    }),
  };
  const rewind = new RunRewind(
    {
      runId: 1,
      what: 'bursts',
      frames: false,
      debug: false,
      recording: () => rec.soFar(),
      ticks: () => rec.ticks,
      live: () => (live ? { busy: false } : null),
      program,
      lints: () => [],
    },
    1000,
    lead,
  );
  rewind.follow();
  let ticks = 0;
  try {
    await loop.runUntilComplete(loop.createTask(bursts(), { name: 'bursts' }));
    ticks = rec.ticks;
    // The run has ended: the leaders catch up with its last stretch at full speed (waited for up to 120 s on
    // a loaded machine).
    live = false;
    const deadline = Date.now() + 120_000;
    const near = (): number =>
      rewind.parkedTicks().filter((t) => t >= ticks - 2 * lead.lag && t <= ticks - lead.lag).length;
    while (near() < lead.count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(near(), lead.count, `parked at ${rewind.parkedTicks().join(', ')} of ${ticks} ticks`);
    // No checkpoint mid-run was built while it went (a gap of 1 s of replaying): every replay parked is a
    // leader near the end or one left behind.
    assert.ok(rewind.parkedTicks().length <= lead.count + 2, `parked at ${rewind.parkedTicks().join(', ')}`);
  } finally {
    live = false;
    rec.detach();
    loop.close();
    rewind.close();
  }
});

test('a seek whose replay is not the recorded run is refused, never shown', async () => {
  const streams = await recordPipeline();
  const rewind = rewindOf(streams, drowsy);
  try {
    const refused = (e: unknown): boolean =>
      e instanceof Error && /seekTick: .*(differs from the recorded one|not the run that was recorded)/.test(e.message);
    await assert.rejects(rewind.seek(Math.floor(streams.ticks / 2)), refused);
    // Checkpoints built meanwhile are checked when a seek uses them.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await assert.rejects(rewind.seek(streams.ticks - 1), refused);
  } finally {
    rewind.close();
  }
});

/**
 * Samples with inputs from outside the loop's clock and sockets (as run-replay-samples.test.ts
 * says). The crawler sample's other input, its listing of the demo site with node:http, gets
 * the same answer here: the run keeps its site up until the next launch.
 */
const NOT_REPLAYABLE = new Set(['fib-threads']);

describe('host: every sample launched recorded is seekable (each replay checked against the recording)', {
  timeout: 300_000,
}, () => {
  let host: HostClient;
  before(() => {
    host = forkHost();
  });
  after(async () => {
    await host.close();
  });

  for (const sample of SAMPLES) {
    test(`${sample.id}: ${sample.ownLoop ? 'refused (a loop of its own)' : NOT_REPLAYABLE.has(sample.id) ? 'refused (inputs the loop cannot see)' : 'its middle and last ticks'}`, async () => {
      const from = host.events.length;
      const launched = await host.rpc.request('launch', {
        target: { kind: 'sample', id: sample.id },
        options: { record: true },
      });
      await host.waitFor('finished', (f) => f.runId === launched.runId, 120_000, from);
      if (sample.ownLoop) {
        // Its own loop runs none of the runtime loop's ticks: it is not recorded, and its past says why.
        const why = /runs a loop of its own, which is not recorded: its past cannot be replayed/;
        assert.match(launched.notRecorded ?? '', why);
        await rejectsWith(host.rpc.request('timeline', {}), 'notRecorded', why);
        await rejectsWith(host.rpc.request('seekTick', { tick: 0, replayed: true }), 'notRecorded', why);
        return;
      }
      assert.equal(launched.notRecorded, undefined);
      const { ticks } = await host.rpc.request('timeline', {});
      assert.ok(ticks > 0, `${sample.id} ran ticks`);
      if (NOT_REPLAYABLE.has(sample.id)) {
        await rejectsWith(
          host.rpc.request('seekTick', { tick: ticks, replayed: true }),
          'replayFailed',
          /not the run that was recorded|differs from the recorded one/,
        );
        // Asked without waiting: the table from the log at once, then the views are told why there are no
        // locals; what needs the replay is refused with it.
        const seen = host.events.length;
        const moment = await host.rpc.request('seekTick', { tick: ticks - 1 });
        assert.deepEqual([moment.tick, moment.replayed], [ticks - 1, false]);
        assert.equal((await host.rpc.request('snapshot', {})).fromLog, true);
        const failed = await host.waitFor(
          'viewedTick',
          (v) => v.tick === ticks - 1 && v.replayError !== undefined,
          60_000,
          seen,
        );
        assert.match(failed.replayError!, /not the run that was recorded|differs from the recorded one/);
        await rejectsWith(
          host.rpc.request('graph', {}),
          'replayFailed',
          /graph: .*(not the run that was recorded|differs from the recorded one)/,
        );
        return;
      }
      for (const tick of [Math.ceil(ticks / 2), ticks]) {
        assert.equal((await host.rpc.request('seekTick', { tick })).tick, tick);
        assert.equal((await host.rpc.request('snapshot', {})).tick, tick);
      }
    });
  }
});
