// Runs on a runtime host's line debugger worker thread (live or line replay host).
//
// StopView: what a stop on a line shows: its real frames (the machinery left out, a task's frames ending at the
// Task._step that resumed it), each frame's scopes and their variables, an expression evaluated in a frame.
// Invariants: handles are valid during one stop only (forget() at every stop, step and resume); a `let`,
// `const` or `class` binding V8 reads `undefined` in its temporal dead zone shows UNINITIALIZED_TEXT, one that may
// be (a skipped `case`'s) UNDECIDED_TEXT (frame-dead-zones.ts), in the Variables, in the locals the line replay
// compares (localsOf) and in the past alike.

import type { LineFrameInfo, VariableInfo } from '../../../protocol/host-protocol';
import { UNDECIDED_TEXT, UNINITIALIZED_TEXT } from '../../inspect/lexical-bindings';
import type { CdpCallFrame, CdpPaused, CdpPropertyDescriptor, CdpRemoteObject, CdpScope } from './cdp-shapes';
import { FrameDeadZones } from './frame-dead-zones';
import type { LoadedScripts } from './loaded-scripts';

const MAX_VALUE = 200;

/** What a handle names: a scope of a frame (its variables can be in their dead zone), or a value. */
interface Handled {
  readonly objectId: string;
  readonly frame: CdpCallFrame | null;
  readonly scope: CdpScope | null;
}

function cut(text: string): string {
  return text.length <= MAX_VALUE ? text : `${text.slice(0, MAX_VALUE - 1)}…`;
}

export class StopView {
  private handles = new Map<number, Handled>();
  private nextHandle = 1;
  private readonly deadZones: FrameDeadZones;

  constructor(
    private readonly post: <T>(method: string, params: object) => Promise<T>,
    private readonly scripts: LoadedScripts,
    /** The stop shown (null: not stopped), its task. */
    private readonly stopped: () => { paused: CdpPaused; taskId: number | null } | null,
  ) {
    this.deadZones = new FrameDeadZones(post);
  }

  /** The stop's handles end (a new stop, a step, a resume). */
  forget(): void {
    this.handles = new Map();
  }

  private handleOf(
    objectId: string | undefined,
    frame: CdpCallFrame | null = null,
    scope: CdpScope | null = null,
  ): number {
    if (objectId === undefined) return 0;
    const h = this.nextHandle++;
    this.handles.set(h, { objectId, frame, scope });
    return h;
  }

  private requireStop(method: string): { paused: CdpPaused; taskId: number | null } {
    const s = this.stopped();
    if (s === null) throw new Error(`${method}: the program is not stopped on a line`);
    return s;
  }

  /** The real frames of the stop, innermost first, the machinery left out. */
  stack(): { taskId: number | null; frames: LineFrameInfo[] } {
    const { paused, taskId } = this.requireStop('lineStack');
    const frames: LineFrameInfo[] = [];
    for (const f of paused.callFrames) {
      // A task's frames end at the Task._step that resumed it (LineDebugger.walkFrames says why).
      if (f.functionName === '_step' && this.scripts.isMachinery(f)) break;
      if (this.scripts.isMachinery(f)) continue;
      const { position, generated } = this.scripts.positionOf(f.location);
      const scopes = f.scopeChain
        .filter((s) => s.type !== 'global')
        .map((s) => ({ name: scopeName(s), handle: this.handleOf(s.object.objectId, f, s) }));
      frames.push({
        index: frames.length,
        name: f.functionName === '' ? '(anonymous)' : f.functionName,
        position,
        generated,
        scopes,
      });
    }
    return { taskId, frames };
  }

  private frameAt(method: string, index: number): CdpCallFrame {
    const user = this.requireStop(method).paused.callFrames.filter((f) => !this.scripts.isMachinery(f));
    const f = user[index];
    if (f === undefined) throw new Error(`${method}: no frame ${index} (0..${user.length - 1})`);
    return f;
  }

  async variables(handle: number): Promise<VariableInfo[]> {
    this.requireStop('lineVariables');
    const handled = this.handles.get(handle);
    if (handled === undefined) throw new Error(`lineVariables: handle ${handle} is not valid at this stop`);
    return this.scopeVariables(handled);
  }

  /** Ahead of a stop in the scripts at `urls`: what judging their locals reads is read now (FrameDeadZones.prime). */
  primeLocals(urls: Iterable<string>): void {
    for (const url of new Set(urls)) {
      const scriptId = this.scripts.scriptIdOf(url);
      if (scriptId !== null) this.deadZones.prime(scriptId);
    }
  }

  /** A frame's local variables as shown (name and value), as the line replay compares them. */
  async localsOf(frame: CdpCallFrame): Promise<Array<{ name: string; value: string }>> {
    const local = frame.scopeChain.find((sc) => sc.type === 'local');
    if (local?.object.objectId === undefined) return [];
    const variables = await this.scopeVariables({ objectId: local.object.objectId, frame, scope: local }, false);
    return variables.map((v) => ({ name: v.name, value: v.value }));
  }

  /** The properties of a handle's object; a scope's `undefined` ones judged against their dead zone. */
  private async scopeVariables(handled: Handled, withHandles = true): Promise<VariableInfo[]> {
    const r = await this.post<{ result: CdpPropertyDescriptor[] }>('Runtime.getProperties', {
      objectId: handled.objectId,
      ownProperties: true,
      generatePreview: false,
    });
    const shown = r.result.filter(
      (p): p is CdpPropertyDescriptor & { value: CdpRemoteObject } => p.value !== undefined,
    );
    const dead =
      handled.frame !== null && handled.scope !== null
        ? await this.deadZones.statesOf(
            handled.frame,
            handled.scope,
            shown.filter((p) => p.value.type === 'undefined').map((p) => p.name),
            shown.filter((p) => p.value.type !== 'undefined').map((p) => p.name),
          )
        : null;
    return shown.map((p) => {
      const state = dead?.get(p.name);
      if (state !== undefined)
        return {
          name: p.name,
          value: state === 'uninitialized' ? UNINITIALIZED_TEXT : UNDECIDED_TEXT,
          type: state === 'uninitialized' ? 'uninitialized' : 'undefined',
          handle: 0,
        };
      return withHandles
        ? this.variableOf(p.name, p.value)
        : { name: p.name, value: this.valueText(p.value), type: '', handle: 0 };
    });
  }

  async evaluate(expression: string, frameIndex: number): Promise<{ value: string; type: string; handle: number }> {
    const frame = this.frameAt('lineEvaluate', frameIndex);
    const r = await this.post<{
      result: CdpRemoteObject;
      exceptionDetails?: { text: string; exception?: CdpRemoteObject };
    }>('Debugger.evaluateOnCallFrame', { callFrameId: frame.callFrameId, expression, silent: true });
    if (r.exceptionDetails !== undefined)
      throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
    const v = this.variableOf('', r.result);
    return { value: v.value, type: v.type, handle: v.handle };
  }

  private variableOf(name: string, o: CdpRemoteObject): VariableInfo {
    const type = o.subtype !== undefined ? o.subtype : (o.className ?? o.type);
    return { name, value: this.valueText(o), type, handle: o.type === 'function' ? 0 : this.handleOf(o.objectId) };
  }

  private valueText(o: CdpRemoteObject): string {
    if (o.type === 'string') return JSON.stringify(cut(String(o.value)));
    if (o.unserializableValue !== undefined) return o.unserializableValue;
    if (o.type === 'undefined') return 'undefined';
    if (o.objectId === undefined) return String(o.value);
    return cut(o.description ?? o.className ?? o.type);
  }
}

function scopeName(s: CdpScope): string {
  switch (s.type) {
    case 'local':
      return 'Locals';
    case 'closure':
      return s.name !== undefined && s.name !== '' ? `Closure (${s.name})` : 'Closure';
    case 'block':
      return 'Block';
    case 'catch':
      return 'Catch';
    case 'script':
      return 'Script';
    case 'module':
      return 'Module';
    default:
      return s.type;
  }
}
