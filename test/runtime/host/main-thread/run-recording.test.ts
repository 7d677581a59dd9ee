// RunRecording (runtime/host/main-thread/run-recording.ts) on a run recorded in-process on a virtual
// clock: a live recording's ticks (its open tick never counted), its finish, a run not recorded
// refused; the timeline with the run's creation sites and failed URLs; an opened copy grown by a
// longer recording (growOpened) or in place (growInPlace), each refused, nothing changed, when
// the growth does not continue it exactly; lints and notes of a live and an opened recording.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LaunchTarget, Lint, RecordingMark, SourcePosition } from '../../../../protocol/host-protocol';
import { ProtocolError } from '../../../../protocol/rpc';
import { EventLoop } from '../../../../runtime/loop';
import { VirtualClock } from '../../../../runtime/clock';
import { coroutine } from '../../../../runtime/coroutine';
import { gather } from '../../../../runtime/gather';
import { sleep } from '../../../../runtime/sleep';
import { getRunningLoop } from '../../../../runtime/running-loop';
import type { Coroutine } from '../../../../runtime/task';
import { RunRecorder, type RecordedStreams } from '../../../../runtime/record/run-recorder';
import { wholeRecording } from '../../../../runtime/record/run-log';
import { bytesSince } from '../../../../runtime/record/recording-growth';
import type { TableNotes } from '../../../../runtime/record/await-details';
import type { ReadGrowth } from '../../../../runtime/host/main-thread/recordings';
import {
  RunRecording,
  type RecordingOwner,
  type SavedRecording,
} from '../../../../runtime/host/main-thread/run-recording';

const TARGET: LaunchTarget = { kind: 'program', path: '/programs/counters.ts' };
const SITE: SourcePosition = { file: '/programs/counters.ts', line: 7, column: 13 };

/** What a step of a counter saw of the recording while its tick ran. */
interface Seen {
  readonly ticks: number;
  readonly live: boolean;
  readonly midTick: RecordedStreams | null;
}

/** A task's notes at a tick, copied (the recorder's lists grow on). */
function copyNotes(n: TableNotes | null): TableNotes {
  assert.ok(n !== null);
  return {
    details: [...(n.details ?? [])],
    awaitTasks: [...(n.awaitTasks ?? [])],
    outcomes: [...(n.outcomes ?? [])],
    cancels: [...(n.cancels ?? [])],
  };
}

interface Recorded {
  readonly recording: RunRecording;
  readonly owner: { finished: boolean; lints: Lint[] };
  readonly streams: RecordedStreams;
  /** The recording between ticks right after each tick (streams and notes then). */
  readonly after: Map<number, { streams: RecordedStreams; notes: TableNotes }>;
  /** What counter-a's steps saw, in order. */
  readonly seen: Seen[];
  /** The tasks' ids (the loop's numbering goes on across runs in one process). */
  readonly ids: { pair: number; a: number; b: number };
}

/** Two counters run to their end on a virtual clock, recorded as the host records a run (await details kept). */
async function recordCounters(): Promise<Recorded> {
  const owner = { finished: false, lints: [] as Lint[] };
  const run: RecordingOwner = {
    id: 3,
    target: TARGET,
    siteUrl: undefined,
    get finished() {
      return owner.finished;
    },
    lints: { lints: () => owner.lints },
    // counter-a is alive in the present with its site known; the others are not.
    tasks: { createdSiteOf: (id) => (id === ids.a ? SITE : null) },
  };
  const ids = { pair: 0, a: 0, b: 0 };
  const after = new Map<number, { streams: RecordedStreams; notes: TableNotes }>();
  const recorder: RunRecorder = new RunRecorder({
    clock: new VirtualClock(),
    awaitDetails: true,
    afterTick: (tick) => after.set(tick, { streams: recorder.streamsSoFar(), notes: copyNotes(recorder.tableNotes()) }),
  });
  const recording = new RunRecording(run, recorder, false);
  const seen: Seen[] = [];
  const count = coroutine(function* count(upTo: number, pause: number, look: boolean): Coroutine<number> {
    for (let n = 1; n <= upTo; n++) {
      if (look)
        seen.push({
          ticks: recording.recordedTicks('probe'),
          live: recording.recordingLive(),
          midTick: n === 3 ? recording.streamsMidTick() : null,
        });
      yield* sleep(pause);
    }
    return upTo;
  });
  const pair = coroutine(function* pair(): Coroutine<number[]> {
    const loop = getRunningLoop();
    const a = loop.createTask(count(6, 0.01, true), { name: 'counter-a' });
    const b = loop.createTask(count(4, 0.025, false), { name: 'counter-b' });
    ids.a = a.id;
    ids.b = b.id;
    return yield* gather(a, b);
  });
  const loop = new EventLoop({ clock: recorder.clock });
  recorder.attach(loop);
  try {
    const main = loop.createTask(pair(), { name: 'pair' });
    ids.pair = main.id;
    await loop.runUntilComplete(main);
    owner.lints.push({ kind: 'neverAwaited', message: 'a coroutine was never awaited', tick: 2 });
    owner.finished = true;
    recording.finish();
  } finally {
    recorder.detach();
    loop.close();
  }
  assert.ok(recording.streams !== null);
  return { recording, owner, streams: recording.streams, after, seen, ids };
}

function ownerOf(target: LaunchTarget = TARGET, siteUrl?: string): RecordingOwner {
  return { id: 4, target, siteUrl, finished: true, lints: { lints: () => [] }, tasks: { createdSiteOf: () => null } };
}

function saved(streams: RecordedStreams, notes: TableNotes | null, lints: Lint[] = []): SavedRecording {
  return {
    program: { target: TARGET, options: {}, siteUrl: null, frames: false },
    streams,
    lints,
    notes,
    urlFailures: [],
  };
}

/** An opened copy (a line replay host's) of `streams`. */
function openedCopy(streams: RecordedStreams, notes: TableNotes | null, target: LaunchTarget = TARGET): RunRecording {
  const r = new RunRecording(ownerOf(target), null, false);
  r.open('copy.corotrace', saved(streams, notes), true);
  return r;
}

function refused(code: string, message: RegExp): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof ProtocolError, String(e));
    assert.equal(e.code, code);
    assert.match(e.message, message);
    return true;
  };
}

/** The growth from `copy` (its streams and notes at a tick) to the whole recording `r`, as a growth file says it. */
function growthOf(copy: { streams: RecordedStreams; notes: TableNotes }, r: Recorded, lints: Lint[] = []): ReadGrowth {
  const s = copy.streams;
  const n = copy.notes;
  const from: RecordingMark = {
    events: s.events.length,
    gaps: s.gaps.length,
    payload: s.payload.length,
    details: n.details!.length,
    awaitTasks: n.awaitTasks!.length,
    outcomes: n.outcomes!.length,
    cancels: n.cancels!.length,
    lints: 0,
  };
  const whole = r.streams;
  const all = r.recording.tableNotes()!;
  const got = bytesSince(wholeRecording(whole), from);
  return {
    from,
    to: { ...from, ...got.to },
    counts: { ticks: whole.ticks, steps: whole.steps, tasks: whole.tasks, sockets: whole.sockets },
    bytes: got.bytes,
    notes: {
      details: all.details!.slice(from.details),
      awaitTasks: all.awaitTasks!.slice(from.awaitTasks),
      outcomes: all.outcomes!.slice(from.outcomes),
      cancels: (all.cancels ?? []).slice(from.cancels),
    },
    lints,
  };
}

/** The task table of `r` at each tick, as rows (what a RecordedMoment shows). */
function tablesOf(r: RunRecording, upTo: number): unknown[] {
  const tasks = r.recordedTasksNow();
  const out: unknown[] = [];
  for (let tick = 1; tick <= upTo; tick++) out.push(tasks.tableAt(tick, 100).rows);
  return out;
}

test('a live recording counts only its complete ticks; finished, its streams are whole', async () => {
  const r = await recordCounters();
  // The ticks complete when each step of counter-a ran (the tick it ran in is not one of them).
  assert.deepEqual(
    r.seen.map((s) => [s.ticks, s.live]),
    [
      [1, true],
      [3, true],
      [5, true],
      [9, true],
      [11, true],
      [13, true],
    ],
  );
  // Mid-tick, the streams run through the start of the open tick (tick 6): it is not counted.
  const mid = r.seen[2]!.midTick!;
  assert.equal(mid.openTick, true);
  assert.equal(mid.ticks, 6);
  assert.equal(new RunRecording(ownerOf(), null, false).recorded, false);
  assert.equal(r.recording.recordingLive(), false);
  assert.equal(r.recording.recorded, true);
  assert.equal(r.recording.recordedTicks('x'), r.streams.ticks);
  assert.equal(r.recording.what, 'run 3');
  const now = r.recording.recordingNow()!;
  assert.deepEqual(now.mark, {
    events: r.streams.events.length,
    gaps: r.streams.gaps.length,
    payload: r.streams.payload.length,
  });
  assert.deepEqual(now.counts, { ticks: r.streams.ticks, steps: r.streams.steps, tasks: 3, sockets: 0 });
  // An opened recording read through its open tick counts the ticks before it.
  assert.equal(openedCopy(mid, null).recordedTicks('x'), 5);
});

test('a run not recorded: every reading of its recording is refused notRecorded, naming the request', () => {
  const r = new RunRecording(ownerOf(), null, false);
  assert.equal(r.recordingNow(), null);
  assert.equal(r.streamsMidTick(), null);
  assert.throws(
    () => r.recordedTicks('seekTick'),
    refused('notRecorded', /^seekTick: run 4 was not recorded: launch it/),
  );
  assert.throws(() => r.timeline(0), refused('notRecorded', /^timeline: run 4 was not recorded/));
});

test("the timeline: a lane per task, the live task's creation site, failed URLs by tick and task", async () => {
  const r = await recordCounters();
  const { pair, a, b } = r.ids;
  r.recording.urlFailures.add({ tick: 2, taskId: a, url: 'http://a/', description: 'counter-a: a failed' });
  r.recording.urlFailures.add({ tick: 9, taskId: b, url: 'http://b/', description: 'counter-b: b failed' });
  const whole = r.recording.timeline(0);
  assert.equal(whole.runId, 3);
  assert.equal(whole.live, false);
  assert.equal(whole.ticks, r.streams.ticks);
  assert.deepEqual(
    whole.lanes.map((l) => [l.taskId, l.name, l.parentId, l.endState, l.createdSite ?? null]),
    [
      [pair, 'pair', null, 'done', null],
      [a, 'counter-a', pair, 'done', SITE],
      [b, 'counter-b', pair, 'done', null],
    ],
  );
  assert.deepEqual(
    whole.urlFailures?.map((f) => f.url),
    ['http://a/', 'http://b/'],
  );
  // After tick 2: only what is new; counter-b's lane only: its failure only.
  assert.deepEqual(
    r.recording.timeline(2).urlFailures?.map((f) => f.url),
    ['http://b/'],
  );
  const lane = r.recording.timeline(0, b);
  assert.deepEqual(
    lane.lanes.map((l) => l.taskId),
    [b],
  );
  assert.deepEqual(
    lane.urlFailures?.map((f) => f.url),
    ['http://b/'],
  );
});

test('lints and notes: the live run reports its own; an opened recording, those saved with it', async () => {
  const r = await recordCounters();
  assert.deepEqual(r.recording.lintsThen(), r.owner.lints);
  assert.equal(r.recording.awaitDetails(), r.recording.tableNotes()!.details);
  const lint: Lint = { kind: 'slowCallback', message: 'slow', seconds: 0.2, tick: 4 };
  const opened = new RunRecording(ownerOf(), null, false);
  opened.open('saved.corotrace', saved(r.streams, null, [lint]), false);
  assert.equal(opened.what, 'saved.corotrace');
  assert.deepEqual(opened.lintsThen(), [lint]);
  assert.equal(opened.tableNotes(), null);
  assert.equal(opened.awaitDetails(), null);
  assert.equal(opened.following, false);
});

test('growOpened: a copy read through an open tick takes the longer recording and reads its table again', async () => {
  const r = await recordCounters();
  const mid = r.seen[2]!.midTick!;
  const copy = openedCopy(mid, null);
  // Read once (its readers made) before it grows; the open tick is read as begun, nothing in it.
  assert.equal(copy.recordedTasksNow().ticks, 6);
  assert.equal(copy.growOpened(saved(r.streams, r.recording.tableNotes()), true), true);
  assert.equal(copy.recordedTicks('x'), r.streams.ticks);
  assert.equal(copy.following, true);
  assert.deepEqual(tablesOf(copy, r.streams.ticks), tablesOf(r.recording, r.streams.ticks));
});

test('growOpened refuses what is not this recording grown, and nothing changes', async () => {
  const r = await recordCounters();
  const at4 = r.after.get(4)!;
  const at6 = r.after.get(6)!;
  const whole = saved(r.streams, null);
  const cases: Array<[string, RunRecording, SavedRecording]> = [
    ['not opened', r.recording, whole],
    ['shorter', openedCopy(at6.streams, null), saved(at4.streams, null)],
    ['another target', openedCopy(at4.streams, null, { kind: 'program', path: '/programs/other.ts' }), whole],
    ['frames', openedCopy(at4.streams, null), { ...whole, program: { ...whole.program, frames: true } }],
    [
      'site',
      openedCopy(at4.streams, null),
      { ...whole, program: { ...whole.program, siteUrl: 'http://127.0.0.1:1/' } },
    ],
    [
      'not a prefix',
      openedCopy(at4.streams, null),
      saved({ ...r.streams, events: Buffer.concat([Buffer.from([0xff]), r.streams.events]) }, null),
    ],
  ];
  for (const [why, copy, grown] of cases) {
    const ticks = copy.recordedTicks('x');
    assert.equal(copy.growOpened(grown), false, why);
    assert.equal(copy.recordedTicks('x'), ticks, why);
  }
  // The same, the target as recorded: taken.
  assert.equal(openedCopy(at4.streams, null).growOpened(whole), true);
});

test('growInPlace: a copy between ticks grows by what was added, its table read on from where it was', async () => {
  const r = await recordCounters();
  const at5 = r.after.get(5)!;
  const copy = openedCopy(at5.streams, at5.notes);
  assert.equal(copy.recordedTicks('x'), 5);
  assert.equal(copy.recordedTasksNow().ticks, 5);
  const lint: Lint = { kind: 'slowCallback', message: 'slow', seconds: 0.3, tick: 7 };
  const growth = growthOf(at5, r, [lint]);
  assert.equal(copy.growInPlace(growth, false), r.streams.ticks);
  assert.equal(copy.recordedTicks('x'), r.streams.ticks);
  assert.equal(copy.following, false);
  assert.deepEqual(copy.lintsThen(), [lint]);
  assert.deepEqual(copy.tableNotes(), copyNotes(r.recording.tableNotes()));
  assert.deepEqual(tablesOf(copy, r.streams.ticks), tablesOf(r.recording, r.streams.ticks));
  // The same growth again does not start where the copy ends now.
  assert.throws(
    () => copy.growInPlace(growth, false),
    refused('badState', /^growRecording: run 4's recording ends at /),
  );
  assert.equal(copy.recordedTicks('x'), r.streams.ticks);
});

test('growInPlace refuses a copy not between ticks, a live run, and bytes that do not continue it', async () => {
  const r = await recordCounters();
  const at5 = r.after.get(5)!;
  const growth = growthOf(at5, r);
  const notBetween = /^growRecording: run \d+ is not an opened copy of a run between ticks$/;
  assert.throws(() => r.recording.growInPlace(growth, false), refused('badState', notBetween));
  assert.throws(
    () => openedCopy(r.seen[2]!.midTick!, null).growInPlace(growth, false),
    refused('badState', notBetween),
  );
  const copy = openedCopy(at5.streams, at5.notes);
  const bad: ReadGrowth = { ...growth, bytes: { ...growth.bytes, events: Buffer.from([0xff, 0xff, 0xff]) } };
  assert.throws(() => copy.growInPlace(bad, true), refused('badRecording', /^growRecording: /));
  assert.equal(copy.recordedTicks('x'), 5);
  assert.deepEqual(copy.tableNotes(), at5.notes);
});
