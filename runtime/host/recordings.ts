// The host's recording files: saveRecording writes a finished run's recording (a run
// launched with options.record) as a .corotrace; openRecording reads one and checks it whole
// (format, checksum, event log, and that the sources it ran are this host's). Every refusal
// is a ProtocolError that says why: nothing is answered "saved" or "opened" that was not.

import { statSync } from 'node:fs';
import type { RecordingInfo } from '../../protocol/host-protocol';
import { ProtocolError } from '../../protocol/rpc';
import { RecordingError } from '../record/recording-errors';
import { readRecordingFile, writeRecordingFile, type RecordingMeta } from '../record/recording-file';
import { readRunLog } from '../record/run-log';
import { checkSources, programSources } from '../record/source-hashes';
import type { Run } from './run';

function infoOf(path: string, bytes: number, meta: RecordingMeta): RecordingInfo {
  return { path, bytes, program: meta.program.kind, ticks: meta.ticks, steps: meta.steps, tasks: meta.tasks, sockets: meta.sockets, recordedAt: meta.recordedAt };
}

export function saveRecording(run: Run, path: string): RecordingInfo {
  if (!run.finished) throw new ProtocolError(`saveRecording: run ${run.id} is still going: its recording is saved once it has finished`, 'badState');
  const streams = run.recording;
  if (streams === null) throw new ProtocolError(`saveRecording: run ${run.id} was not recorded: launch it with options.record`, 'notRecorded');
  const meta: RecordingMeta = {
    program: { kind: run.target.kind, target: run.target, options: run.options, siteUrl: run.siteUrl ?? null, frames: run.inspect },
    sources: programSources(),
    ticks: streams.ticks,
    steps: streams.steps,
    tasks: streams.tasks,
    sockets: streams.sockets,
    recordedAt: new Date().toISOString(),
  };
  try {
    const bytes = writeRecordingFile(path, { meta, events: streams.events, gaps: streams.gaps, payload: streams.payload });
    return infoOf(path, bytes, meta);
  } catch (e) {
    throw new ProtocolError(`saveRecording: cannot write ${path}: ${e instanceof Error ? e.message : String(e)}`, 'writeFailed');
  }
}

export function openRecording(path: string): RecordingInfo {
  try {
    const rec = readRecordingFile(path);
    checkSources(rec.meta.sources, programSources(), path);
    readRunLog(rec.events, rec.gaps, rec.payload, path);
    return infoOf(path, statSync(path).size, rec.meta);
  } catch (e) {
    if (e instanceof RecordingError) throw new ProtocolError(`openRecording: ${e.message}`, 'badRecording');
    throw e;
  }
}
