// SessionVariables: what a frame of the stop holds: scopes (a coroutine frame's Locals, a line
// frame's scopes, its task, the event loop, the program's own loops), variables (host handles
// behind references), evaluate (in the real frame at a line stop, else in a suspended coroutine's
// locals), and which Variables items can be watched (Go to Last Change, data breakpoints).
//
// Invariants: variables references are valid for the current stop only (dropped by
// SessionCore.invalidate, with the watchable items); a host failure becomes the request's error
// response; a value without children gets reference 0.

import type { DebugProtocol } from '@vscode/debugprotocol';
import type { HostMethods, VariableInfo } from '../../protocol/host-protocol';
import { programLoopScope, programLoopVariables, type ProgramLoopPart } from './program-loop-variables';
import { taskScopeVariables } from './dap-mapping';
import { ERR_EVALUATE, type SessionCore } from './session-core';
import type { StopCache } from './stop-cache';
import { childExpression, type WatchedValue } from './value-changes';

type VarRef =
  | { kind: 'locals'; taskId: number; frameIndex: number }
  /** A scope or value of a line stop (the host's lineVariables handle). */
  | { kind: 'line'; handle: number; watch?: { frameIndex: number; expression: string } }
  | { kind: 'host'; handle: number }
  | { kind: 'task'; taskId: number }
  | { kind: 'loop' }
  /** A part of a program loop of the line stop (programLoops' index). */
  | { kind: 'programLoop'; index: number; part: ProgramLoopPart };
export class SessionVariables {
  constructor(
    private readonly core: SessionCore,
    private readonly cache: StopCache,
  ) {
    core.onInvalidate(() => {
      this.varRefs.clear();
      this.watchables.clear();
    });
  }

  private readonly varRefs = new Map<number, VarRef>();

  private nextVarRef = 1;

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
    const at =
      this.watchables.get(`${variablesReference}\u0000${name}`) ?? (await this.unlistedChild(variablesReference, name));
    if (at === undefined)
      return `"${name}" is not a local or a field the line stop shows (the Locals and closure scopes of a frame, and what they hold)`;
    const { frames } = await this.cache.lineFrames();
    const frame = frames[at.frameIndex];
    if (frame === undefined) return `the frame of "${name}" is no longer on the stack`;
    return { expression: at.expression, functionName: frame.name, depth: frames.length - 1 - at.frameIndex };
  }

  /**
   * A field of a value whose contents Variables has not listed yet (a DAP client may ask dataBreakpointInfo
   * before expanding it): read from the line stop now; undefined when the value holds no such field.
   */
  private async unlistedChild(
    variablesReference: number,
    name: string,
  ): Promise<{ frameIndex: number; expression: string } | undefined> {
    const ref = this.varRefs.get(variablesReference);
    if (ref?.kind !== 'line' || ref.watch === undefined) return undefined;
    const { variables } = await this.core.requireHost().endpoint.request('lineVariables', { handle: ref.handle });
    if (!variables.some((l) => l.name === name)) return undefined;
    const expression = childExpression(ref.watch.expression, name);
    return expression === '' ? undefined : { frameIndex: ref.watch.frameIndex, expression };
  }

  private varRef(ref: VarRef): number {
    const id = this.nextVarRef++;
    this.varRefs.set(id, ref);
    return id;
  }

  scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    const ref = this.cache.frameRefs.get(args.frameId);
    const scopes: DebugProtocol.Scope[] = [];
    if (ref?.kind === 'line') {
      this.core.serve(response, async () => {
        const frame = (await this.cache.lineFrames()).frames[ref.frameIndex];
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
        for (const [index, loop] of (await this.cache.loopsAtStop()).entries())
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
        const detail = await this.cache.detailOf(ref.taskId, true);
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
        const loop = (await this.cache.loopsAtStop())[ref.index];
        variables =
          loop === undefined
            ? []
            : programLoopVariables(loop, ref.part, (part) =>
                this.varRef({ kind: 'programLoop', index: ref.index, part }),
              );
      } else if (ref.kind === 'task') {
        const detail = await this.cache.detailOf(ref.taskId, false).catch(() => null);
        const summary = detail?.task ?? this.core.tasks.tasks.get(ref.taskId);
        // The tasks it names (creator, awaiters) by their names, whichever view asked first (the table is
        // refilled by a Call Stack's threads request, which may not have come yet at this moment).
        const named = [summary?.createdBy ?? null, ...(summary?.awaitedBy ?? []), ...(detail?.awaitChain ?? [])];
        if (named.some((id) => id !== null && this.core.nameOf(id) === undefined))
          await this.core.refreshTasks().catch(() => undefined);
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
        const ref = args.frameId !== undefined ? this.cache.frameRefs.get(args.frameId) : undefined;
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
}
