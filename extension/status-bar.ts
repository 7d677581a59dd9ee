// The status bar item: what the run does, in one glance (pages, rate, tasks) while a run is
// live, and how it ended afterwards; clicking it opens the inspector. Hidden until the first
// run. Updates are throttled to a few per second (a crawl reports progress 4 times a second
// and snapshots at the configured rate).

import * as vscode from 'vscode';
import type { CrawlProgress, TaskState } from '../protocol/host-protocol';
import type { RunStatus } from '../protocol/webview-protocol';

const MIN_INTERVAL_MS = 250;

/** The item's text for a status, the latest progress and task counts. Pure. */
export function statusText(status: RunStatus, progress: CrawlProgress | null, counts: Record<TaskState, number>): { text: string; tooltip: string } {
  const live = counts.scheduled + counts.running + counts.suspended;
  const icon = status.phase === 'paused' ? '$(debug-pause)' : status.phase === 'running' || status.phase === 'starting' ? '$(sync~spin)' : status.phase === 'hostDied' ? '$(error)' : '$(pulse)';
  const parts: string[] = [];
  if (progress !== null) {
    parts.push(`${progress.done} pages`);
    if (status.phase === 'running') parts.push(`${Math.round(progress.rate)}/s`);
  }
  parts.push(`${live} task${live === 1 ? '' : 's'}`);
  const phase = status.phase === 'paused' ? 'paused' : status.phase === 'finished' ? 'done' : status.phase === 'hostDied' ? 'host died' : status.phase === 'starting' ? 'starting' : status.phase === 'idle' ? 'stopped' : '';
  const text = `${icon} ${parts.join(' · ')}${phase !== '' ? ` · ${phase}` : ''}`;
  const tooltipLines = [`Coroscope: ${status.title}`, status.detail];
  if (progress !== null) tooltipLines.push(`${progress.done} done, ${progress.queued} queued, ${progress.inFlight} in flight, ${progress.errors} errors`);
  tooltipLines.push(`${live} live tasks (${counts.suspended} suspended), ${counts.done + counts.failed + counts.cancelled} finished`);
  return { text, tooltip: tooltipLines.join('\n') };
}

export class CoroscopeStatusBar implements vscode.Disposable {
  private item: vscode.StatusBarItem | null = null;
  private timer: NodeJS.Timeout | null = null;
  private last = 0;
  private latest: { status: RunStatus; progress: CrawlProgress | null; counts: Record<TaskState, number> } | null = null;

  update(status: RunStatus, progress: CrawlProgress | null, counts: Record<TaskState, number>): void {
    this.latest = { status, progress, counts };
    const now = Date.now();
    if (now - this.last >= MIN_INTERVAL_MS) this.render();
    else if (this.timer === null) this.timer = setTimeout(() => this.render(), MIN_INTERVAL_MS - (now - this.last));
  }

  private render(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.last = Date.now();
    const l = this.latest;
    if (l === null) return;
    if (this.item === null) {
      this.item = vscode.window.createStatusBarItem('coroscope.status', vscode.StatusBarAlignment.Left, 50);
      this.item.name = 'Coroscope';
      this.item.command = 'coroscope.openInspector';
    }
    const { text, tooltip } = statusText(l.status, l.progress, l.counts);
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.backgroundColor = l.status.phase === 'hostDied' ? new vscode.ThemeColor('statusBarItem.errorBackground') : l.status.phase === 'paused' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.item?.dispose();
  }
}
