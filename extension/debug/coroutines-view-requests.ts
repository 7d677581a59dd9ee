// CoroutinesViewRequests: the custom requests of the Coroutines view (custom-requests.ts names
// them): the task table with the loop's tick and state, the coroutine vs ripped traces of a URL,
// and the line step mode (stay with the task, or follow the loop).
//
// Invariants: a host failure becomes the request's error response; a task table that cannot be
// refreshed (a finished run, a host gone) is answered with what was last seen.

import type { DebugProtocol } from '@vscode/debugprotocol';
import {
  LINE_STEP_MODE_REQUEST,
  TASKS_REQUEST,
  TRACES_REQUEST,
  narrowLineStepMode,
  type TasksBody,
} from './custom-requests';
import type { SessionCore } from './session-core';

export class CoroutinesViewRequests {
  constructor(private readonly core: SessionCore) {}

  /** Answers the Coroutines view's requests; false: not one of them. */
  customRequest(command: string, response: DebugProtocol.Response, args: unknown): boolean {
    if (command === TASKS_REQUEST) {
      this.core.serve(response, async () => {
        await this.core.refreshTasks().catch(() => undefined);
        const body: TasksBody = {
          tasks: this.core.tasks.allTasks(),
          tick: this.core.tasks.tick,
          paused: this.core.loopState().paused,
          running: this.core.loopState().running,
        };
        response.body = body;
        this.core.sendResponse(response);
      });
    } else if (command === LINE_STEP_MODE_REQUEST) {
      this.core.serve(response, async () => {
        const mode = narrowLineStepMode(args);
        if (mode === null) throw new Error(`${LINE_STEP_MODE_REQUEST}: "mode" must be "stayWithTask" or "followLoop"`);
        await this.core.requireHost().endpoint.request('setLineStepMode', { mode });
        this.core.sendResponse(response);
      });
    } else if (command === TRACES_REQUEST) {
      this.core.serve(response, async () => {
        const a = (typeof args === 'object' && args !== null ? args : {}) as { url?: unknown };
        response.body = await this.core
          .requireHost()
          .endpoint.request('traces', typeof a.url === 'string' ? { url: a.url } : {});
        this.core.sendResponse(response);
      });
    } else {
      return false;
    }
    return true;
  }
}
