// Tests of `coroscope replay` of a `coroscope run --record` recording (runtime/cli/program-replay.ts), in
// process: a fixture program's first run() is recorded here as run-command.ts records it (in memory, no
// file), then replayed: its exit status; the replay checked against the recording (another export diverges);
// a dump at a tick with the program's output sent to stderr meanwhile; a tick past the run refused; a
// recording that names no program, arguments that are not strings, or a program gone, refused with the reason.
// (The bundled CLI's record and replay as a user runs them: run-command.test.ts.)

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { RecordedProgram } from '../../../runtime/host/main-thread/launch-programs';
import { recordedProgram } from '../../../runtime/host/main-thread/launch-programs';
import { startUserProgram } from '../../../runtime/host/main-thread/user-program';
import { isRunRecording, replayRunRecording } from '../../../runtime/cli/program-replay';
import { TaskRecorder } from '../../../runtime/inspect/task-recorder';
import { EventLoop } from '../../../runtime/loop';
import { packTableNotes } from '../../../runtime/record/await-details';
import { ReplayDivergedError, RecordingError } from '../../../runtime/record/recording-errors';
import { readRecordingLog, type Recording } from '../../../runtime/record/recording-file';
import { RunRecorder } from '../../../runtime/record/run-recorder';

const FIXTURES = join(__dirname, '..', 'host', 'fixtures');
/** Two tasks count, sleeping between counts (on the real clock: ticks vary by run); `other` counts otherwise. */
const COUNTERS = join(FIXTURES, 'counters.ts');
/** Prints a line in each of its ticks. */
const PRINTING = join(FIXTURES, 'printing.ts');
const FILE = 'run.corotrace';

function programOf(path: string, exportName = 'main', argv: string[] = []): RecordedProgram {
  return {
    target: { kind: 'program', path, exportName },
    options: { inspect: false, record: true },
    siteUrl: null,
    frames: false,
    cliArgv: argv,
  };
}

/** Runs `write` with stdout and stderr captured; what each got. */
async function captured<T>(run: () => Promise<T>): Promise<{ value: T; stdout: string; stderr: string }> {
  const out = process.stdout.write;
  const err = process.stderr.write;
  let stdout = '';
  let stderr = '';
  process.stdout.write = ((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    return { value: await run(), stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}

/** The first run() of `program`, recorded as `coroscope run --record` records it, in memory. */
async function record(program: RecordedProgram): Promise<Recording> {
  if (program.target.kind !== 'program') throw new Error('a program, please');
  let recorder: RunRecorder | null = null;
  const started = startUserProgram(program.target.path, program.target.exportName ?? 'main', program.cliArgv ?? [], {
    newLoop(options) {
      const r = new RunRecorder({ frames: false, awaitDetails: true });
      recorder = r;
      const loop = new EventLoop({ ...options, clock: r.clock });
      r.attach(loop);
      TaskRecorder.attach(loop);
      return loop;
    },
  });
  const { outcome } = await started.firstRun;
  const r = recorder as RunRecorder | null;
  if (r === null) throw new Error('no run() was recorded');
  const streams = r.finish();
  return {
    meta: {
      program: { ...recordedProgram(program), failed: !outcome.ok },
      sources: [],
      ticks: streams.ticks,
      steps: streams.steps,
      tasks: streams.tasks,
      sockets: streams.sockets,
      recordedAt: '2026-01-01T00:00:00.000Z',
      ...packTableNotes(r.tableNotes()!),
    },
    events: streams.events,
    gaps: streams.gaps,
    payload: streams.payload,
  };
}

describe('replayRunRecording', () => {
  test('a recorded run replayed: the exit status of a run that succeeded; another export diverges', async () => {
    const program = programOf(COUNTERS, 'main', ['x']);
    const rec = await record(program);
    const log = readRecordingLog(rec, FILE);
    assert.equal(await replayRunRecording(rec, log, FILE, program), 0);
    const other = programOf(COUNTERS, 'other', ['x']);
    const { value } = await captured(() =>
      replayRunRecording(rec, log, FILE, other).then(
        () => null,
        (e: unknown) => e,
      ),
    );
    // Where in the log depends on the clock readings recorded (their encoded length): the tick does not.
    assert.ok(value instanceof ReplayDivergedError, String(value));
    assert.equal(value.tick, 1);
    assert.equal(
      value.message.startsWith(`cannot replay ${FILE}: the replayed run differs from the recorded one at tick 1 `),
      true,
    );
  });

  test("a dump at a tick: called once with the loop there; the program's output goes to stderr meanwhile", async () => {
    const program = programOf(PRINTING);
    const rec = (await captured(() => record(program))).value;
    const log = readRecordingLog(rec, FILE);
    const dumps: Array<[number, number]> = [];
    let stdoutInDump: typeof process.stdout.write | null = null;
    const { value, stdout, stderr } = await captured(async () => {
      const ours = process.stdout.write;
      const code = await replayRunRecording(rec, log, FILE, program, 3, (loop, tick) => {
        dumps.push([tick, loop.tickCount()]);
        stdoutInDump = process.stdout.write;
      });
      assert.equal(process.stdout.write, ours);
      assert.equal(stdoutInDump, ours);
      return code;
    });
    assert.equal(value, 0);
    assert.deepStrictEqual(dumps, [[3, 3]]);
    assert.equal(stdout, '');
    assert.deepStrictEqual(
      stderr.split('\n').filter((l) => l.startsWith('printed line')),
      // Loaded again for the replay: its line at load printed again.
      ['printed line at load', 'printed line 1', 'printed line 2', 'printed line 3'],
    );
  });

  test('a dump at a tick the run never reached: refused, stdout given back', async () => {
    const program = programOf(COUNTERS);
    const rec = await record(program);
    const log = readRecordingLog(rec, FILE);
    const out = process.stdout.write;
    await assert.rejects(
      replayRunRecording(rec, log, FILE, program, 100, () => assert.fail('no dump')),
      (e: unknown) =>
        e instanceof RecordingError && e.message === `${FILE}: the replayed program's run() ended before tick 100`,
    );
    assert.equal(process.stdout.write, out);
    // Checked against the recording up to there: another export's run is refused, not dumped.
    await assert.rejects(
      captured(() => replayRunRecording(rec, log, FILE, programOf(COUNTERS, 'other'), 3, () => assert.fail('no dump'))),
      (e: unknown) => e instanceof ReplayDivergedError && e.tick === 1,
    );
  });

  test('a recording naming no program, or arguments that are not strings, is corrupt; a program gone is said so', async () => {
    const program = programOf(COUNTERS);
    const rec = await record(program);
    const log = readRecordingLog(rec, FILE);
    const sample: RecordedProgram = { ...program, target: { kind: 'sample', id: 'fib' } };
    await assert.rejects(
      replayRunRecording(rec, log, FILE, sample),
      (e: unknown) =>
        e instanceof RecordingError &&
        e.message === `${FILE} is corrupt: a coroscope run recording names a sample launch`,
    );
    const badArgv: Recording = { ...rec, meta: { ...rec.meta, program: { ...rec.meta.program, argv: ['x', 3] } } };
    await assert.rejects(
      replayRunRecording(badArgv, log, FILE, program),
      (e: unknown) =>
        e instanceof RecordingError &&
        e.message === `${FILE} is corrupt: the program's arguments it records are not a list of strings`,
    );
    const gone = join(FIXTURES, 'gone.ts');
    await assert.rejects(
      replayRunRecording(rec, log, FILE, programOf(gone)),
      (e: unknown) =>
        e instanceof RecordingError &&
        e.message === `${FILE}: the program it records cannot be loaded again: program ${gone} does not exist`,
    );
  });
});

test('isRunRecording: a recording made by coroscope run, not a crawl', async () => {
  const rec = await record(programOf(COUNTERS));
  assert.equal(isRunRecording(rec), true);
  const crawl: Recording = { ...rec, meta: { ...rec.meta, program: { kind: 'crawl', cli: 'crawl' } } };
  assert.equal(isRunRecording(crawl), false);
});
