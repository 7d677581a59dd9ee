// The `when`-clause context keys of Coroscope, set from the RunSession's status:
//   coroscope.hostRunning  the runtime host process is up
//   coroscope.running      a run is live (running or paused)
//   coroscope.paused       the live run's loop is paused
//   coroscope.inspectorVisible  the inspector panel is visible
// Only changes are sent (setContext goes to the renderer).

import * as vscode from 'vscode';

export type ContextKey = 'coroscope.hostRunning' | 'coroscope.running' | 'coroscope.paused' | 'coroscope.inspectorVisible';

export class ContextKeys {
  private readonly values = new Map<ContextKey, boolean>();

  set(key: ContextKey, value: boolean): void {
    if (this.values.get(key) === value) return;
    this.values.set(key, value);
    void vscode.commands.executeCommand('setContext', key, value);
  }

  get(key: ContextKey): boolean {
    return this.values.get(key) ?? false;
  }
}
