// Runs on a runtime host's line debugger worker thread (a live host's, and a line replay host's).
// At a stop on a line, the taskDetail of the task running the line: a running generator's frame
// cannot be read as a suspended one, so the chain's frames take the line and locals of the
// stopped thread's real frames, and the panel and Variables show the same locals.
//
// Invariants: frames are matched innermost first, by function name and file, each real frame
// used once and in order (an unmatched chain frame keeps what the main thread read); the line
// debugger's handles are shifted by LINE_HANDLE_BASE, valid while the stop is.

import type { LineFrameInfo, TaskDetail, VariableInfo } from '../../../protocol/host-protocol';

/** Where the line debugger's handles start in the `variables` handle space (shifted). */
export const LINE_HANDLE_BASE = 2 ** 30;

/** The line debugger's variables as `variables` answers them (handles shifted). */
export function shiftedVariables(variables: readonly VariableInfo[]): VariableInfo[] {
  return variables.map((v) => ({ ...v, handle: v.handle > 0 ? v.handle + LINE_HANDLE_BASE : 0 }));
}

/** True if `handle` is a line debugger's handle given out by shiftedVariables. */
export function isLineHandle(handle: number): boolean {
  return handle > LINE_HANDLE_BASE;
}

export function lineHandleOf(handle: number): number {
  return handle - LINE_HANDLE_BASE;
}

/**
 * The detail with its chain's frames read from the stopped thread: `stack` is lineStack's
 * answer; `variablesOf` lists a line handle's children (lineVariables). Only for the task
 * that runs the line (`stack.taskId`); any other detail is returned as it is.
 */
export async function withLineFrames(
  detail: TaskDetail,
  stack: { taskId: number | null; frames: readonly LineFrameInfo[] },
  locals: boolean,
  variablesOf: (handle: number) => Promise<VariableInfo[]>,
): Promise<TaskDetail> {
  if (stack.taskId === null || stack.taskId !== detail.task.id || detail.frames.length === 0) return detail;
  const frames = detail.frames.map((f) => ({ ...f }));
  let next = 0;
  for (let i = frames.length - 1; i >= 0; i--) {
    const f = frames[i]!;
    let k = next;
    while (k < stack.frames.length && !sameFunction(f, stack.frames[k]!)) k++;
    const real = stack.frames[k];
    if (real === undefined) continue;
    next = k + 1;
    if (real.position !== null) f.position = real.position;
    const scope = real.scopes[0];
    if (locals && scope !== undefined && scope.handle > 0) f.locals = shiftedVariables(await variablesOf(scope.handle));
  }
  return { ...detail, frames };
}

function sameFunction(chain: TaskDetail['frames'][number], real: LineFrameInfo): boolean {
  if (chain.name !== real.name) return false;
  return chain.position === null || real.position === null || chain.position.file === real.position.file;
}
