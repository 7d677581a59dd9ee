// Runs on a runtime host's main thread (a live host's, and a line replay host's). The host's
// recording files: saveRecording writes a finished recorded run as a .corotrace; openRecording
// reads one and checks it whole (format, checksum, log, source hashes, a program the host can
// start). writeReplayCopy writes a live run for a line replay host (mid-tick at a line stop,
// else the recording so far and its mark); writeRecordingGrowth writes what it gained since.
//
// Invariants: every refusal is a ProtocolError saying why: nothing is answered "saved" or
// "opened" that was not; a mid-tick copy is refused by the ordinary open, a saved file by the
// mid-tick one.

import { statSync } from 'node:fs';
import type { Lint, LintKind, RecordingInfo, RecordingMark, UrlFailureMark } from '../../../protocol/host-protocol';
import {
  bytesSince,
  readGrowthFile,
  writeGrowthFile,
  type StreamBytes,
  type StreamCounts,
  type StreamMark,
} from '../../record/recording-growth';
import type { RecordedStreams } from '../../record/run-recorder';
import { ProtocolError } from '../../../protocol/rpc';
import { RecordingError } from '../../record/recording-errors';
import {
  readRecordingFile,
  readRecordingLog,
  writeRecordingFile,
  type RecordingMeta,
} from '../../record/recording-file';
import { packTableNotes, unpackTableNotes, type TableNotes } from '../../record/await-details';
import { checkSources, programSources } from '../../record/source-hashes';
import { readRecordedProgram, recordedProgram, type RecordedProgram } from './launch-programs';
import type { Run } from './run';
import { savedUrlFailures } from './url-failures';
import { realDateNow, realNow } from '../../outside-values';

function infoOf(path: string, bytes: number, meta: RecordingMeta): RecordingInfo {
  return {
    path,
    bytes,
    program: meta.program.kind,
    ticks: meta.ticks,
    steps: meta.steps,
    tasks: meta.tasks,
    sockets: meta.sockets,
    recordedAt: meta.recordedAt,
  };
}

/** The metadata a run's recording is written with. */
function metaOf(run: Run, streams: RecordedStreams): RecordingMeta {
  let meta: RecordingMeta = {
    program: recordedProgram({
      target: run.target,
      options: run.options,
      siteUrl: run.siteUrl ?? null,
      // As its streams were recorded: an opened recording is inspected whatever it was made with.
      frames: run.recording.framesRecorded,
      ...(run.recording.openedSignal !== null ? { signal: run.recording.openedSignal } : {}),
      inputs: run.sampleInputs,
      ...(run.cliArgv !== undefined ? { cliArgv: run.cliArgv } : {}),
    }),
    sources: programSources(),
    ticks: streams.ticks,
    steps: streams.steps,
    tasks: streams.tasks,
    sockets: streams.sockets,
    recordedAt: new Date(realDateNow()).toISOString(),
    lints: run.lints.lints(),
  };
  const failed = run.recording.urlFailures.all();
  if (failed.length > 0) meta = { ...meta, urlFailures: failed };
  const notes = run.recording.tableNotes();
  if (notes !== null) meta = { ...meta, ...packTableNotes(notes) };
  if (streams.openTick !== true) return meta;
  return streams.openTickTasks === undefined
    ? { ...meta, openTick: true }
    : { ...meta, openTick: true, openTickTasks: streams.openTickTasks };
}

export function saveRecording(run: Run, path: string): RecordingInfo {
  if (!run.finished)
    throw new ProtocolError(
      `saveRecording: run ${run.id} is still going: its recording is saved once it has finished`,
      'badState',
    );
  const streams = run.recording.streams;
  if (streams === null) throw run.recording.notRecorded('saveRecording');
  const meta = metaOf(run, streams);
  try {
    const { bytes } = writeRecordingFile(path, {
      meta,
      events: streams.events,
      gaps: streams.gaps,
      payload: streams.payload,
    });
    return infoOf(path, bytes, meta);
  } catch (e) {
    // writeRecordingFile's refusals say why in a user's words (the folder is gone, the disk is full).
    throw new ProtocolError(
      `saveRecording: ${e instanceof RecordingError ? e.message : `cannot write ${path}: ${e instanceof Error ? e.message : String(e)}`}`,
      'writeFailed',
    );
  }
}

/**
 * A line replay host's copy of the run's recording (line-replay-host.ts), written for it to
 * open at once: a run stopped on a line mid-tick, through the start of that tick
 * (RecordedStreams.openTick: `midTick`, opened with openRecording midTick); otherwise the whole
 * recording so far (a finished run's, an opened one's, a live run's through its last tick).
 * Never a saved recording.
 */
export function writeReplayCopy(
  run: Run,
  path: string,
): { runId: number; ticks: number; midTick: boolean; writeMs: number; mark?: RecordingMark } {
  const t0 = realNow();
  const streams = run.recording.streams ?? run.recording.streamsMidTick();
  if (streams === null)
    throw run.recording.unrecorded !== null
      ? run.recording.notRecorded('Step Back')
      : new ProtocolError(
          `Step Back needs a recorded run: launch with record (run ${run.id} was not recorded)`,
          'notRecorded',
        );
  writeRecordingFile(
    path,
    { meta: metaOf(run, streams), events: streams.events, gaps: streams.gaps, payload: streams.payload },
    true,
  );
  const copy = {
    runId: run.id,
    ticks: streams.ticks,
    midTick: streams.openTick === true,
    writeMs: realNow() - t0,
  };
  // Between ticks, a copy a growth may go on from (writeRecordingGrowth).
  return streams.openTick === true
    ? copy
    : {
        ...copy,
        mark: recordingMarkOf(run, {
          events: streams.events.length,
          gaps: streams.gaps.length,
          payload: streams.payload.length,
        }),
      };
}

/** Where run's recording ends, streams at `streams`: its table notes' and lints' entries too. */
function recordingMarkOf(run: Run, streams: StreamMark): RecordingMark {
  const notes = run.recording.tableNotes();
  return {
    ...streams,
    details: notes?.details?.length ?? 0,
    awaitTasks: notes?.awaitTasks?.length ?? 0,
    outcomes: notes?.outcomes?.length ?? 0,
    cancels: notes?.cancels?.length ?? 0,
    lints: run.lints.lints().length,
  };
}

/**
 * What the run's recording gained since `from` (the mark of a copy or a growth written before),
 * written to `path` for the line replay host that follows the run (recording-growth.ts): the
 * new bytes of its streams, the table notes and lints added, the counts, where it ends now. Its
 * cost is what was added, not the recording: the streams are read as views, nothing compressed.
 */
export function writeRecordingGrowth(
  run: Run,
  path: string,
  from: RecordingMark,
): { runId: number; ticks: number; to: RecordingMark; bytes: number; writeMs: number } {
  const t0 = realNow();
  const now = run.recording.recordingNow();
  if (now === null) throw run.recording.notRecorded('writeRecordingGrowth');
  const notes = run.recording.tableNotes();
  const lints = run.lints.lints();
  const to = recordingMarkOf(run, now.mark);
  if ((Object.keys(to) as Array<keyof RecordingMark>).some((k) => from[k] > to[k]) || from.payload > now.mark.payload) {
    throw new ProtocolError(
      `writeRecordingGrowth: run ${run.id}'s recording ends at ${JSON.stringify(to)}, before ${JSON.stringify(from)}: not a mark of it`,
      'badState',
    );
  }
  let got: ReturnType<typeof bytesSince>;
  try {
    got = bytesSince(now.soFar, from);
  } catch (e) {
    throw new ProtocolError(
      `writeRecordingGrowth: run ${run.id}: ${e instanceof Error ? e.message : String(e)}`,
      'badState',
    );
  }
  const added: TableNotes | null =
    notes === null
      ? null
      : {
          details: notes.details?.slice(from.details) ?? null,
          awaitTasks: notes.awaitTasks?.slice(from.awaitTasks) ?? null,
          outcomes: notes.outcomes?.slice(from.outcomes) ?? null,
          cancels: notes.cancels?.slice(from.cancels) ?? null,
        };
  const head = {
    runId: run.id,
    from,
    to,
    counts: now.counts,
    lints: lints.slice(from.lints),
    ...(added !== null ? { notes: packTableNotes(added) } : {}),
  };
  const bytes = writeGrowthFile(path, head, got.bytes);
  return { runId: run.id, ticks: now.counts.ticks, to, bytes, writeMs: realNow() - t0 };
}

/** A growth file read back (readRecordingGrowth): checked, for ReplayHostServices.growInPlace. */
export interface ReadGrowth {
  readonly from: RecordingMark;
  readonly to: RecordingMark;
  readonly counts: StreamCounts;
  readonly bytes: StreamBytes;
  /** The table notes' entries added (each list's), or null: the run keeps none. */
  readonly notes: TableNotes | null;
  readonly lints: Lint[];
}

const MARK_KEYS: ReadonlyArray<keyof RecordingMark> = [
  'events',
  'gaps',
  'payload',
  'details',
  'awaitTasks',
  'outcomes',
  'cancels',
  'lints',
];

/**
 * The counts `keys` of a growth header's object `raw` (its `what`), each a non-negative integer, or a
 * RecordingError.
 */
function countsOf<K extends string>(path: string, raw: unknown, keys: readonly K[], what: string): Record<K, number> {
  const o = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const out = {} as Record<K, number>;
  for (const k of keys) {
    const v = o[k];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
      throw new RecordingError(`${path} is corrupt: its ${what}.${k} is not a count`);
    out[k] = v;
  }
  return out;
}

/**
 * Reads the growth written to `path` (writeRecordingGrowth), its header checked field by field; a
 * ProtocolError (badRecording) saying why it is refused.
 */
export function readRecordingGrowth(path: string): ReadGrowth {
  try {
    const { head, bytes } = readGrowthFile(path, path);
    const h = (typeof head === 'object' && head !== null ? head : {}) as Record<string, unknown>;
    const from = countsOf(path, h.from, MARK_KEYS, 'from');
    const to = countsOf(path, h.to, MARK_KEYS, 'to');
    const streamCounts: StreamCounts = countsOf(
      path,
      h.counts,
      ['ticks', 'steps', 'tasks', 'sockets'] as const,
      'counts',
    );
    const notes = h.notes === undefined ? null : unpackTableNotes(h.notes as Record<string, unknown>);
    const lints = savedLints(h.lints);
    // Each part as long as its marks say: a growth read whole or refused.
    const sizes: Array<[keyof RecordingMark, number]> = [
      ['events', bytes.events.length],
      ['gaps', bytes.gaps.length],
      ['payload', bytes.payload.length],
      ['details', notes?.details?.length ?? 0],
      ['awaitTasks', notes?.awaitTasks?.length ?? 0],
      ['outcomes', notes?.outcomes?.length ?? 0],
      ['cancels', notes?.cancels?.length ?? 0],
      ['lints', lints.length],
    ];
    for (const [k, n] of sizes)
      if (to[k] - from[k] !== n)
        throw new RecordingError(`${path} is corrupt: its ${k} go from ${from[k]} to ${to[k]}, and it holds ${n}`);
    return { from, to, counts: streamCounts, bytes, notes, lints };
  } catch (e) {
    if (e instanceof RecordingError) throw new ProtocolError(`growRecording: ${e.message}`, 'badRecording');
    throw e;
  }
}
/** A recording file read for the host: what it holds, and the program it recorded (by the host or the CLI). */
export interface OpenedRecording {
  readonly info: RecordingInfo;
  readonly streams: RecordedStreams;
  readonly program: RecordedProgram;
  /** The lints the run had reported (saved with it). */
  readonly lints: Lint[];
  /**
   * What the recorder kept beside the log for the task table (each suspension's await detail and awaited
   * tasks, each task's outcome; saved with it), or null.
   */
  readonly notes: TableNotes | null;
  /** The URLs the crawl recorded as failed (saved with it). */
  readonly urlFailures: UrlFailureMark[];
}

const LINT_KINDS: ReadonlySet<string> = new Set<LintKind>([
  'slowCallback',
  'neverAwaited',
  'destroyedPending',
  'neverYields',
  'lostWakeup',
  'deadlock',
]);

/** The lints saved in a recording's metadata, each checked field by field (what is not a lint is left out). */
function savedLints(raw: unknown): Lint[] {
  if (!Array.isArray(raw)) return [];
  const out: Lint[] = [];
  for (const x of raw as unknown[]) {
    if (typeof x !== 'object' || x === null) continue;
    const l = x as Record<string, unknown>;
    if (
      typeof l.kind !== 'string' ||
      !LINT_KINDS.has(l.kind) ||
      typeof l.message !== 'string' ||
      !Number.isSafeInteger(l.tick)
    )
      continue;
    const lint: Lint = { kind: l.kind as LintKind, message: l.message, tick: l.tick as number };
    if (Number.isSafeInteger(l.taskId)) lint.taskId = l.taskId as number;
    if (typeof l.seconds === 'number' && Number.isFinite(l.seconds)) lint.seconds = l.seconds;
    const p = l.position as Record<string, unknown> | undefined;
    if (
      typeof p === 'object' &&
      p !== null &&
      typeof p.file === 'string' &&
      Number.isSafeInteger(p.line) &&
      Number.isSafeInteger(p.column)
    )
      lint.position = { file: p.file, line: p.line as number, column: p.column as number };
    out.push(lint);
  }
  return out;
}

/** `midTick`: the file is a line replay's of a run stopped mid-tick (writeReplayCopy), and only such a file is. */
export function openRecording(path: string, midTick = false): OpenedRecording {
  try {
    const rec = readRecordingFile(path);
    const open = rec.meta.openTick === true;
    if (open !== midTick)
      throw new RecordingError(
        open
          ? `${path} is the recording of a run stopped mid-tick (a line replay's), not a saved recording`
          : `${path} is not the recording of a run stopped mid-tick`,
      );
    checkSources(rec.meta.sources, programSources(), path);
    readRecordingLog(rec, path);
    const program = readRecordedProgram(rec.meta.program, path);
    const streams: RecordedStreams = {
      events: rec.events,
      gaps: rec.gaps,
      payload: rec.payload,
      ticks: rec.meta.ticks,
      steps: rec.meta.steps,
      tasks: rec.meta.tasks,
      sockets: rec.meta.sockets,
      openTick: open,
      ...(rec.meta.openTickTasks !== undefined ? { openTickTasks: rec.meta.openTickTasks } : {}),
    };
    return {
      info: infoOf(path, statSync(path).size, rec.meta),
      streams,
      program,
      lints: savedLints(rec.meta.lints),
      notes: unpackTableNotes(rec.meta),
      urlFailures: savedUrlFailures(rec.meta.urlFailures),
    };
  } catch (e) {
    if (e instanceof RecordingError) throw new ProtocolError(`openRecording: ${e.message}`, 'badRecording');
    throw e;
  }
}
