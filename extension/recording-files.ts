// What "Coroscope: Save Recording…" and "Coroscope: Open Recording…" decide before they ask
// the host: whether the run shown can be saved (it must have finished, and have been
// recorded), the file name proposed, and the file filter of the dialogs. Pure: no vscode
// import (tested as it is); commands.ts shows the dialogs and the messages.

import type { RunStatus } from '../protocol/webview-protocol';

export const RECORDING_EXTENSION = 'corotrace';
/** The dialogs' filter (showSaveDialog / showOpenDialog `filters`). */
export const RECORDING_FILTERS: Readonly<Record<string, string[]>> = { 'Coroscope recording': [RECORDING_EXTENSION] };

/** Why the run shown cannot be saved now, or null when it can. */
export function saveRefusal(status: RunStatus, hostUp: boolean): string | null {
  switch (status.phase) {
    case 'idle':
      return status.runId === null
        ? 'there is no run to save: run a crawl or a sample first.'
        : 'the run was stopped before it finished: nothing complete to save.';
    case 'starting':
    case 'running':
    case 'paused':
      return 'the run is still going: save its recording once it has finished (or stop waiting with Coroscope: Stop, which discards it).';
    case 'hostDied':
      return 'the runtime host died: its recording died with it.';
    case 'ended':
      return 'the runtime host of this run has ended: its recording is gone.';
    case 'finished':
      break;
  }
  if (status.recordingFile !== undefined) return `this run is the recording ${status.recordingFile} already.`;
  if (status.notRecorded !== undefined) return `this run was not recorded: ${status.notRecorded}.`;
  if (status.recorded !== true)
    return 'this run was not recorded: turn on the coroscope.record setting and run it again.';
  if (!hostUp) return 'the runtime host of this run has ended: its recording is gone.';
  return null;
}

/** The name proposed for a recording of the run titled `title`, finished at `at`. */
export function proposedRecordingName(title: string, at: Date): string {
  const what = title.toLowerCase().includes('demo site')
    ? 'demo-crawl'
    : (/^sample\s+(\S+)/i.exec(title)?.[1] ?? (title.toLowerCase().startsWith('crawl') ? 'crawl' : 'run'));
  const stamp = at.toISOString().slice(0, 19).replace(/[:T]/g, '-');
  return `${what.replace(/[^\w.-]+/g, '-')}-${stamp}.${RECORDING_EXTENSION}`;
}

/** `path` with the .corotrace extension (added when the dialog's name lacks it). */
export function withRecordingExtension(path: string): string {
  return path.toLowerCase().endsWith(`.${RECORDING_EXTENSION}`) ? path : `${path}.${RECORDING_EXTENSION}`;
}
