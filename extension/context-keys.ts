// The `when`-clause context keys of Coroscope, set from the RunSession's status:
//   coroscope.hostRunning  the runtime host process is up
//   coroscope.running      a run is live (running or paused)
//   coroscope.paused       the live run's loop is paused
//   coroscope.inspectorVisible  the inspector panel is visible
//   coroscope.recordingSavable  the run shown has finished and was recorded (Save Recording…)
//   coroscope.debuggable   a debugger can attach to the run shown (Debug This Run): it is live,
//                          or it has finished and was recorded (an opened recording too)
//   coroscope.stepped.<sample>  that tutorial sample ran paused and was stepped at least once,
//                               or ran to its end with no task on the loop to step (the
//                               walkthrough's completionEvents; see walkthrough.ts)
//   coroscope.workerStackShown  the panel showed a crawl worker's stack while the crawl was
//                               paused (the walkthrough's first step)
// Only changes are sent (setContext goes to the renderer).

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
