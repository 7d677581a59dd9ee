// Runs on a runtime host's line debugger worker thread (live or line replay host).
//
// FrameDeadZones: which bindings of a paused frame's scope are in their temporal dead zone, so the stop shows them
// as UNINITIALIZED_TEXT where V8's scope object reads `undefined`. A Local or Block binding is judged from the
// function's text (lexical-bindings.ts; its function is its Local scope's range in Debugger.getScriptSource); one
// the text cannot decide (a Closure, Script or Module scope's; a `let` of a `case` a jump may have skipped) is
// asked of V8 at the stop: reading it in the frame throws exactly in its dead zone when it lives in a context
// (readIn); a skipped `case`'s stack slot reads `undefined` either way, so it is 'unknown'. Invariants: a script's
// source is asked once, a function parsed once; a name an inner scope shadows is not read (it would read the inner
// one); `var`-like scopes (global, with, catch) have no dead zone.
import { type BindingState, FunctionBindings, type ScopeKind } from '../../inspect/lexical-bindings';
import { scriptParser } from '../../inspect/script-parser';
import type { CdpCallFrame, CdpLocation, CdpPropertyDescriptor, CdpRemoteObject, CdpScope } from './cdp-shapes';

/** Scopes whose bindings V8 can hold in their dead zone. */
const LEXICAL = new Set(['local', 'block', 'closure', 'script', 'module']);

/** A script's text and where its lines begin. */
interface ScriptText {
  readonly text: string;
  readonly lineStarts: readonly number[];
}

export class FrameDeadZones {
  private readonly sources = new Map<string, Promise<ScriptText | null>>();
  private readonly functions = new Map<string, FunctionBindings | null>();

  constructor(private readonly post: <T>(method: string, params: object) => Promise<T>) {}

  /**
   * Which of `names` (read as `undefined` from `scope` of `frame`) are uninitialized there, and which may be
   * ('unknown'); the others are shown as V8 reads them. `valued` (read with a value): those the function's text
   * says are in their dead zone, as a `let`/`const` of a loop's body is at each iteration before its
   * declaration, where V8 reads the register the last iteration left (a value that is not there).
   */
  async statesOf(
    frame: CdpCallFrame,
    scope: CdpScope,
    names: readonly string[],
    valued: readonly string[] = [],
  ): Promise<Map<string, 'uninitialized' | 'unknown'>> {
    const out = new Map<string, 'uninitialized' | 'unknown'>();
    if (!LEXICAL.has(scope.type) || names.length + valued.length === 0) return out;
    const judge = scope.type === 'local' || scope.type === 'block' ? await this.fromText(frame, scope) : null;
    for (const name of valued) if (judge?.(name) === 'uninitialized') out.set(name, 'uninitialized');
    const asked: string[] = [];
    for (const name of names) {
      const state = judge?.(name) ?? null;
      if (state === 'uninitialized') out.set(name, state);
      else if (state === 'unknown' || (state === null && judge === null)) asked.push(name);
    }
    if (asked.length === 0) return out;
    const shadowed = await this.namesInside(frame, scope);
    for (const name of asked) {
      const read = shadowed.has(name) ? 'undefined' : await this.readIn(frame, name);
      if (read === 'none') out.set(name, 'uninitialized');
      // A stack slot of a `case` a jump may have skipped: V8's evaluation reads its hole as `undefined` too.
      else if (judge !== null) out.set(name, 'unknown');
    }
    return out;
  }

  /**
   * Reads script `scriptId`'s text and loads the parser ahead of a stop in it: the first stop's locals are judged
   * without waiting for either (a replay host's first walk of a stop compares the stop's locals at its end).
   */
  prime(scriptId: string): void {
    void this.sourceOf(scriptId);
    scriptParser();
  }

  /** The states the function's text tells for a Local or Block scope's bindings; null when it cannot be read. */
  private async fromText(
    frame: CdpCallFrame,
    scope: CdpScope,
  ): Promise<((name: string) => BindingState | null) | null> {
    const kind: ScopeKind = scope.type === 'local' ? 'local' : 'block';
    const local = frame.scopeChain.find((s) => s.type === 'local');
    if (local?.startLocation === undefined || local.endLocation === undefined) return null;
    const script = await this.sourceOf(frame.location.scriptId);
    if (script === null) return null;
    const start = offsetOf(script, local.startLocation);
    const key = `${frame.location.scriptId}:${start}`;
    let bindings = this.functions.get(key);
    if (bindings === undefined) {
      const parse = scriptParser();
      bindings =
        parse === null
          ? null
          : FunctionBindings.of(script.text.slice(start, offsetOf(script, local.endLocation)), parse);
      this.functions.set(key, bindings);
    }
    if (bindings === null) return null;
    const b = bindings;
    const at = offsetOf(script, frame.location) - start;
    const range: readonly [number, number] | null =
      kind === 'block' && scope.startLocation !== undefined && scope.endLocation !== undefined
        ? [offsetOf(script, scope.startLocation) - start, offsetOf(script, scope.endLocation) - start]
        : null;
    return (name) => b.stateOf(at, name, kind, range);
  }

  /** The names bound by the frame's scopes inside `scope` (they shadow its own). */
  private async namesInside(frame: CdpCallFrame, scope: CdpScope): Promise<Set<string>> {
    const names = new Set<string>();
    for (const s of frame.scopeChain) {
      if (s === scope || s.object.objectId === scope.object.objectId) break;
      if (s.object.objectId === undefined) continue;
      const r = await this.post<{ result: CdpPropertyDescriptor[] }>('Runtime.getProperties', {
        objectId: s.object.objectId,
        ownProperties: true,
        generatePreview: false,
      }).catch(() => ({ result: [] }));
      for (const p of r.result) names.add(p.name);
    }
    return names;
  }

  /**
   * Reading `name` in the frame: 'none' when V8 finds no value, as it throws "before initialization" for a binding
   * of the frame's own context in its dead zone and "is not defined" for one of an enclosing function's (its debug
   * evaluation skips a binding holding no value); else 'undefined' (what the caller saw).
   */
  private async readIn(frame: CdpCallFrame, name: string): Promise<'none' | 'undefined'> {
    if (!/^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(name)) return 'undefined';
    const r = await this.post<{ exceptionDetails?: { text: string; exception?: CdpRemoteObject } }>(
      'Debugger.evaluateOnCallFrame',
      { callFrameId: frame.callFrameId, expression: name, silent: true, throwOnSideEffect: true },
    ).catch(() => ({ exceptionDetails: undefined }));
    const thrown = r.exceptionDetails;
    if (thrown?.exception?.className !== 'ReferenceError') return 'undefined';
    const text = thrown.exception.description ?? thrown.text;
    return /before initialization/.test(text) || text.startsWith(`ReferenceError: ${name} is not defined`)
      ? 'none'
      : 'undefined';
  }

  private sourceOf(scriptId: string): Promise<ScriptText | null> {
    let p = this.sources.get(scriptId);
    if (p === undefined) {
      p = this.post<{ scriptSource: string }>('Debugger.getScriptSource', { scriptId }).then(
        ({ scriptSource: text }) => {
          const lineStarts = [0];
          for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
          return { text, lineStarts };
        },
        () => null,
      );
      this.sources.set(scriptId, p);
    }
    return p;
  }
}

function offsetOf(script: ScriptText, at: CdpLocation): number {
  return (script.lineStarts[at.lineNumber] ?? script.text.length) + (at.columnNumber ?? 0);
}
