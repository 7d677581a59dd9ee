// SessionThreads: the threads a stop shows (tasks, plus the event loop and a failed URL's
// callback stage) and what each shows: its stack (a reconstructed `yield*` chain with where the
// task was created, or the real frames at a line stop), its exception (exceptionInfo); and
// Terminate Thread (cancels a task on behalf of the debugger).
//
// Invariants: a stack is built once per thread and stop; frame ids are stable within a stop (the
// same thread and position give the same id) and valid for it only (stop-cache.ts); a stack that
// cannot be read is shown as one label frame saying why; thread names are of the current run only.

import { resolve } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { TaskDetail } from '../../protocol/host-protocol';
import {
  CALLBACK_THREAD_ID,
  LOOP_THREAD_ID,
  callbackStackDrafts,
  callbackThreadName,
  deadlockExceptionInfo,
  exceptionInfoOf,
  lineStackDrafts,
  loopStackDrafts,
  splitError,
  taskStackDrafts,
  threadsOf,
  type CreationLink,
  type FrameDraft,
  type FrameRef,
} from './dap-mapping';
import { ERR_NOT_RUNNING, type SessionCore } from './session-core';
import type { SessionBreakpoints } from './session-breakpoints';
import type { LoadedSources } from './session-sources';
import type { StopCache } from './stop-cache';
import { message } from './stop-events';

const CREATION_DEPTH = 4;

export class SessionThreads {
  constructor(
    private readonly core: SessionCore,
    private readonly cache: StopCache,
    private readonly breakpoints: SessionBreakpoints,
    private readonly sourceFiles: LoadedSources,
  ) {
    core.onInvalidate(() => {
      this.stacks = new Map();
    });
  }

  private stacks = new Map<number, Promise<FrameDraft[]>>();

  private nextFrameId = 1;

  /**
   * The names of the tasks listed as threads (a past line's table may lack its own task), of run `namesOf`
   * only: task ids start over in a new run (a restart, a relaunch), so its names are not the run before's.
   */
  private readonly threadNames = new Map<number, string>();
  private namesOf: number | null = null;

  threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    this.core.serve(response, async () => {
      try {
        await this.core.refreshTasks();
      } catch {
        // A finished run or a host gone: list what was last seen.
      }
      const include = new Set<number>();
      if (this.core.currentStop?.taskId !== undefined) include.add(this.core.currentStop.taskId);
      // At a finished run's end every task has ended: they are listed as they ended, to step back from.
      if (this.core.atTheEnd()) for (const t of this.core.tasks.allTasks()) include.add(t.id);
      const stop = this.core.currentStop;
      if (this.namesOf !== this.core.runId) {
        this.threadNames.clear();
        this.namesOf = this.core.runId;
      }
      for (const t of this.core.tasks.allTasks()) this.threadNames.set(t.id, t.name);
      // The line's task may be missing from the table shown (a past line's is the tick boundary before):
      // named as last listed.
      const lineStop =
        stop?.line !== undefined && stop.taskId !== undefined
          ? { taskId: stop.taskId, line: stop.line.line, name: this.threadNames.get(stop.taskId) }
          : null;
      const threads = threadsOf(this.core.tasks.allTasks(), this.core.loopState(), include, lineStop);
      if (this.core.failedUrl !== null && (await this.core.callbackStageTrace()) !== null)
        threads.push({ id: CALLBACK_THREAD_ID, name: callbackThreadName(this.core.failedUrl) });
      response.body = { threads };
      this.core.sendResponse(response);
    });
  }

  /** The breakpoint line the task's innermost matching frame sits on, if the stop is a breakpoint of this task. */
  private focusOf(detail: TaskDetail): { file: string; line: number } | null {
    if (this.core.currentStop?.reason !== 'breakpoint' || this.core.currentStop.taskId !== detail.task.id) return null;
    for (let i = detail.frames.length - 1; i >= 0; i--) {
      const p = detail.frames[i]!.position;
      if (p !== null && this.breakpoints.breakpointLines.get(resolve(p.file))?.has(p.line))
        return { file: p.file, line: p.line };
    }
    return null;
  }

  private async creationOf(detail: TaskDetail): Promise<CreationLink[]> {
    const links: CreationLink[] = [];
    let child: TaskDetail | null = detail;
    for (let depth = 0; child !== null && depth < CREATION_DEPTH; depth++) {
      const creatorId: number | null = child.task.createdBy;
      if (creatorId === null) {
        if (child.createdAt !== null)
          links.push({
            childId: child.task.id,
            creatorId: null,
            creatorName: null,
            createdAt: child.createdAt,
            creatorFrames: [],
          });
        break;
      }
      const creator: TaskDetail | null = await this.cache.detailOf(creatorId, false).catch(() => null);
      links.push({
        childId: child.task.id,
        creatorId,
        creatorName: creator?.task.name ?? this.core.nameOf(creatorId) ?? null,
        createdAt: child.createdAt,
        creatorFrames: creator?.frames ?? [],
      });
      child = creator;
    }
    return links;
  }

  private stackOf(threadId: number): Promise<FrameDraft[]> {
    let p = this.stacks.get(threadId);
    if (p === undefined) {
      p = this.buildStack(threadId);
      this.stacks.set(threadId, p);
      p.catch(() => this.stacks.delete(threadId));
    }
    return p;
  }

  private async buildStack(threadId: number): Promise<FrameDraft[]> {
    const stop = this.core.currentStop;
    if (stop?.line !== undefined && threadId === stop.threadId) {
      // Stopped on a line: this thread runs, its stack is the real one.
      const { taskId, frames } = await this.cache.lineFrames();
      const drafts = lineStackDrafts(frames, taskId);
      this.sourceFiles.noteSources(drafts);
      return drafts;
    }
    if (threadId === LOOP_THREAD_ID)
      return loopStackDrafts(
        this.core.loopState(),
        this.core.currentStop?.threadId === LOOP_THREAD_ID ? this.core.callbackFailure : null,
      );
    if (threadId === CALLBACK_THREAD_ID) {
      const tb = await this.core.callbackStageTrace();
      if (tb === null) throw new Error('no callback-stage trace at this stop');
      const drafts = callbackStackDrafts(tb);
      this.sourceFiles.noteSources(drafts);
      return drafts;
    }
    const detail = await this.cache.detailOf(threadId, true);
    const creation = await this.creationOf(detail);
    const raisedNow =
      stop !== null && stop.reason === 'exception' && stop.taskId === threadId && detail.frames.length > 0;
    const drafts = taskStackDrafts(
      detail,
      {
        creation,
        traceback: this.core.exceptions.get(threadId) ?? null,
        raised: raisedNow ? (this.core.exceptions.get(threadId) ?? null) : null,
        focus: this.focusOf(detail),
      },
      this.core.nameOf,
    );
    this.sourceFiles.noteSources(drafts);
    return drafts;
  }

  stackTraceRequest(response: DebugProtocol.StackTraceResponse, args: DebugProtocol.StackTraceArguments): void {
    this.core.serve(response, async () => {
      const epoch = this.core.epoch;
      let drafts: FrameDraft[];
      try {
        drafts = await this.stackOf(args.threadId);
      } catch (e) {
        drafts = [
          {
            ref: { kind: 'loop' },
            frame: { name: `no stack: ${message(e)}`, line: 0, column: 0, presentationHint: 'label' },
          },
        ];
      }
      const start = args.startFrame ?? 0;
      const levels = args.levels === undefined || args.levels === 0 ? drafts.length : args.levels;
      const frames: DebugProtocol.StackFrame[] = drafts.slice(start, start + levels).map((d, i) => {
        const id = this.frameIdFor(args.threadId, start + i, d.ref, epoch);
        const f: DebugProtocol.StackFrame = { ...d.frame, id };
        if (f.line > 0) f.line = this.core.convertDebuggerLineToClient(f.line);
        if (f.column > 0) f.column = this.core.convertDebuggerColumnToClient(f.column);
        if (f.source?.path !== undefined)
          f.source = { ...f.source, path: this.core.convertDebuggerPathToClient(f.source.path) };
        return f;
      });
      response.body = { stackFrames: frames, totalFrames: drafts.length };
      this.core.sendResponse(response);
    });
  }

  /** Frame ids are stable within a stop (the same thread and position give the same id). */
  private readonly frameIds = new Map<string, number>();

  private frameIdFor(threadId: number, position: number, ref: FrameRef, epoch: number): number {
    const key = `${epoch}:${threadId}:${position}`;
    let id = this.frameIds.get(key);
    if (id === undefined) {
      if (this.frameIds.size > 10_000) this.frameIds.clear();
      id = this.nextFrameId++;
      this.frameIds.set(key, id);
    }
    this.cache.frameRefs.set(id, ref);
    return id;
  }

  exceptionInfoRequest(
    response: DebugProtocol.ExceptionInfoResponse,
    args: DebugProtocol.ExceptionInfoArguments,
  ): void {
    const stop = this.core.currentStop;
    if (args.threadId === CALLBACK_THREAD_ID) {
      this.core.serve(response, async () => {
        const cb = await this.core.callbackStageTrace();
        if (cb === null) throw new Error('no callback-stage trace at this stop');
        response.body = exceptionInfoOf(cb, 'always');
        this.core.sendResponse(response);
      });
      return;
    }
    if (stop?.deadlock !== undefined && stop.threadId === args.threadId) {
      response.body = deadlockExceptionInfo(stop.deadlock);
      this.core.sendResponse(response);
      return;
    }
    const tb =
      args.threadId === LOOP_THREAD_ID ? this.core.callbackFailure : (this.core.exceptions.get(args.threadId) ?? null);
    const caught =
      stop !== null &&
      stop.taskId === args.threadId &&
      stop.reason === 'exception' &&
      this.core.tasks.tasks.get(args.threadId)?.state !== 'failed';
    const breakMode: DebugProtocol.ExceptionBreakMode = stop?.reason === 'cancelled' || caught ? 'always' : 'unhandled';
    if (tb !== null) {
      response.body = exceptionInfoOf(tb, breakMode);
    } else if (
      stop !== null &&
      stop.threadId === args.threadId &&
      (stop.reason === 'exception' || stop.reason === 'cancelled')
    ) {
      const { name } =
        stop.reason === 'cancelled'
          ? { name: 'CancelledError' }
          : splitError(stop.description.replace(/^.*?failed: /, ''));
      response.body = { exceptionId: name, description: stop.description, breakMode };
    } else {
      this.core.fail(response, ERR_NOT_RUNNING, 'no exception on this thread');
      return;
    }
    this.core.sendResponse(response);
  }

  /**
   * Cancels the tasks of the threads, on behalf of the debugger; the loop's threads are not tasks and
   * finished tasks cannot be cancelled: refused.
   */
  terminateThreadsRequest(
    response: DebugProtocol.TerminateThreadsResponse,
    args: DebugProtocol.TerminateThreadsArguments,
  ): void {
    this.core.serve(response, async () => {
      const ids = args.threadIds ?? [];
      if (ids.length === 0) throw new Error('Terminate Thread: no thread given');
      const notTasks = ids.filter((id) => id >= LOOP_THREAD_ID);
      if (notTasks.length > 0)
        throw new Error(
          'Terminate Thread: the event loop and its callbacks are not tasks; only a task can be cancelled',
        );
      const host = this.core.requireHost();
      const finished: number[] = [];
      for (const taskId of ids)
        if (!(await host.endpoint.request('cancelTask', { taskId, by: 'debugger' })).cancelled) finished.push(taskId);
      if (finished.length > 0)
        throw new Error(
          `Terminate Thread: task ${finished.map((id) => `#${id}`).join(', ')} had already finished; nothing to cancel`,
        );
      this.core.sendResponse(response);
    });
  }
}
