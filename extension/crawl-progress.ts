// The progress notification of a crawl: pages done, queue and rate as it goes, with a
// Cancel button that stops the run. It ends when the run finishes, is replaced, or the host
// dies: it never outlives the run it reports on.

import * as vscode from 'vscode';
import type { RunSession } from './run-session';

export function showCrawlProgress(session: RunSession, runTitle: string): void {
  void vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Coroscope: ${runTitle}`, cancellable: true },
    (progress, token) =>
      new Promise<void>((resolve) => {
        const startRun = session.status.runId;
        let lastDone = 0;
        const unsubscribe: Array<() => void> = [];
        const end = (): void => {
          for (const u of unsubscribe) u();
          resolve();
        };
        token.onCancellationRequested(() => {
          void session.stopRun().catch(() => undefined);
          end();
        });
        unsubscribe.push(
          session.onProgress.on(({ progress: p }) => {
            const total = p.done + p.queued + p.inFlight;
            const increment = total > 0 ? ((p.done - lastDone) / total) * 100 : undefined;
            lastDone = p.done;
            progress.report({
              message: `${p.done} pages · ${p.queued} queued · ${p.inFlight} in flight · ${Math.round(p.rate)}/s${p.errors > 0 ? ` · ${p.errors} errors` : ''}`,
              increment,
            });
          }),
          session.onStatus.on((s) => {
            if (s.phase === 'paused') progress.report({ message: `Paused: ${s.detail}` });
            if (s.phase === 'finished' || s.phase === 'hostDied' || s.phase === 'idle') end();
            if (s.phase === 'starting' && startRun !== null) end();
          }),
          session.onReset.on(() => end()),
        );
      }),
  );
}
