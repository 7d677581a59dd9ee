// Runs on a runtime host's line debugger worker thread (live or line replay host).
//
// FrameDeadZones: which bindings of a paused frame's scope are in their temporal dead zone, so the stop shows them
// as UNINITIALIZED_TEXT where V8's scope object reads `undefined` (lexical-bindings.ts). The frame's function is
// its Local scope's range in the script's source (Debugger.getScriptSource), the position its location, a block
// told by its own range. Invariants: the script's source is asked once per script, a function parsed once; a
// frame whose function cannot be read (no Local scope, no parser, a parse error) judges nothing (null).

import { FunctionBindings, type ScopeKind } from '../../inspect/lexical-bindings';
import { scriptParser } from '../../inspect/script-parser';
import type { CdpCallFrame, CdpLocation, CdpScope } from './cdp-shapes';

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
   * Whether a binding named so, read as `undefined` from `scope` of `frame`, is uninitialized there; null when
   * the frame cannot be judged (every binding is then shown as V8 reads it).
   */
  async judge(frame: CdpCallFrame, scope: CdpScope): Promise<((name: string) => boolean) | null> {
    const kind: ScopeKind | null =
      scope.type === 'local' || scope.type === 'block' || scope.type === 'catch' ? scope.type : null;
    const local = frame.scopeChain.find((s) => s.type === 'local');
    if (kind === null || local?.startLocation === undefined || local.endLocation === undefined) return null;
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
    return (name) => b.stateOf(at, name, kind, range) === 'uninitialized';
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
