// The status bar item: what the run does, in one glance (pages, rate, tasks) while a run is
// live, and how it ended afterwards; clicking it opens the inspector. Hidden until the first
// run. Its words are status-bar-text.ts's (the moment shown, its pages). Updates are
// throttled to a few per second (a crawl reports progress 4 times a second and snapshots at
// the configured rate).

import * as vscode from 'vscode';
import type { CrawlProgress, TaskState } from '../protocol/host-protocol';
import type { RunMoment } from '../protocol/run-moment';
import type { RunStatus } from '../protocol/webview-protocol';
import { statusText } from './status-bar-text';

const MIN_INTERVAL_MS = 250;

export class CoroscopeStatusBar implements vscode.Disposable {
  private item: vscode.StatusBarItem | null = null;
  private timer: NodeJS.Timeout | null = null;
  private last = 0;
  private latest: {
    status: RunStatus;
    moment: RunMoment;
    progress: CrawlProgress | null;
    counts: Record<TaskState, number>;
  } | null = null;

  update(
    status: RunStatus,
    moment: RunMoment,
    progress: CrawlProgress | null,
    counts: Record<TaskState, number>,
  ): void {
    this.latest = { status, moment, progress, counts };
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
    const { text, tooltip } = statusText(l.status, l.moment, l.progress, l.counts);
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.backgroundColor =
      l.status.phase === 'hostDied'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : l.status.phase === 'paused'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
    this.item.show();
  }

  dispose(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.item?.dispose();
  }
}
