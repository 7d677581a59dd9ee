// Runs on a runtime host's main thread (a live host's, and a line replay host's).
//
// The detail of a live task as the protocol's TaskDetail: its summary (with who awaits it),
// its frames with positions and locals, its await chain. One function for the present of a
// run (run.ts) and for a past moment of it (past-moment.ts), so both show a task alike.
//
// Invariant: locals are read (node:inspector, about 160 µs a frame) only when asked; their
// handles go to the given VariableStore, which the `variables` request then resolves.

import type { FrameInfo, SourcePosition, TaskDetail } from '../../../protocol/host-protocol';
import type { Task } from '../../task';
import type { TaskRecorder } from '../../inspect/task-recorder';
import { taskFrames } from '../../inspect/task-snapshot';
import { summarizeTasks, type AwaitIndex } from '../../inspect/task-summaries';
import type { VariableStore } from './variables';

export interface TaskDetailSources {
  readonly recorder: TaskRecorder | null;
  readonly index: AwaitIndex;
  readonly variables: VariableStore;
  readonly locals: boolean;
  readonly createdAt: SourcePosition | null;
  /** The loop time the summary's sinceResumedMs counts to (a past moment's tick time); default now. */
  readonly now?: number;
  /** The frame a task that has not started will begin in (entry-frame.ts), shown when it has no frames yet. */
  readonly entry?: FrameInfo | null;
}

export function liveTaskDetail(task: Task<unknown>, s: TaskDetailSources): TaskDetail {
  const summary = {
    ...summarizeTasks([task], { recorder: s.recorder, ...(s.now !== undefined ? { now: s.now } : {}) })[0]!,
    awaitedBy: s.index.awaitedBy(task),
  };
  const sink = s.locals ? s.variables.newGroup() : undefined;
  const frames = taskFrames(task, { locals: s.locals, handles: sink });
  return {
    task: summary,
    frames:
      frames.length === 0 && s.entry !== undefined && s.entry !== null
        ? [s.entry]
        : frames.map((f, index) => ({
            index,
            name: f.functionName,
            position: f.file !== null && f.line !== null ? { file: f.file, line: f.line, column: f.column ?? 1 } : null,
            generated:
              f.generated !== null
                ? { file: f.generated.url, line: f.generated.line0 + 1, column: f.generated.column0 + 1 }
                : null,
            locals: f.locals === null ? [] : s.variables.localsOf(f.locals),
          })),
    awaitChain: s.index.chain(task),
    createdAt: s.createdAt,
    traceback: null,
  };
}
