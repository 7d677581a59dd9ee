// Text formatting for the panel: durations, counts, task states, await descriptions, file
// names. Pure (no DOM); every function returns plain text for textContent.

import type { AwaitInfo, SourcePosition, TaskState } from '../../protocol/host-protocol';

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms - m * 60_000) / 1000)} s`;
}

export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return '';
  return Math.round(n).toLocaleString('en-US');
}

export function formatRate(perSecond: number): string {
  if (!Number.isFinite(perSecond)) return '';
  return perSecond >= 100 ? `${Math.round(perSecond)}/s` : `${perSecond.toFixed(1)}/s`;
}

export const STATE_LABELS: Readonly<Record<TaskState, string>> = {
  scheduled: 'Scheduled',
  running: 'Running',
  suspended: 'Suspended',
  done: 'Done',
  cancelled: 'Cancelled',
  failed: 'Failed',
};

/** Codicon names for task states. */
export const STATE_ICONS: Readonly<Record<TaskState, string>> = {
  scheduled: 'clock',
  running: 'play-circle',
  suspended: 'debug-pause',
  done: 'pass',
  cancelled: 'circle-slash',
  failed: 'error',
};

export function awaitingText(a: AwaitInfo | null): string {
  if (a === null) return '';
  return a.detail !== '' ? `${a.kind} ${a.detail}` : a.kind;
}

/** The last path segment of a file (POSIX or Windows separators, or a URL). */
export function baseName(file: string): string {
  const cut = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return cut >= 0 ? file.slice(cut + 1) : file;
}

/** "crawler.ts:129" for a position. */
export function positionText(p: SourcePosition | null | undefined): string {
  if (p === null || p === undefined) return '';
  return `${baseName(p.file)}:${p.line}`;
}

/** A position's file shortened to start at its `runtime/` (or last 3 segments). */
export function shortPath(file: string): string {
  const parts = file.split(/[\\/]/);
  const i = parts.lastIndexOf('runtime');
  if (i >= 0) return parts.slice(i).join('/');
  return parts.slice(-3).join('/');
}

/** Whether a position names a file the editor can open (not node internals). */
export function isOpenable(p: SourcePosition | null | undefined): p is SourcePosition {
  return p !== null && p !== undefined && !p.file.startsWith('node:') && p.file !== '' && p.line >= 1;
}
