// `coroscope replay FILE [--dump-tasks-at-tick N] [--log FILE:LINE[:"msg"]] [--json]`: re-runs a
// recorded crawl or `coroscope run` program offline (runtime/record), feeding back the recorded
// clock readings and socket inputs, and checks the replay against the recording. It prints what
// the run printed, the hits of logpoints, or the task tree at tick N. Exit codes:
// docs/design/cli-and-demo-site.md.
//
// Invariants: the network is never used; a replay cut by a signal prints no report nor dump (it
// is not the recorded run) and says where it stopped on stderr; a refused or diverged recording
// exits 1.

import { constants as osConstants } from 'node:os';
import { parseArgs as parseCommandLine, UsageError, type CrawlCommand } from './args';
import { crawlWithCoroutines, printCrawlOutcome } from './crawl-command';
import type { EventLoop } from '../loop';
import { formatPsTree, IDLE_KINDS } from '../inspect/dumps';
import { framesOfTasks, type TaskFrame } from '../inspect/task-snapshot';
import { summarizeTasks } from '../inspect/task-summaries';
import { RecordingError } from '../record/recording-errors';
import { readRecordingFile, readRecordingLog, type Recording } from '../record/recording-file';
import { RunReplay } from '../record/run-replay';
import { checkSources, programSources } from '../record/source-hashes';
import { outsideCanceller, readRecordedProgram, type RecordedProgram } from '../host/main-thread/launch-programs';
import { unpackAskedCancels } from '../record/await-details';
import { isRunRecording, replayRunRecording } from './program-replay';
import { replayLogpoints } from './replay-logpoints';
import { parseReplayArgs, type ReplayArgs } from './replay-args';

/** The crawl a recording ran (launch-programs.ts reads it), and the command that prints it as the recording CLI did. */
function recordedCrawl(rec: Recording, file: string): { program: RecordedProgram; cmd: CrawlCommand } {
  const program = readRecordedProgram(rec.meta.program, file);
  const kind = program.target.kind;
  if (kind !== 'crawl' && kind !== 'demo')
    throw new RecordingError(
      `${file} records a ${kind} run; coroscope replay re-runs crawls (open it in VS Code: Coroscope: Open Recording…)`,
    );
  const defaults = parseCommandLine(['crawl', '--demo']) as CrawlCommand;
  // How the recording CLI printed it (a recording VS Code saved: as text).
  const json = rec.meta.program.json === true;
  const roots = kind === 'demo' ? [program.siteUrl!] : program.target.kind === 'crawl' ? program.target.urls : [];
  return {
    program,
    cmd: { ...defaults, roots, demo: false, record: null, quiet: true, json, inspect: program.frames },
  };
}

/**
 * Ctrl-C and SIGTERM, from now until remove(): `signal` resolves with the first one (this process's own,
 * never the recorded crawl's).
 */
function interruptions(): { readonly signal: Promise<NodeJS.Signals>; remove(): void } {
  let heard: (sig: NodeJS.Signals) => void = () => undefined;
  const signal = new Promise<NodeJS.Signals>((resolve) => (heard = resolve));
  const on = (sig: NodeJS.Signals): void => heard(sig);
  process.once('SIGINT', on);
  process.once('SIGTERM', on);
  return {
    signal,
    remove: () => {
      process.removeListener('SIGINT', on);
      process.removeListener('SIGTERM', on);
    },
  };
}

export async function runReplayCommand(argv: readonly string[]): Promise<number> {
  const args = parseReplayArgs(argv);
  if (args.logpoints.length > 0) return replayLogpoints(args.file, args.logpoints, args.json);
  const interrupt = interruptions();
  try {
    return await replayFile(args, interrupt.signal);
  } finally {
    interrupt.remove();
  }
}

/** Replays `args.file` (the report, or the dump at a tick); an `interrupted` signal stops it where it is. */
async function replayFile(args: ReplayArgs, interrupted: Promise<NodeJS.Signals>): Promise<number> {
  let replay: RunReplay;
  try {
    const rec = readRecordingFile(args.file);
    checkSources(rec.meta.sources, programSources(), args.file);
    if (isRunRecording(rec)) {
      if (args.json && args.dumpAtTick === null)
        throw new UsageError(
          `${args.file} records a program run by coroscope run: its output is the program's own (--json goes with --dump-tasks-at-tick)`,
        );
      if (rec.meta.openTick === true)
        throw new RecordingError(
          `${args.file} is the recording of a run stopped mid-tick (a line replay's), not a saved recording`,
        );
      const log = readRecordingLog(rec, args.file);
      checkDumpTick(args, log.times.length);
      return await replayRunRecording(
        rec,
        log,
        args.file,
        readRecordedProgram(rec.meta.program, args.file),
        args.dumpAtTick,
        (loop, tick) => {
          process.stdout.write(args.json ? JSON.stringify(tasksAtTick(loop, tick)) + '\n' : dumpText(loop, tick));
        },
      );
    }
    const recorded = recordedCrawl(rec, args.file);
    const program = recorded.program;
    let cmd = recorded.cmd;
    if (rec.meta.openTick === true)
      throw new RecordingError(
        `${args.file} is the recording of a run stopped mid-tick (a line replay's), not a saved recording`,
      );
    const log = readRecordingLog(rec, args.file);
    checkDumpTick(args, log.times.length);
    let stopped: ((loop: EventLoop) => void) | null = null;
    const atTick = new Promise<EventLoop>((resolve) => (stopped = resolve));
    // A crawl the CLI's signal interrupted: its cancel is made again as the CLI made it, and the replay ends
    // as the crawl did.
    const signal = program.signal ?? null;
    replay = new RunReplay(log, rec.events, args.file, {
      frames: rec.meta.program.frames === true,
      stopAfterTick: args.dumpAtTick ?? undefined,
      onStop: (_tick, loop) => stopped?.(loop),
      cancelFromOutside: outsideCanceller(() => unpackAskedCancels(rec.meta.askedCancels), signal),
    });
    if (args.dumpAtTick !== null) {
      // Frames and who-created-whom are needed for the dump, and the run's own output goes to
      // stderr (json) so stdout holds only the dump; none of this changes the run.
      cmd = { ...cmd, inspect: true, json: true };
    } else if (args.json) {
      // The crawl's JSON object, whichever way the recording CLI printed it: output only, the run is the same.
      cmd = { ...cmd, json: true };
    }
    let replayed: EventLoop | null = null;
    // What the replayed loop logs (a slow callback, a task destroyed pending) is the recorded run's only once
    // the replay is verified: a replay that diverged says that alone.
    const logged: string[] = [];
    const crawl = crawlWithCoroutines(cmd, program, {
      clock: replay.clock,
      logger: { warn: (m) => void logged.push(m), error: (m) => void logged.push(m) },
      attach: (loop) => {
        replayed = loop;
        replay.attach(loop);
      },
      replayedSignal: signal,
    });
    // Between two slices of ticks (a signal is heard only then): the replay is held where it is, and ends here.
    const cut = interrupted.then((sig) => {
      (replayed as EventLoop | null)?.pause();
      return { sig };
    });
    const cutShort = (sig: NodeJS.Signals): number => {
      const what =
        args.dumpAtTick !== null
          ? `no dump: it stopped before tick ${args.dumpAtTick}`
          : 'no report printed: a replay cut short is not the recorded run (replay it whole for its report)';
      process.stderr.write(
        `coroscope replay: ${args.file}: replay interrupted by ${sig} at tick ${replay.ticksReplayed} of ${replay.ticks}; ${what}\n`,
      );
      return 128 + (osConstants.signals[sig] ?? 0);
    };
    if (args.dumpAtTick !== null) {
      const reached = await Promise.race([atTick, crawl.then(() => null), cut]);
      if (reached !== null && 'sig' in reached) return cutShort(reached.sig);
      const loop = reached;
      replay.verify();
      flush(logged);
      if (loop === null)
        throw new RecordingError(`${args.file}: the replayed crawl ended before tick ${args.dumpAtTick}`);
      process.stdout.write(
        args.json ? JSON.stringify(tasksAtTick(loop, args.dumpAtTick)) + '\n' : dumpText(loop, args.dumpAtTick),
      );
      return 0;
    }
    const outcome = await Promise.race([crawl, cut]);
    if ('sig' in outcome) return cutShort(outcome.sig);
    replay.verify();
    flush(logged);
    return printCrawlOutcome(cmd, cmd.roots, outcome);
  } catch (e) {
    if (e instanceof RecordingError) {
      process.stderr.write(`coroscope replay: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}

/** A dump's tick must be one of the recording's `ticks` (a usage error otherwise). */
function checkDumpTick(args: ReplayArgs, ticks: number): void {
  if (args.dumpAtTick !== null && args.dumpAtTick > ticks)
    throw new UsageError(`--dump-tasks-at-tick ${args.dumpAtTick}: ${args.file} has ${ticks} ticks (1 to ${ticks})`);
}

/** The replayed loop's log lines, on stderr. */
function flush(logged: readonly string[]): void {
  for (const line of logged) process.stderr.write(`${line}\n`);
}

function frameText(f: TaskFrame): string {
  return `${f.functionName || '(anonymous)'} ${f.file === null ? '(no location)' : `${f.file}:${f.line}`}`;
}

/** The task tree, then the locals of every frame of each task that is not parked waiting for work. */
function dumpText(loop: EventLoop, tick: number): string {
  const out = [
    `*** Replayed to tick ${tick} ***`,
    formatPsTree(loop),
    '',
    'Locals (tasks not parked waiting for work):',
  ];
  const tasks = loop.allTasks();
  const summaries = summarizeTasks(tasks);
  const frames = framesOfTasks(tasks, { locals: true });
  tasks.forEach((task, i) => {
    const s = summaries[i]!;
    if (s.awaiting !== null && IDLE_KINDS.has(s.awaiting.kind)) return;
    out.push(`#${s.id} ${s.name} [${s.state}]`);
    for (const f of frames.get(task) ?? []) {
      out.push(`  ${frameText(f)}`);
      for (const l of f.locals ?? []) out.push(`    ${l.name} = ${l.value.text}`);
    }
  });
  return out.join('\n') + '\n';
}

/**
 * The --json form of the dump: every live task, its await, and its frames with locals. The
 * same at every replay of the tick: a task's busy time (busyMs) is null, not known (the replay's
 * own CPU time is not the recorded run's, and the recording does not keep it).
 */
function tasksAtTick(loop: EventLoop, tick: number): unknown {
  const tasks = loop.allTasks();
  const summaries = summarizeTasks(tasks);
  const frames = framesOfTasks(tasks, { locals: true });
  return {
    tick,
    time: loop.time(),
    tasks: tasks.map((task, i) => ({
      ...summaries[i]!,
      frames: (frames.get(task) ?? []).map((f) => ({
        function: f.functionName,
        file: f.file,
        line: f.line,
        column: f.column,
        state: f.state,
        locals: (f.locals ?? []).map((l) => ({
          name: l.name,
          scope: l.scope,
          type: l.value.type,
          value: l.value.text,
        })),
      })),
    })),
  };
}
