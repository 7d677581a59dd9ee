// The notification of a Deadlock stop: the debug adapter sends `coroscope/deadlock` when the
// run stops because live tasks wait for what nothing can give them (the Deadlock exception
// filter); the user may be looking at the editor, not the Call Stack, so the window says it
// too, with the cycle in one line and a button that opens the Debug Console's details.
//
// Invariant: one notification per Deadlock stop of a coroscope session; nothing else.

import * as vscode from 'vscode';
import { DEADLOCK_EVENT } from './custom-requests';

/** The summary of a `coroscope/deadlock` event's body, or null when it has none. */
export function deadlockSummaryOf(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const summary = (body as { summary?: unknown }).summary;
  return typeof summary === 'string' && summary !== '' ? summary : null;
}

/** Shows a warning for each Deadlock stop of a coroscope debug session. */
export function watchDeadlockStops(debugType: string): vscode.Disposable {
  return vscode.debug.onDidReceiveDebugSessionCustomEvent((e) => {
    if (e.session.type !== debugType || e.event !== DEADLOCK_EVENT) return;
    const summary = deadlockSummaryOf(e.body);
    if (summary === null) return;
    void vscode.window
      .showWarningMessage(`Coroscope: the run stopped on a deadlock: ${summary}`, 'Show Details')
      .then((pick) => {
        if (pick === 'Show Details') void vscode.commands.executeCommand('workbench.debug.action.toggleRepl');
      });
  });
}
