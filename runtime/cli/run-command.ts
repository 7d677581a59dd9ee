// `coroscope run FILE [--record OUT] [--inspect] [--export NAME] [-- ARGS…]`: runs a user's
// program (user-program.ts) on the runtime from the command line; --inspect opens the inspect
// socket, --record records the first run() for `coroscope replay`.
//
// Invariants: the program's output is untouched and its exit status is its own; a failed first
// run() prints its coroutine traceback on stderr and exits 1; a loop waiting on what nothing can
// complete says so (task tree, await cycles) and exits 1; bad arguments exit 2.

import { resolve } from 'node:path';
import { CancelledError } from '../errors';
import { setCoroutineTracking } from '../coroutine';
import { EventLoop } from '../loop';
import type { Task } from '../task';
import { formatAwaitCycles, formatPsTree } from '../inspect/dumps';
import { ExceptionTracer, errorText } from '../inspect/traces';
import { TaskRecorder } from '../inspect/task-recorder';
import { ProgramLoadError } from '../host/main-thread/program-loader';
import { recordedProgram } from '../host/main-thread/launch-programs';
import { RunRecorder } from '../record/run-recorder';
import { RecordingError } from '../record/recording-errors';
import { unwritableRecordingPath, writeRecordingFile } from '../record/recording-file';
import { packTableNotes } from '../record/await-details';
import { programSources } from '../record/source-hashes';
import { UsageError } from './args';
import { InspectEndpoint } from './inspect-endpoint';
import { startUserProgram, type RunOutcome } from '../host/main-thread/user-program';

export interface RunArgs {
  file: string;
  exportName: string;
  record: string | null;
  inspect: boolean;
  programArgs: string[];
}

/**
 * Options anywhere before `--` (the file is the first word that is not one); words after `--` and after the
 * file's arguments go to the program.
 */
export function parseRunArgs(args: readonly string[]): RunArgs {
  const out: RunArgs = { file: '', exportName: 'main', record: null, inspect: false, programArgs: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      out.programArgs.push(...args.slice(i + 1));
      break;
    }
    if (a === '--inspect') out.inspect = true;
    else if (a === '--record') {
      const v = args[++i];
      if (v === undefined || v === '' || v.startsWith('-'))
        throw new UsageError('--record needs the name of the .corotrace file to write');
      out.record = v;
    } else if (a === '--export') {
      const v = args[++i];
      if (v === undefined || !/^[A-Za-z_$][\w$]*$/.test(v))
        throw new UsageError('--export needs the name of the exported main coroutine function');
      out.exportName = v;
    } else if (a.startsWith('-'))
      throw new UsageError(`unknown option ${a} for run (see coroscope --help; the program's own options go after --)`);
    else if (out.file === '') out.file = a;
    else out.programArgs.push(a);
  }
  if (out.file === '') throw new UsageError('run needs the program to run (a .js or .ts file)');
  return out;
}

/** The coroutine traceback of a run()'s failure (its main task's, through every task the error passed). */
export function failureText(tracer: ExceptionTracer, error: unknown, main: Task<unknown> | null): string {
  if (error instanceof CancelledError && main === null) return `${errorText(error)}\n`;
  if (main === null) return `${error instanceof Error ? (error.stack ?? errorText(error)) : errorText(error)}\n`;
  return `${tracer.tracebackOf(main, error).text}\n`;
}

/** Runs the command: resolves with the exit code, or null to leave it to the program (its process.exitCode). */
export async function runRunCommand(argv: readonly string[]): Promise<number | null> {
  const args = parseRunArgs(argv);
  const unwritable = args.record === null ? null : unwritableRecordingPath(args.record);
  if (unwritable !== null) {
    process.stderr.write(`coroscope run: --record ${args.record}: ${unwritable}\n`);
    return 2;
  }
  const tracer = new ExceptionTracer();
  tracer.install();
  if (args.inspect) setCoroutineTracking(true);
  let endpoint: InspectEndpoint | null = null;
  if (args.inspect) {
    try {
      endpoint = await InspectEndpoint.open();
    } catch (e) {
      // The program runs all the same (frames tracked); only ps/pstree cannot reach it.
      process.stderr.write(
        `coroscope run: --inspect: coroscope ps/pstree will not answer: ${e instanceof Error ? e.message : String(e)}\n`,
      );
    }
  }
  let recorder: RunRecorder | null = null;
  /** Failures of the program's run() calls, by error: printed if the program leaves them unhandled. */
  const failures = new Map<unknown, string>();
  let started;
  try {
    started = startUserProgram(args.file, args.exportName, args.programArgs, {
      newLoop(options, n) {
        let loop: EventLoop;
        if (n === 1 && args.record !== null) {
          recorder = new RunRecorder({ frames: args.inspect, awaitDetails: true });
          loop = new EventLoop({ ...options, clock: recorder.clock });
          recorder.attach(loop);
        } else loop = new EventLoop(options);
        TaskRecorder.attach(loop);
        endpoint?.watch(loop);
        return loop;
      },
      ended(_loop, n, outcome, main) {
        if (!outcome.ok) failures.set(outcome.error, failureText(tracer, outcome.error, main));
        if (n === 1 && recorder !== null) writeRecording(recorder, args, outcome);
      },
    });
  } catch (e) {
    if (e instanceof ProgramLoadError) {
      process.stderr.write(`coroscope run: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const program = started;
  // A run() whose rejection the program leaves unhandled ends the process as Node would (exit
  // 1), its failure printed as a coroutine traceback instead of a bare stack.
  process.on('unhandledRejection', (reason) => {
    process.stderr.write(
      failures.get(reason) ??
        `Uncaught (in promise) ${reason instanceof Error ? (reason.stack ?? errorText(reason)) : errorText(reason)}\n`,
    );
    process.exit(1);
  });
  // Node is about to exit while a run() waits: nothing (timer, socket, ready task) can wake its loop again.
  process.on('beforeExit', () => {
    const loops = program.pendingLoops().filter((l) => !l.isClosed());
    if (loops.length === 0) return;
    process.stderr.write(
      `coroscope run: the program cannot go on: its loop waits, and no timer, socket or ready task can wake it\n`,
    );
    for (const loop of loops) process.stderr.write(formatPsTree(loop) + formatAwaitCycles(loop));
    process.exit(1);
  });
  if (program.ranItself) return null;
  const { outcome } = await program.firstRun;
  if (outcome.ok) return null;
  process.stderr.write(failures.get(outcome.error) ?? failureText(tracer, outcome.error, null));
  return 1;
}

/**
 * Writes the first run()'s recording; a recording that cannot be written is said on stderr (the run itself is
 * unchanged).
 */
function writeRecording(recorder: RunRecorder, args: RunArgs, outcome: RunOutcome): void {
  const file = args.record!;
  const streams = recorder.finish();
  const program = recordedProgram({
    target: { kind: 'program', path: resolve(args.file), exportName: args.exportName },
    options: { inspect: args.inspect, record: true },
    siteUrl: null,
    frames: args.inspect,
    cliArgv: args.programArgs,
  });
  try {
    writeRecordingFile(file, {
      meta: {
        program: { ...program, failed: !outcome.ok },
        sources: programSources(),
        ticks: streams.ticks,
        steps: streams.steps,
        tasks: streams.tasks,
        sockets: streams.sockets,
        recordedAt: new Date().toISOString(),
        ...packTableNotes(recorder.tableNotes()!),
      },
      events: streams.events,
      gaps: streams.gaps,
      payload: streams.payload,
    });
    process.stderr.write(
      `coroscope run: recorded ${streams.ticks} ticks, ${streams.steps} task steps, ${streams.sockets} sockets to ${file}\n`,
    );
  } catch (e) {
    if (!(e instanceof RecordingError)) throw e;
    process.stderr.write(`coroscope run: ${e.message}\n`);
    process.exitCode = 1;
  }
}
