// SessionInspection: what a stop shows: threads (tasks, plus the event loop and a failed URL's
// callback stage), stacks (reconstructed `yield*` chains, or the real frames at a line stop),
// scopes and variables (host handles behind references), evaluate, exceptionInfo, Terminate
// Thread (cancel a task), and the Coroutines view's custom requests (custom-requests.ts).
//
// Invariants: frame ids and variables references are valid for the current stop only (their
// caches are dropped by SessionCore.invalidate); a stack or task detail is asked of the host
// once per stop; a host failure becomes the request's error response.

import { resolve } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type {
  HostMethods,
  LineFrameInfo,
  ProgramLoopState,
  TaskDetail,
  VariableInfo,
} from '../../protocol/host-protocol';
import { programLoopScope, programLoopVariables, type ProgramLoopPart } from './program-loop-variables';
import {
  LINE_STEP_MODE_REQUEST,
  TASKS_REQUEST,
  TRACES_REQUEST,
  narrowLineStepMode,
  type TasksBody,
} from './custom-requests';
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
  taskScopeVariables,
  taskStackDrafts,
  threadsOf,
  type CreationLink,
  type FrameDraft,
  type FrameRef,
} from './dap-mapping';
import { ERR_EVALUATE, ERR_NOT_RUNNING, type SessionCore } from './session-core';
import type { SessionBreakpoints } from './session-breakpoints';
import type { LoadedSources } from './session-sources';
import { message } from './stop-events';
import { childExpression, type WatchedValue } from './value-changes';

const CREATION_DEPTH = 4;

type VarRef =
  | { kind: 'locals'; taskId: number; frameIndex: number }
  /** A scope or value of a line stop (the host's lineVariables handle). */
  | { kind: 'line'; handle: number; watch?: { frameIndex: number; expression: string } }
  | { kind: 'host'; handle: number }
  | { kind: 'task'; taskId: number }
  | { kind: 'loop' }
  /** A part of a program loop of the line stop (programLoops' index). */
  | { kind: 'programLoop'; index: number; part: ProgramLoopPart };

export class SessionInspection {
  constructor(
    private readonly core: SessionCore,
    private readonly breakpoints: SessionBreakpoints,
    private readonly sourceFiles: LoadedSources,
  ) {
    core.onInvalidate(() => {
      this.details = new Map();
      this.lineStack = null;
      this.programLoops = null;
      this.stacks = new Map();
      this.frameRefs.clear();
      this.varRefs.clear();
      this.watchables.clear();
    });
  }

  details = new Map<string, Promise<TaskDetail>>();

  /** At a stop on a line: the real frames (asked once per stop). */
  lineStack: Promise<{ taskId: number | null; frames: LineFrameInfo[] }> | null = null;

  /** The program loops at the current line stop (asked once per stop). */
  programLoops: Promise<ProgramLoopState[]> | null = null;

  stacks = new Map<number, Promise<FrameDraft[]>>();

  readonly frameRefs = new Map<number, FrameRef>();

  readonly varRefs = new Map<number, VarRef>();

  private nextFrameId = 1;

  private nextVarRef = 1;

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

  private detailOf(taskId: number, locals: boolean): Promise<TaskDetail> {
    const withLocals = this.details.get(`${taskId}:true`);
    if (withLocals !== undefined) return withLocals;
    const key = `${taskId}:${locals}`;
    let p = this.details.get(key);
    if (p === undefined) {
      const host = this.core.requireHost();
      p = host.endpoint.request('taskDetail', { taskId, locals });
      this.details.set(key, p);
      p.then((d) => this.core.tasks.upsert(d.task)).catch(() => this.details.delete(key));
    }
    return p;
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
      const creator: TaskDetail | null = await this.detailOf(creatorId, false).catch(() => null);
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

  /** The real frames of the current line stop. */
  private lineFrames(): Promise<{ taskId: number | null; frames: LineFrameInfo[] }> {
    this.lineStack ??= this.core.requireHost().endpoint.request('lineStack', {});
    return this.lineStack;
  }

  /** The loops, threads and processes the program runs itself, at this line stop. */
  private loopsAtStop(): Promise<ProgramLoopState[]> {
    this.programLoops ??= this.core
      .requireHost()
      .endpoint.request('programLoops', {})
      .then((r) => r.loops);
    return this.programLoops;
  }

  private async buildStack(threadId: number): Promise<FrameDraft[]> {
    const stop = this.core.currentStop;
    if (stop?.line !== undefined && threadId === stop.threadId) {
      // Stopped on a line: this thread runs, its stack is the real one.
      const { taskId, frames } = await this.lineFrames();
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
    const detail = await this.detailOf(threadId, true);
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
    this.frameRefs.set(id, ref);
    return id;
  }

  /**
   * The values of a line stop's Variables that can be watched (a local of a frame, a field of one), by their
   * container's reference and name: where Go to Last Change and data breakpoints read them.
   */
  private readonly watchables = new Map<string, { frameIndex: number; expression: string }>();

  /**
   * The watched value of a Variables item (its container's reference and its name), or why it cannot be
   * watched.
   */
  async watchedValueOf(variablesReference: number, name: string): Promise<WatchedValue | string> {
    const stop = this.core.currentStop;
    if (stop?.line === undefined)
      return "only a value shown at a stop on a line (a breakpoint, a step, a past line) can be followed: between ticks the locals are a suspended frame's copy";
    const at = this.watchables.get(`${variablesReference}\u0000${name}`);
    if (at === undefined)
      return `"${name}" is not a local or a field the line stop shows (the Locals and closure scopes of a frame, and what they hold)`;
    const { frames } = await this.lineFrames();
    const frame = frames[at.frameIndex];
    if (frame === undefined) return `the frame of "${name}" is no longer on the stack`;
    return { expression: at.expression, functionName: frame.name, depth: frames.length - 1 - at.frameIndex };
  }

  private varRef(ref: VarRef): number {
    const id = this.nextVarRef++;
    this.varRefs.set(id, ref);
    return id;
  }

  scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    const ref = this.frameRefs.get(args.frameId);
    const scopes: DebugProtocol.Scope[] = [];
    if (ref?.kind === 'line') {
      this.core.serve(response, async () => {
        const frame = (await this.lineFrames()).frames[ref.frameIndex];
        const lineScopes: DebugProtocol.Scope[] = (frame?.scopes ?? []).map((sc, i) => ({
          name: sc.name,
          variablesReference:
            sc.handle > 0
              ? this.varRef({ kind: 'line', handle: sc.handle, watch: { frameIndex: ref.frameIndex, expression: '' } })
              : 0,
          expensive: i > 0,
          ...(i === 0 ? { presentationHint: 'locals' as const } : {}),
        }));
        if (ref.taskId !== null)
          lineScopes.push({
            name: 'Task',
            variablesReference: this.varRef({ kind: 'task', taskId: ref.taskId }),
            expensive: false,
          });
        for (const [index, loop] of (await this.loopsAtStop()).entries())
          lineScopes.push(programLoopScope(loop, this.varRef({ kind: 'programLoop', index, part: 'loop' })));
        response.body = { scopes: lineScopes };
        this.core.sendResponse(response);
      });
      return;
    }
    if (ref !== undefined) {
      if (ref.kind === 'coroutine') {
        scopes.push({
          name: 'Locals',
          presentationHint: 'locals',
          variablesReference: this.varRef({ kind: 'locals', taskId: ref.taskId, frameIndex: ref.frameIndex }),
          expensive: false,
        });
      }
      const taskId = ref.kind === 'loop' ? null : ref.taskId;
      if (taskId !== null)
        scopes.push({ name: 'Task', variablesReference: this.varRef({ kind: 'task', taskId }), expensive: false });
      if (ref.kind === 'creation' && ref.creatorId !== null)
        scopes.push({
          name: 'Creator task',
          variablesReference: this.varRef({ kind: 'task', taskId: ref.creatorId }),
          expensive: false,
        });
      if (ref.kind === 'loop' || (ref.kind === 'trace' && ref.taskId === null))
        scopes.push({ name: 'Event loop', variablesReference: this.varRef({ kind: 'loop' }), expensive: false });
    }
    response.body = { scopes };
    this.core.sendResponse(response);
  }

  private variableOf(v: VariableInfo, evaluateName?: string): DebugProtocol.Variable {
    const out: DebugProtocol.Variable = {
      name: v.name,
      value: v.value,
      type: v.type,
      variablesReference: v.handle > 0 ? this.varRef({ kind: 'host', handle: v.handle }) : 0,
    };
    if (evaluateName !== undefined) out.evaluateName = evaluateName;
    return out;
  }

  variablesRequest(response: DebugProtocol.VariablesResponse, args: DebugProtocol.VariablesArguments): void {
    this.core.serve(response, async () => {
      const ref = this.varRefs.get(args.variablesReference);
      let variables: DebugProtocol.Variable[] = [];
      if (ref === undefined) {
        variables = [];
      } else if (ref.kind === 'locals') {
        const detail = await this.detailOf(ref.taskId, true);
        const frame = detail.frames.find((f) => f.index === ref.frameIndex);
        variables = (frame?.locals ?? []).map((l) => this.variableOf(l, l.name));
      } else if (ref.kind === 'line') {
        const r = await this.core.requireHost().endpoint.request('lineVariables', { handle: ref.handle });
        const watch = ref.watch;
        variables = r.variables.map((l) => {
          const expression = watch === undefined ? '' : childExpression(watch.expression, l.name);
          const child =
            expression === '' || watch === undefined ? undefined : { frameIndex: watch.frameIndex, expression };
          const v: DebugProtocol.Variable = {
            name: l.name,
            value: l.value,
            type: l.type,
            variablesReference:
              l.handle > 0
                ? this.varRef(
                    child === undefined
                      ? { kind: 'line', handle: l.handle }
                      : { kind: 'line', handle: l.handle, watch: child },
                  )
                : 0,
          };
          if (child !== undefined) {
            v.evaluateName = expression;
            this.watchables.set(`${args.variablesReference}\u0000${l.name}`, child);
          }
          return v;
        });
      } else if (ref.kind === 'host') {
        const r = await this.core.requireHost().endpoint.request('variables', { handle: ref.handle });
        variables = r.variables.map((l) => this.variableOf(l));
      } else if (ref.kind === 'programLoop') {
        const loop = (await this.loopsAtStop())[ref.index];
        variables =
          loop === undefined
            ? []
            : programLoopVariables(loop, ref.part, (part) =>
                this.varRef({ kind: 'programLoop', index: ref.index, part }),
              );
      } else if (ref.kind === 'task') {
        const detail = await this.detailOf(ref.taskId, false).catch(() => null);
        const summary = detail?.task ?? this.core.tasks.tasks.get(ref.taskId);
        variables = summary === undefined ? [] : taskScopeVariables(summary, detail, this.core.nameOf);
      } else {
        await this.core.refreshTasks().catch(() => undefined);
        const v = (name: string, value: string): DebugProtocol.Variable => ({ name, value, variablesReference: 0 });
        const loop = this.core.loopState();
        variables = [
          v('tick', String(loop.tick)),
          v('paused', String(loop.paused)),
          ...Object.entries(this.core.tasks.counts).map(([state, n]) => v(`tasks ${state}`, String(n))),
        ];
        const p = this.core.tasks.progress;
        if (p !== null)
          variables.push(
            v(
              'crawl',
              `${p.done} done, ${p.queued} queued, ${p.inFlight} in flight, ${p.errors} errors, ${p.seen} seen`,
            ),
          );
      }
      const start = args.start ?? 0;
      response.body = {
        variables:
          args.count !== undefined && args.count > 0
            ? variables.slice(start, start + args.count)
            : variables.slice(start),
      };
      this.core.sendResponse(response);
    });
  }

  evaluateRequest(response: DebugProtocol.EvaluateResponse, args: DebugProtocol.EvaluateArguments): void {
    this.core.serve(
      response,
      async () => {
        const ref = args.frameId !== undefined ? this.frameRefs.get(args.frameId) : undefined;
        if (ref?.kind === 'line' || (ref === undefined && this.core.currentStop?.line !== undefined)) {
          // Stopped on a line: evaluate in the real frame (its locals, closures, `this`).
          const r = await this.core.requireHost().endpoint.request('lineEvaluate', {
            expression: args.expression,
            frameIndex: ref?.kind === 'line' ? ref.frameIndex : 0,
          });
          response.body = {
            result: r.value,
            type: r.type,
            variablesReference: r.handle > 0 ? this.varRef({ kind: 'line', handle: r.handle }) : 0,
          };
          this.core.sendResponse(response);
          return;
        }
        const params: HostMethods['evaluate']['params'] = { expression: args.expression };
        if (ref?.kind === 'coroutine') {
          params.taskId = ref.taskId;
          params.frameIndex = ref.frameIndex;
        }
        const r = await this.core.requireHost().endpoint.request('evaluate', params);
        response.body = {
          result: r.value,
          type: r.type,
          variablesReference: r.handle > 0 ? this.varRef({ kind: 'host', handle: r.handle }) : 0,
        };
        this.core.sendResponse(response);
      },
      ERR_EVALUATE,
    );
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
