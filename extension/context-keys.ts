// The `when`-clause context keys of Coroscope, set from the RunSession's status: hostRunning,
// running, paused, inspectorVisible, recordingSavable (the run shown finished and was recorded),
// debuggable (live, or finished and recorded), stepped.<sample> (the walkthrough's completion
// events; see walkthrough.ts) and workerStackShown (the walkthrough's first step).
//
// Invariant: only changes are sent (setContext goes to the renderer).

import * as vscode from 'vscode';
import type { SteppedContextKey, WORKER_STACK_SHOWN_KEY } from './walkthrough';

export type ContextKey =
  | 'coroscope.hostRunning'
  | 'coroscope.running'
  | 'coroscope.paused'
  | 'coroscope.inspectorVisible'
  | 'coroscope.recordingSavable'
  | 'coroscope.debuggable'
  | typeof WORKER_STACK_SHOWN_KEY
  | SteppedContextKey;

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
