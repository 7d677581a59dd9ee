// `coroscope replay FILE` of a `coroscope run --record` recording: the program is loaded and
// run again exactly as `coroscope run` ran it (user-program.ts: the same steps, the same
// arguments), its first run() on a loop fed by the recording (runtime/record: the recorded
// clock and socket inputs, the network never used), and the replay is checked against the
// recording. The program's output is printed again as it runs; a failure as its traceback.
//
// Exit codes: the program's own (process.exitCode) for a run that succeeded, 1 replayed a failed run (its traceback on
// stderr) or the recording refused (corrupt, changed sources, the program gone) or the replay
// diverged from it.

import { setCoroutineTracking } from '../coroutine';
import { EventLoop } from '../loop';
import { TaskRecorder } from '../inspect/task-recorder';
import { ExceptionTracer } from '../inspect/traces';
import { ProgramLoadError } from '../host/main-thread/program-loader';
import { outsideCanceller, type RecordedProgram } from '../host/main-thread/launch-programs';
import { unpackAskedCancels } from '../record/await-details';
import { RecordingError } from '../record/recording-errors';
import type { Recording } from '../record/recording-file';
import type { RunLog } from '../record/run-log';
import { RunReplay } from '../record/run-replay';
import { failureText } from './run-command';
import { startUserProgram } from '../host/main-thread/user-program';

/** True when the recording was made by `coroscope run --record`. */
export function isRunRecording(rec: Recording): boolean {
  return rec.meta.program.cli === 'run';
}

/**
 * Replays a `coroscope run` recording; resolves with the exit code. With `dumpAfterTick`, the replay pauses after
 * that tick and `dump` is called with the loop there (the program's own output meanwhile goes to stderr, so that
 * stdout holds only the dump); the replay is checked against the recording up to there, and a run() that ended
 * before the tick is a RecordingError.
 */
export async function replayRunRecording(
  rec: Recording,
  log: RunLog,
  file: string,
  program: RecordedProgram,
  dumpAfterTick: number | null = null,
  dump: (loop: EventLoop, tick: number) => void = () => undefined,
): Promise<number> {
  const target = program.target;
  if (target.kind !== 'program')
    throw new RecordingError(`${file} is corrupt: a coroscope run recording names a ${target.kind} launch`);
  const argvValue: unknown = rec.meta.program.argv;
  if (!Array.isArray(argvValue) || !argvValue.every((a): a is string => typeof a === 'string'))
    throw new RecordingError(`${file} is corrupt: the program's arguments it records are not a list of strings`);
  const tracer = new ExceptionTracer();
  tracer.install();
  // Frames are tracked for a dump (who created whom, the coroutine stacks): what runs is the same.
  if (program.frames || dumpAfterTick !== null) setCoroutineTracking(true);
  let stopped: (loop: EventLoop) => void = () => undefined;
  const atTick = new Promise<EventLoop>((resolve) => (stopped = resolve));
  const replay = new RunReplay(log, rec.events, file, {
    frames: program.frames,
    cancelFromOutside: outsideCanceller(() => unpackAskedCancels(rec.meta.askedCancels), null),
    ...(dumpAfterTick !== null
      ? { stopAfterTick: dumpAfterTick, onStop: (_t: number, loop: EventLoop) => stopped(loop) }
      : {}),
  });
  const restoreStdout = dumpAfterTick !== null ? stdoutToStderr() : () => undefined;
  let started;
  try {
    started = startUserProgram(target.path, target.exportName ?? 'main', argvValue, {
      newLoop(options, n) {
        let loop: EventLoop;
        if (n === 1) {
          loop = new EventLoop({ ...options, clock: replay.clock });
          replay.attach(loop);
        } else loop = new EventLoop(options);
        TaskRecorder.attach(loop);
        return loop;
      },
    });
  } catch (e) {
    restoreStdout();
    if (e instanceof ProgramLoadError)
      throw new RecordingError(`${file}: the program it records cannot be loaded again: ${e.message}`);
    throw e;
  }
  // The run()'s own rejection is told by firstRun; a program that leaves it unhandled is not failing the replay twice.
  const swallow = (reason: unknown): void => void reason;
  process.on('unhandledRejection', swallow);
  if (dumpAfterTick !== null) {
    let reached: EventLoop | null;
    try {
      reached = await Promise.race([atTick, started.firstRun.then(() => null)]);
    } finally {
      restoreStdout();
    }
    replay.verify();
    if (reached === null)
      throw new RecordingError(`${file}: the replayed program's run() ended before tick ${dumpAfterTick}`);
    dump(reached, dumpAfterTick);
    return 0;
  }
  const { outcome, main } = await started.firstRun;
  replay.verify();
  // The program's own exit status, as `coroscope run` left it to the program.
  if (outcome.ok) return typeof process.exitCode === 'number' ? process.exitCode : 0;
  process.stderr.write(failureText(tracer, outcome.error, main));
  return 1;
}

/** Until the returned function is called, what is written to stdout goes to stderr (the program's own output). */
function stdoutToStderr(): () => void {
  const write = process.stdout.write;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return () => {
    process.stdout.write = write;
  };
}
