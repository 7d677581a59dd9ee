// RunPast (runtime/host/main-thread/run-past.ts) on a program recorded in-process on a virtual
// clock: a seek answered from the log at once, then its landing told; the ordered `viewedTick` log
// with each seek's moment id; a scrub whose earlier tick is never shown and whose waiters are
// refused `superseded`; a replay that diverges told as replayError; refusals of bad ticks and of a
// run not recorded; an opened recording's present (its last tick) and the rewind made for it. The
// rewind is the real one; a test holds its seeks back (HeldRewind) to order them against the views.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { LaunchTarget, ViewedMoment } from '../../../../protocol/host-protocol';
import { ProtocolError } from '../../../../protocol/rpc';
import { EventLoop } from '../../../../runtime/loop';
import { VirtualClock } from '../../../../runtime/clock';
import { RunRecorder } from '../../../../runtime/record/run-recorder';
import { FIRST_STRETCH } from '../../../../runtime/host/shared/hit-scan';
import { startMain } from '../../../../runtime/host/main-thread/launch-programs';
import { PastMoment } from '../../../../runtime/host/main-thread/past-moment';
import { RecordedMoment } from '../../../../runtime/host/main-thread/recorded-moment';
import { RunPast, type MakeRewind, type PastOfRun } from '../../../../runtime/host/main-thread/run-past';
import { RunRecording, type RecordingOwner } from '../../../../runtime/host/main-thread/run-recording';
import { RunRewind, type Leaders, type RewindSource } from '../../../../runtime/host/main-thread/run-rewind';
import type { Emit } from '../../../../runtime/host/main-thread/run-services';

const COUNTERS = join(__dirname, '..', 'fixtures', 'counters.ts');

/** A RunRewind whose seeks wait, while `held`, until the test lets them go (in the order asked). */
class HeldRewind extends RunRewind {
  held = true;
  private waiting: Array<() => void> = [];

  override seek(tick: number, wanted: () => boolean = () => true): Promise<PastMoment> {
    if (!this.held) return super.seek(tick, wanted);
    return new Promise<void>((go) => this.waiting.push(go)).then(() => super.seek(tick, wanted));
  }

  /** Lets every seek held so far go on to the real rewind. */
  letGo(): void {
    this.held = false;
    for (const go of this.waiting.splice(0)) go();
  }
}

function ownerOf(target: LaunchTarget): RecordingOwner {
  return {
    id: 1,
    target,
    siteUrl: undefined,
    finished: true,
    lints: { lints: () => [] },
    tasks: { createdSiteOf: () => null },
  };
}

/** The fixture's `main` run to its end on a virtual clock, recorded as the host records a run. */
async function recordCounters(): Promise<RunRecording> {
  const target: LaunchTarget = { kind: 'program', path: COUNTERS, exportName: 'main' };
  const recorder = new RunRecorder({ clock: new VirtualClock(), awaitDetails: true });
  const recording = new RunRecording(ownerOf(target), recorder, false);
  const loop = new EventLoop({ clock: recorder.clock });
  recorder.attach(loop);
  try {
    await loop.runUntilComplete(startMain(loop, target, {}, null).task);
    recording.finish();
  } finally {
    recorder.detach();
    loop.close();
  }
  return recording;
}

interface Setup {
  readonly past: RunPast;
  readonly ticks: number;
  /** Every `viewedTick` emitted, in order. */
  readonly told: ViewedMoment[];
  /** The rewind RunPast made (made at once here), with what it was made from. */
  readonly made: { readonly rewind: HeldRewind; readonly source: RewindSource; readonly leaders: Leaders | null };
}

/** A RunPast of `recording`, replaying the fixture's export `replays` (another than recorded: it diverges). */
function pastOf(recording: RunRecording, replays = 'main', finished = true): Setup {
  const told: ViewedMoment[] = [];
  const emit: Emit = (event, body) => {
    assert.equal(event, 'viewedTick');
    told.push(body as ViewedMoment);
  };
  const run: PastOfRun = {
    id: 1,
    inspect: false,
    loop: new EventLoop({ clock: new VirtualClock() }),
    finished,
    target: { kind: 'program', path: COUNTERS, exportName: replays },
    options: { record: true },
    siteUrl: undefined,
    sampleInputs: {},
    cliArgv: undefined,
    recording,
  };
  const holder: { made: Setup['made'] | null } = { made: null };
  const makeRewind: MakeRewind = (source, leaders) => {
    const rewind = new HeldRewind(source, 1e9, leaders);
    holder.made = { rewind, source, leaders };
    return rewind;
  };
  const past = new RunPast(run, emit, makeRewind);
  past.rewindOf();
  assert.ok(holder.made !== null);
  return { past, ticks: recording.streams?.ticks ?? 0, told, made: holder.made };
}

function refusedWith(code: string, message: RegExp): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof ProtocolError, String(e));
    assert.equal(e.code, code);
    assert.match(e.message, message);
    return true;
  };
}

test('a seek is answered from the log at once, then its landing is told: both viewedTick carry its id', async () => {
  const { past, ticks, told, made } = pastOf(await recordCounters());
  assert.ok(ticks >= 10, `ticks ${ticks}`);
  assert.deepEqual(past.viewedMoment(), { runId: 1, tick: null, ticks });

  const answer = await past.seekTick(5, false, 'panel:1');
  assert.deepEqual(answer, { runId: 1, tick: 5, ticks, replayed: false, moment: 'panel:1' });
  const meanwhile = past.momentNow();
  assert.ok(meanwhile instanceof RecordedMoment);
  assert.equal(meanwhile.tick, 5);
  assert.deepEqual(told, [answer]);

  // What needs the replayed program waits for the landing, and gets tick 5's.
  const asked = past.withReplayed('variables', 'present', (m) => m);
  made.rewind.letGo();
  const landed = await asked;
  assert.ok(landed instanceof PastMoment);
  assert.equal(landed.tick, 5);
  assert.equal(past.momentNow(), landed);
  assert.equal(past.viewed, landed);
  assert.deepEqual(told, [answer, { runId: 1, tick: 5, ticks, replayed: true, moment: 'panel:1' }]);
  past.close();
});

test('the tick viewed sought again is answered replayed at once; the present (null) ends the past view', async () => {
  const { past, ticks, told, made } = pastOf(await recordCounters());
  made.rewind.letGo();
  const landed = await past.seekTick(4, true, 'a');
  assert.deepEqual(landed, { runId: 1, tick: 4, ticks, replayed: true, moment: 'a' });
  const before = told.length;
  const again = await past.seekTick(4, false, 'b');
  assert.deepEqual(again, { runId: 1, tick: 4, ticks, replayed: true, moment: 'b' });
  assert.deepEqual(told.slice(before), [again]);

  const present = await past.seekTick(null);
  assert.deepEqual(present, { runId: 1, tick: null, ticks });
  assert.equal(past.momentNow(), null);
  assert.equal(past.viewed, null);
  assert.equal(
    past.withReplayed('variables', 'present', (m) => m),
    'present',
  );
  past.close();
});

test('a scrub: the tick left before its replay lands is never told replayed, and its waiters are refused superseded', async () => {
  const { past, ticks, told, made } = pastOf(await recordCounters());
  const firstLanded = past.seekTick(3, true, 's:1');
  await past.inTurn(async () => undefined);
  const variablesThen = Promise.resolve(past.withReplayed('variables', 'present', (m) => m));
  const secondLanded = past.seekTick(7, true, 's:2');
  made.rewind.letGo();
  await assert.rejects(firstLanded, refusedWith('superseded', /^seekTick: tick 3 is no longer viewed$/));
  await assert.rejects(
    variablesThen,
    refusedWith('superseded', /^variables: the views moved on from tick 3 before its replay landed$/),
  );
  assert.deepEqual(await secondLanded, { runId: 1, tick: 7, ticks, replayed: true, moment: 's:2' });
  assert.deepEqual(
    told.map((m) => [m.tick, m.replayed, m.moment]),
    [
      [3, false, 's:1'],
      [7, false, 's:2'],
      [7, true, 's:2'],
    ],
  );
  assert.equal((past.momentNow() as PastMoment).tick, 7);
  past.close();
});

test('a replay that is not the recorded run: the views are told its replayError, its waiters get the reason', async () => {
  const { past, ticks, told, made } = pastOf(await recordCounters(), 'other');
  made.rewind.letGo();
  await past.seekTick(6, false, 'd');
  const locals = Promise.resolve(past.withReplayed('variables', 'present', (m) => m));
  const refused = await locals.then(
    () => assert.fail('answered for a replay that diverged'),
    (e: unknown) => e,
  );
  const failed = told.at(-1)!;
  assert.equal(told.length, 2);
  const { replayError, ...rest } = failed;
  assert.deepEqual(rest, { runId: 1, tick: 6, ticks, replayed: false, moment: 'd' });
  assert.match(
    replayError ?? '',
    /^seekTick: cannot replay run 1: the replayed run differs from the recorded one at tick 0 /,
  );
  // The waiter gets the same reason, named by what it asked.
  assert.ok(refused instanceof ProtocolError);
  assert.equal(refused.message, `variables: ${replayError}`);
  assert.deepEqual(past.viewedMoment(), failed);
  await assert.rejects(past.seekTick(6, true), (e: unknown) => e instanceof Error);
  past.close();
});

test('refusals: ticks outside 1..ticks (badTick), nothing told; a run not recorded (notRecorded)', async () => {
  const { past, ticks, told } = pastOf(await recordCounters());
  assert.ok(ticks > 0);
  await assert.rejects(
    past.seekTick(0),
    refusedWith('badTick', new RegExp(`has ticks 1\\.\\.${ticks} recorded, not 0$`)),
  );
  await assert.rejects(past.seekTick(ticks + 1), refusedWith('badTick', new RegExp(`not ${ticks + 1}$`)));
  assert.deepEqual(told, []);
  // A refused seek does not stop the ones after it.
  assert.deepEqual(await past.seekTick(null), { runId: 1, tick: null, ticks });

  const target: LaunchTarget = { kind: 'program', path: COUNTERS };
  const unrecorded = pastOf(new RunRecording(ownerOf(target), null, false)).past;
  await assert.rejects(unrecorded.seekTick(1), refusedWith('notRecorded', /^seekTick: run 1 was not recorded/));
  past.close();
});

test("an opened recording: the present is its last tick; its rewind keeps leaders and follows a copy's run", async () => {
  const live = await recordCounters();
  const streams = live.streams!;
  const opened = new RunRecording(ownerOf({ kind: 'program', path: COUNTERS }), null, false);
  const saved = {
    program: { target: { kind: 'program' as const, path: COUNTERS }, options: {}, siteUrl: null, frames: false },
    streams,
    lints: [],
    notes: null,
    urlFailures: [],
  };
  opened.open('counters.corotrace', saved, true);
  const s = pastOf(opened);
  s.made.rewind.letGo();
  const present = s.past.seekTick(null, false, 'o');
  s.made.rewind.letGo();
  assert.deepEqual(await present, {
    runId: 1,
    tick: streams.ticks,
    ticks: streams.ticks,
    replayed: false,
    moment: 'o',
  });
  assert.deepEqual(s.made.leaders, { count: 2, lag: FIRST_STRETCH, share: 0.5 });
  assert.equal(s.made.source.what, 'counters.corotrace');
  // A copy of a run still going (following): live but never busy here.
  assert.deepEqual(s.made.source.live?.(), { busy: false });
  s.past.close();

  // A finished live run's rewind: no leaders, not live.
  const done = pastOf(live);
  done.past.rewindOf();
  assert.equal(done.made.leaders, null);
  assert.equal(done.made.source.live?.(), null);
  done.past.close();
});

test('a traced moment is shown without a seek id; close() forgets what was viewed', async () => {
  const { past, ticks, made } = pastOf(await recordCounters());
  made.rewind.letGo();
  await past.seekTick(2, true, 'x');
  const traced = await past.rewindOf().seek(9);
  past.showTraced(traced);
  assert.deepEqual(past.viewedMoment(), { runId: 1, tick: 9, ticks, replayed: true });
  assert.equal(past.momentNow(), traced);
  past.close();
  assert.deepEqual(past.viewedMoment(), { runId: 1, tick: null, ticks });
});
