// The status bar item's words for the run (status-bar.ts shows them): the moment, the pages,
// the rate and the tasks, as every other view says them (protocol/run-moment.ts): at a past
// tick that tick and its pages, never the live totals; an opened recording's tick "of M".
// Pure: no vscode import (tested as it is).

import type { CrawlProgress, TaskState } from '../protocol/host-protocol';
import { pagesText, tickText, type RunMoment } from '../protocol/run-moment';
import type { RunStatus } from '../protocol/webview-protocol';

/** The item's text and tooltip for a status, its moment, the crawl's numbers at that moment and the task counts. */
export function statusText(
  status: RunStatus,
  moment: RunMoment,
  progress: CrawlProgress | null,
  counts: Record<TaskState, number>,
): { text: string; tooltip: string } {
  const live = counts.scheduled + counts.running + counts.suspended;
  const present = moment.kind === 'present';
  const icon = !present
    ? '$(history)'
    : status.phase === 'paused'
      ? '$(debug-pause)'
      : status.phase === 'running' || status.phase === 'starting'
        ? '$(sync~spin)'
        : status.phase === 'hostDied'
          ? '$(error)'
          : '$(pulse)';
  const parts: string[] = [];
  // The present's tick is in the tooltip; another moment's leads the text (every number after it is of that tick).
  if (!present && status.runId !== null) parts.push(tickText(moment));
  if (progress !== null) {
    parts.push(pagesText(progress));
    if (status.phase === 'running' && present) parts.push(`${Math.round(progress.rate)}/s`);
  }
  parts.push(`${live} task${live === 1 ? '' : 's'}`);
  const phase =
    status.phase === 'paused'
      ? 'paused'
      : status.phase === 'finished'
        ? 'done'
        : status.phase === 'hostDied'
          ? 'host died'
          : status.phase === 'starting'
            ? 'starting'
            : status.phase === 'idle'
              ? 'stopped'
              : '';
  const text = `${icon} ${parts.join(' · ')}${phase !== '' && present ? ` · ${phase}` : ''}`;
  const tooltipLines = [`Coroscope: ${status.title}`, status.detail];
  if (status.runId !== null) tooltipLines.push(present ? `Now: ${tickText(moment)}` : `Viewing ${tickText(moment)}`);
  if (progress !== null)
    tooltipLines.push(
      `${progress.done} done, ${progress.queued} queued, ${progress.inFlight} in flight, ${progress.errors} errors`,
    );
  tooltipLines.push(
    `${live} live tasks (${counts.suspended} suspended), ${counts.done + counts.failed + counts.cancelled} finished`,
  );
  return { text, tooltip: tooltipLines.join('\n') };
}
