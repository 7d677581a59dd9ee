// Runs on a runtime host's line debugger worker thread (live or line replay host), debugging the main thread
// through node:inspector (`Session.connectToMainThread()`: a paused main thread runs nothing).
//
// LineDebugger: the session and its stops. Each V8 pause is told apart (the line replay's walk, a stepped task's
// suspension, a breakpoint and its hit condition, a step's landing) and becomes a stop or a resume. Its rooms:
// loaded-scripts.ts (positions both ways, the machinery), line-breakpoints.ts, line-steps.ts (a step that stays
// with its task across `yield*`), stop-view.ts (frames, variables). For the line replay, stopPrint() describes a
// stop for a replay host to find again, and a walk's hook resumes or stops (docs/design/line-debugging.md).
// Invariants: temporary breakpoints are removed at every stop and every continue; object handles are only
// valid during one stop; every stop emits one `paused` and every resume one `continued`; the loop's clock is
// held from a stop's first pause until the thread goes on.

import type { Session } from 'node:inspector';
import type {
  ArmedBreakpoint,
  LineFrameInfo,
  LineStopPrint,
  LineStepKind,
  LineStepMode,
  SourcePosition,
  VariableInfo,
  Breakpoint,
  BreakpointStatus,
  HostEvents,
} from '../../../protocol/host-protocol';
import type { BreakpointsSetAt, HitsSince } from '../../inspect/hit-count';
import { addHeldTime, holdBegan } from '../../held-time';
import type { StopFrame } from './stop-place';
import { LineSteps } from './line-steps';
import type { CdpCallFrame, CdpLocation, CdpPaused, CdpRemoteObject, WalkFrame, WalkVerdict } from './cdp-shapes';
import { LoadedScripts } from './loaded-scripts';
import { LineBreakpoints, type LineBreakpointEntry } from './line-breakpoints';
import { StopView } from './stop-view';

export type { CdpCallFrame, CdpLocation, CdpPaused, CdpRemoteObject, WalkFrame, WalkVerdict } from './cdp-shapes';
export type { BreakpointsSetAt } from '../../inspect/hit-count';

export interface LineDebuggerHost {
  /** Sends an event to the client. */
  emit<E extends 'paused' | 'continued' | 'output'>(event: E, body: HostEvents[E]): void;
  /** Called at each stop before `paused` is emitted (the worker answers what waited). */
  stopped(): Promise<void>;
  /** The main thread's held-time counter (held-time.ts): each hold is added before the thread goes on. */
  readonly heldTime: SharedArrayBuffer | null;
  /**
   * A line replay host's (line-replay-host.ts): the thread stops only where a walk, a search or
   * a line step asks; any other pause (a stepping V8 left behind, which breaks where a
   * generator it stepped over resumes in a later replay) is let go.
   */
  readonly replayOnly?: boolean;
}
export class LineDebugger {
  private readonly scripts = new LoadedScripts();
  private readonly breakpoints: LineBreakpoints;
  private readonly view: StopView;
  private current: CdpPaused | null = null;
  private stopTaskId: number | null = null;
  /** The name of the stop's task (null: outside any task, or not known). */
  private stopTaskName: string | null = null;
  private stopTick = 0;
  /** The run stopped in is recorded (its past can be replayed: line-replay-host.ts). */
  private stopInRecorded = false;
  private mode: LineStepMode = 'stayWithTask';
  /** When (this thread's clock) the main thread was paused; null while it runs. */
  private heldSince: number | null = null;
  private enabled: Promise<void>;
  private walk: {
    ids: ReadonlySet<string>;
    hook: (paused: CdpPaused) => Promise<WalkVerdict>;
    stopped: () => void;
  } | null = null;
  /** The line step under way, its temporary breakpoints (line-steps.ts). */
  private readonly steps: LineSteps;

  constructor(
    private readonly session: Session,
    private readonly host: LineDebuggerHost,
  ) {
    this.steps = new LineSteps({
      post: <T>(method: string, params: object) => this.post<T>(method, params),
      callMain: (expression) => this.callMain(expression),
      resume: (announce) => this.resume(announce),
      stop: (reason) => this.stop(reason),
      stepRaw: (kind) => this.stepRaw(kind),
      log: (text) => this.log(text),
      emit: (event, body) => this.host.emit(event, body),
      mode: () => this.mode,
      stopTick: () => this.stopTick,
      hasScript: (scriptId) => this.scripts.has(scriptId),
      positionOf: (loc) => this.scripts.positionOf(loc),
      lineOf: (frame) => this.scripts.lineOf(frame),
      lineOfLocation: (loc) => this.scripts.lineOfLocation(loc),
      isLibrary: (frame) => this.scripts.isLibrary(frame),
      isMachinery: (frame) => this.scripts.isMachinery(frame),
      stopTaskName: () => this.stopTaskName,
    });
    session.on('Debugger.scriptParsed', (m: { params: { scriptId: string; url: string; sourceMapURL?: string } }) =>
      this.onScript(m.params),
    );
    session.on('Debugger.paused', (m: { params: CdpPaused }) => {
      this.onPaused(m.params).catch((e: unknown) =>
        this.log(`line debugger: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
      );
    });
    this.enabled = this.post('Debugger.enable', {}).then(() => undefined);
    const post = <T>(method: string, params: object): Promise<T> => this.post<T>(method, params);
    this.breakpoints = new LineBreakpoints(post, this.enabled, this.scripts);
    this.view = new StopView(post, this.scripts, () =>
      this.current === null ? null : { paused: this.current, taskId: this.stopTaskId },
    );
  }

  /** A Chrome DevTools Protocol call on the main thread's session (the line replay's walk plants with it). */
  cdp<T>(method: string, params: object): Promise<T> {
    return this.post<T>(method, params);
  }

  /**
   * The line replay's walk (past-line-walk.ts): stops at its breakpoints `ids` go to `hook`
   * instead, which says whether the main thread goes on or stops there (a stop like a step's),
   * or leaves the stop to the line step under way ('step'). `stopped` is told of every stop.
   */
  setWalkHook(
    ids: ReadonlySet<string>,
    hook: ((paused: CdpPaused) => Promise<WalkVerdict>) | null,
    stopped: (() => void) | null,
  ): void {
    this.walk = hook === null ? null : { ids, hook, stopped: stopped ?? (() => undefined) };
  }

  private post<T>(method: string, params: object): Promise<T> {
    return new Promise((resolve, reject) => {
      this.session.post(method, params, (err: Error | null, result?: object) =>
        err !== null && err !== undefined ? reject(err) : resolve(result as T),
      );
    });
  }

  private log(text: string): void {
    this.host.emit('output', { category: 'log', text: `${text}\n` });
  }

  isStopped(): boolean {
    return this.current !== null;
  }

  tick(): number {
    return this.stopTick;
  }

  /** The run of the current (or last) stop is recorded. */
  stopRecorded(): boolean {
    return this.stopInRecorded;
  }

  /**
   * Reads the source maps of the scripts loaded so far now, both ways (generated to TypeScript,
   * and TypeScript to generated: reverseOf), rather than at the first stop or breakpoint search
   * that needs them (a line replay host's first walk or search, line-replay-host.ts, would wait
   * on it: the reverse index alone took 100-300 ms of the first Reverse Continue).
   */
  async warm(): Promise<void> {
    await this.enabled;
    this.scripts.warm();
  }

  setMode(mode: LineStepMode): void {
    this.mode = mode;
  }

  // --- scripts and breakpoints (loaded-scripts.ts, line-breakpoints.ts) --------------------------

  private onScript(p: { scriptId: string; url: string; sourceMapURL?: string }): void {
    const kept = this.scripts.add(p);
    if (kept === 'mapped') this.breakpoints.scriptParsed(p.scriptId);
    if (kept !== 'plain') return;
    // A plain JavaScript file: its lines with code are V8's breakable positions (no map says them).
    this.post<{ locations: CdpLocation[] }>('Debugger.getPossibleBreakpoints', {
      start: { scriptId: p.scriptId, lineNumber: 0, columnNumber: 0 },
    }).then(
      (r) => {
        this.scripts.indexPlain(p.scriptId, r.locations);
        this.breakpoints.scriptParsed(p.scriptId);
      },
      (e: unknown) => this.log(`line debugger: the lines of ${p.url} are unknown: ${String(e)}`),
    );
  }

  /** Sets the line breakpoints of `file` (replacing its previous ones). */
  setLineBreakpoints(
    file: string,
    breakpoints: readonly Breakpoint[],
    reuse: LineBreakpointEntry[] | null = null,
    setAt: BreakpointsSetAt = 'start',
  ): Promise<BreakpointStatus[]> {
    return this.breakpoints.setLineBreakpoints(file, breakpoints, reuse, setAt);
  }

  /** Where TypeScript `file:line` runs in each loaded script (LoadedScripts.generatedLocations). */
  generatedLocations(
    file: string,
    line: number,
    fileLines: number,
  ): Array<{ url: string; line0: number; column0: number; line: number }> {
    return this.scripts.generatedLocations(file, line, fileLines);
  }

  /**
   * A new run (a launch, a recording opened): the breakpoints set count its hits from its start, as the
   * loop's own do.
   */
  newRun(): void {
    this.breakpoints.newRun();
  }

  /** The line breakpoints set, as a search of the recorded past arms them: logpoints left out (they never stop). */
  armedBreakpoints(): ArmedBreakpoint[] {
    return this.breakpoints.armedBreakpoints();
  }

  /** The logpoints set, as a forward step in the past arms them (it prints them on its way). */
  armedLogpoints(): ArmedBreakpoint[] {
    return this.breakpoints.armedLogpoints();
  }

  /** The main thread counted a live logpoint's hit (its hit condition's count) in tick `tick`. */
  noteLogHit(key: number, tick: number): void {
    this.breakpoints.noteLogHit(key, tick);
  }

  // --- stops -----------------------------------------------------------------------------------

  /** Calls the main thread's host handle (globalThis.__coroscopeLine) in the stopped frame. */
  async callMain(expression: string): Promise<unknown> {
    const frame = this.current?.callFrames[0];
    if (frame === undefined) throw new Error('not stopped on a line');
    const r = await this.post<{
      result: CdpRemoteObject;
      exceptionDetails?: { text: string; exception?: CdpRemoteObject };
    }>('Debugger.evaluateOnCallFrame', {
      callFrameId: frame.callFrameId,
      expression: `globalThis.__coroscopeLine.${expression}`,
      returnByValue: true,
      silent: true,
    });
    if (r.exceptionDetails !== undefined)
      throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
    return r.result.value;
  }

  private async onPaused(ev: CdpPaused): Promise<void> {
    if (this.heldSince === null) {
      this.heldSince = performance.now();
      // The loop's clock stands still from now on, for what is evaluated in the stop too.
      if (this.host.heldTime !== null) holdBegan(this.host.heldTime);
    }
    this.current = ev;
    const hits = ev.hitBreakpoints ?? [];
    const top = ev.callFrames[0];
    if (top === undefined) return this.resume();
    const walk = this.walk;
    if (walk !== null && hits.some((id) => walk.ids.has(id))) {
      const verdict = await walk.hook(ev);
      if (verdict === 'resume') return this.resume(false);
      if (verdict === 'stop') return this.stop('step');
    }
    const step = this.steps.step;
    // The stepped task suspended: say so, then run until it resumes (or follow the loop).
    if (hits.some((id) => this.steps.isMarker(id))) return this.steps.suspended(ev, step);
    // The task the step is limited to ended, and another is resumed: the limit lapses (follow the loop).
    if (step !== null && hits.some((id) => this.steps.isLapse(id))) return this.steps.lapse(ev, step);
    const userHits = hits
      .map((id) => this.breakpoints.entryOf(id))
      .filter((e): e is LineBreakpointEntry => e !== undefined);
    const tempHit = hits.some((id) => this.steps.isTemp(id));
    if (userHits.length > 0) {
      let stop = false;
      for (const e of userHits) {
        const count = e.hits.count();
        if (e.counting?.open === true) await this.noteHitTick(e.counting);
        if (count !== null) stop = true;
      }
      // Limited to one task (a line step's, or a task's step between ticks): another task's hit (counted above)
      // does not stop it. That task runs while the limited one is suspended, so V8 is not stepping: it goes on.
      // Once the task ended, the limit has lapsed: the hit stops the move as it would stop one not limited.
      const only = step === null ? this.limited : step.oneTask === true ? step.taskId : null;
      if (stop && only !== null && (await this.runningTask()) !== only && !(await this.isGone(only)))
        return this.resume(false);
      if (stop) return this.stop('breakpoint');
      if (step === null) return this.resume(false);
    }
    if (step !== null) return this.steps.stepped(ev, step, top, tempHit);
    if (this.host.replayOnly === true) return this.resume(false);
    // No breakpoint hit and no step under way: a `debugger` statement stops, as in js-debug. Anything else in
    // code whose lines are known is V8 finishing a step given up at a stop (it steps over a generator's `yield`
    // by breaking where that generator resumes, however much later): nobody's stop, so the program goes on as
    // if not looked at. Where the line is not known, it stops, as a debugger statement may be there.
    const at = this.positionOfFrame(top);
    if (ev.reason === 'other' && hits.length === 0 && at !== null && !/\bdebugger\b/.test(this.steps.lineText(at)))
      return this.resume(false);
    return this.stop(ev.reason === 'other' ? 'pause' : 'breakpoint');
  }

  /**
   * A task's step between ticks limited to it (stepTask's `oneTask`), until the next loop move or stop: other
   * tasks' line hits meanwhile are counted, and the program goes on (null: none).
   */
  private limited: number | null = null;

  /** The task the next loop move is limited to (null: none). */
  limitTo(taskId: number | null): void {
    this.limited = taskId;
  }

  /** Whether task `taskId` is no longer live where the thread is paused (it ended; false: live, or not known). */
  private async isGone(taskId: number): Promise<boolean> {
    return (await this.callMain(`gone(${taskId})`).catch(() => false)) === true;
  }

  /** The task running where the thread is paused (null: outside any task, or not known). */
  private async runningTask(): Promise<number | null> {
    const w = (await this.callMain('where()').catch(() => null)) as { taskId?: unknown } | null;
    return typeof w?.taskId === 'number' ? w.taskId : null;
  }

  /**
   * A hit counted live of a hit condition set while the run went: its tick, while it may be the one the
   * breakpoint was set in.
   */
  private async noteHitTick(counting: HitsSince): Promise<void> {
    const w = (await this.callMain('where()').catch(() => null)) as { tick?: unknown } | null;
    if (typeof w?.tick === 'number') counting.noteTick(w.tick);
  }

  private async stop(reason: 'breakpoint' | 'step' | 'pause'): Promise<void> {
    this.limited = null;
    await this.steps.clearTemps();
    this.steps.step = null;
    this.view.forget();
    const where = await this.callMain('where()').catch(() => null);
    const w = (typeof where === 'object' && where !== null ? where : {}) as {
      taskId?: unknown;
      tick?: unknown;
      taskName?: unknown;
      recorded?: unknown;
    };
    this.stopTaskId = typeof w.taskId === 'number' ? w.taskId : null;
    this.stopTaskName = typeof w.taskName === 'string' ? w.taskName : null;
    this.stopTick = typeof w.tick === 'number' ? w.tick : 0;
    this.stopInRecorded = w.recorded === true;
    const meanwhile = this.steps.meanwhile;
    if (meanwhile !== null && reason === 'step' && meanwhile.taskId === this.stopTaskId)
      await this.steps.sayMeanwhile(
        meanwhile,
        typeof w.taskName === 'string' ? w.taskName : `task #${meanwhile.taskId}`,
      );
    this.steps.meanwhile = null;
    await this.host.stopped();
    const top = this.current!.callFrames.find((f) => !this.scripts.isMachinery(f)) ?? this.current!.callFrames[0]!;
    const pos = this.scripts.positionOf(top.location);
    const line = pos.position ?? pos.generated;
    const who = typeof w.taskName === 'string' ? `${w.taskName}` : 'the main thread';
    const at = line === null ? '' : ` at ${line.file}:${line.line}`;
    const body: HostEvents['paused'] = { reason, tick: this.stopTick, description: `${who} stopped on a line${at}` };
    if (this.stopTaskId !== null) body.taskId = this.stopTaskId;
    if (line !== null) body.line = line;
    this.host.emit('paused', body);
    this.walk?.stopped();
  }

  // --- execution --------------------------------------------------------------------------------

  /** The main thread is about to go on: its hold (since the first pause of this stop) is counted as held time. */
  private countHold(): void {
    if (this.heldSince === null) return;
    if (this.host.heldTime !== null) addHeldTime(this.host.heldTime, performance.now() - this.heldSince);
    this.heldSince = null;
  }

  /** Resumes the main thread (continue). */
  async resume(announce = true): Promise<void> {
    if (this.current === null) return;
    this.current = null;
    this.view.forget();
    if (announce) {
      await this.steps.clearTemps();
      this.steps.step = null;
      this.steps.meanwhile = null;
    }
    this.countHold();
    await this.post('Debugger.resume', {});
    if (announce) this.host.emit('continued', { tick: this.stopTick });
  }

  /**
   * Drops the line step under way, if any, with its temporary breakpoints (a line replay's walk let go before
   * the step stopped).
   */
  async dropStep(): Promise<void> {
    this.steps.step = null;
    await this.steps.clearTemps();
  }

  /** Lets the program run with breakpoints off (a stop or a new launch while stopped); `on` turns them back. */
  async setBreakpointsActive(on: boolean): Promise<void> {
    await this.post('Debugger.setBreakpointsActive', { active: on });
  }

  /** One V8 step (over, into, out) from the current pause. */
  private async stepRaw(kind: LineStepKind): Promise<void> {
    this.current = null;
    this.countHold();
    // A step over of a line skips that line's own break locations (LineSteps.skipList).
    const skipList = kind === 'over' ? this.steps.skipList() : [];
    await this.post(
      kind === 'over' ? 'Debugger.stepOver' : kind === 'into' ? 'Debugger.stepInto' : 'Debugger.stepOut',
      skipList.length > 0 ? { skipList } : {},
    );
  }

  /** One line step from the current stop. */
  async lineStep(kind: LineStepKind, oneTask = false): Promise<void> {
    const paused = this.current;
    if (paused === null) throw new Error('lineStep: the program is not stopped on a line');
    await this.steps.plan(kind, paused.callFrames, this.stopTaskId, oneTask);
    this.host.emit('continued', { tick: this.stopTick });
    this.view.forget();
    await this.stepRaw(kind);
  }

  // --- the line replay (line-replay-host.ts, past-line-walk.ts) ---------------------------------

  /**
   * A paused thread's frames outside the machinery, innermost first, as the line replay compares
   * them: a task's own, down to the Task._step that resumed it. What runs the loop below that
   * step is no frame of the task, and differs between runs of the same tick: the live host's
   * loop ticks from the event loop's callbacks, a replay's first tick inside the call that
   * started the program (a sample's runUntilComplete, its `run` below it).
   */
  walkFrames(paused: CdpPaused): WalkFrame[] {
    const out: WalkFrame[] = [];
    for (const f of paused.callFrames) {
      if (f.functionName === '_step' && this.scripts.isMachinery(f)) break;
      if (this.scripts.isMachinery(f)) continue;
      const url = this.scripts.urlOf(f.location.scriptId);
      const fn = f.functionLocation;
      out.push({
        frame: f,
        url,
        functionKey: fn === undefined ? `${url}:?` : `${url}:${fn.lineNumber}:${fn.columnNumber ?? 0}`,
        line: this.scripts.lineOf(f),
        position: {
          url,
          functionLine: fn?.lineNumber ?? 0,
          functionColumn: fn?.columnNumber ?? 0,
          line: f.location.lineNumber,
          column: f.location.columnNumber ?? 0,
        },
      });
    }
    return out;
  }

  /**
   * Every frame of the current stop, Node's and the machinery's too, innermost first, as stop-place.ts reads
   * them (empty: not stopped).
   */
  stopFrames(): StopFrame[] {
    return (this.current?.callFrames ?? []).map((f) => {
      const { position, generated } = this.scripts.positionOf(f.location);
      const at = position ?? generated;
      return {
        functionName: f.functionName,
        url: this.scripts.urlOf(f.location.scriptId),
        file: at?.file ?? null,
        line: at?.line ?? null,
      };
    });
  }

  /** The frames of the current stop outside the machinery, innermost first (empty: not stopped). */
  stoppedFrames(): WalkFrame[] {
    return this.current === null ? [] : this.walkFrames(this.current);
  }

  /** A frame's position as shown: its TypeScript line when mapped, else its generated one. */
  positionOfFrame(frame: CdpCallFrame): SourcePosition | null {
    const { position, generated } = this.scripts.positionOf(frame.location);
    return position ?? generated;
  }

  /** The line (as a walk's entries name it) of a break location by URL and generated position; null: unknown. */
  lineAt(url: string, line: number, column: number): string | null {
    return this.scripts.lineAt(url, line, column);
  }

  /** A frame's TypeScript position as lineStack gives it (null: not mapped to a source). */
  sourcePositionOfFrame(frame: CdpCallFrame): SourcePosition | null {
    return this.scripts.positionOf(frame.location).position;
  }

  /** A frame's local variables as shown (name and value). */
  localsOf(frame: CdpCallFrame): Promise<Array<{ name: string; value: string }>> {
    return this.view.localsOf(frame);
  }

  /** Ahead of a walk to line stop `print` (a replay's): what comparing its locals reads is read now. */
  primeLocalsOf(print: LineStopPrint): void {
    this.view.primeLocals(print.frames.map((f) => f.url));
  }

  /** The breakpoint on a call of the main thread's walk gate (walk-gate.ts), set once; its id. */
  private gate: Promise<string> | null = null;

  /**
   * The id of the breakpoint that stops the main thread as it calls its walk gate (walk-gate.ts: a traced tick's
   * `gate`), set on first use and kept; refused where the main thread has no gate (its bridge's handle names none).
   */
  walkGate(): Promise<string> {
    this.gate ??= this.post<{ result: CdpRemoteObject }>('Runtime.evaluate', {
      expression: 'globalThis.__coroscopeLine?.walkGate',
      silent: true,
    }).then(async ({ result }) => {
      if (result.type !== 'function' || result.objectId === undefined)
        throw new Error('the main thread has no walk gate');
      const r = await this.post<{ breakpointId: string }>('Debugger.setBreakpointOnFunctionCall', {
        objectId: result.objectId,
      });
      return r.breakpointId;
    });
    const gate = this.gate;
    // Refused: asked again next time.
    gate.catch(() => {
      if (this.gate === gate) this.gate = null;
    });
    return gate;
  }

  /**
   * The current stop as the line replay matches it (LineStopPrint): frames, the innermost's locals, its
   * functions' break locations.
   */
  async stopPrint(): Promise<{ taskId: number | null; tick: number; print: LineStopPrint }> {
    const paused = this.requireStop('lineStepBack');
    const frames = this.walkFrames(paused);
    const locations: LineStopPrint['locations'] = [];
    const seen = new Set<string>();
    for (const f of frames) {
      const fn = f.frame.functionLocation;
      if (fn === undefined || seen.has(f.functionKey)) continue;
      seen.add(f.functionKey);
      const r = await this.post<{ locations: CdpLocation[] }>('Debugger.getPossibleBreakpoints', {
        start: fn,
        restrictToFunction: true,
      });
      for (const loc of r.locations)
        locations.push({ url: f.url, line: loc.lineNumber, column: loc.columnNumber ?? 0 });
    }
    const locals = frames[0] === undefined ? [] : await this.localsOf(frames[0].frame);
    return {
      taskId: this.stopTaskId,
      tick: this.stopTick,
      print: {
        frames: frames.map((f) => f.position),
        locals,
        locations,
        names: frames.map((f) => f.frame.functionName),
      },
    };
  }

  // --- what a stop shows (stop-view.ts) ---------------------------------------------------------

  private requireStop(method: string): CdpPaused {
    if (this.current === null) throw new Error(`${method}: the program is not stopped on a line`);
    return this.current;
  }

  /** The real frames of the stop, innermost first, the machinery left out. */
  stack(): { taskId: number | null; frames: LineFrameInfo[] } {
    return this.view.stack();
  }

  variables(handle: number): Promise<VariableInfo[]> {
    return this.view.variables(handle);
  }

  evaluate(expression: string, frameIndex: number): Promise<{ value: string; type: string; handle: number }> {
    return this.view.evaluate(expression, frameIndex);
  }
}
