// GeneratorReader: reads the frame of a suspended generator in-process with node:inspector, the
// equivalent of Python's gi_frame (name, location, locals). What each read costs:
// docs/design/inspection.md, "Reading frames in-process".
//
// Invariants:
// - Locals are the frame's own scopes at the suspension point (Block and Catch innermost first,
//   then Local; each name once), not Closure/Script/Module/Global; `this` first when an object.
// - Every objectId is released before a read returns; only the handle table keeps values.
// - Reading does not resume, stop or otherwise change the generator or the loop.
// - A lexical binding in its temporal dead zone reads UNINITIALIZED_TEXT, never `undefined`.

import { types } from 'node:util';
import type { Runtime } from 'node:inspector';
import { inspectorSession, type InspectorSession } from './inspector-session';
import { FunctionBindings, UNINITIALIZED_TEXT } from './lexical-bindings';
import { scriptParser } from './script-parser';
import {
  childrenOf,
  HandleTable,
  previewValue,
  type ChildrenPage,
  type HandleSink,
  type NamedPreview,
  type ValuePreview,
} from './value-preview';

/** Where a generator is suspended, in the generated JavaScript (0-based, as V8 counts). */
export interface GeneratorLocation {
  readonly scriptId: string;
  /** The script's URL (`file:///…`), '' if unknown. */
  readonly url: string;
  readonly line0: number;
  readonly column0: number;
  /** The script's `//# sourceMappingURL=` (a data: URL under tsx), or null. */
  readonly sourceMapURL: string | null;
}

export type GeneratorState = 'suspended' | 'running' | 'closed' | 'unknown';

export interface LocalVariable {
  readonly name: string;
  /** The scope it lives in: the receiver, a block or catch scope, or the function's own. */
  readonly scope: 'this' | 'block' | 'catch' | 'local';
  readonly value: ValuePreview;
}

/** One generator frame as read. */
export interface GeneratorFrame {
  /** The generator function's name ('' for an anonymous one). */
  readonly functionName: string;
  readonly state: GeneratorState;
  /** Null if V8 gave none. */
  readonly location: GeneratorLocation | null;
  /** The frame's variables, or null when not asked for (or not readable: a running generator). */
  readonly locals: LocalVariable[] | null;
}

export interface ReadGeneratorOptions {
  /** Read the locals too (one more protocol call per generator). Default false. */
  readonly locals?: boolean;
  /**
   * Where local previews register their handles (e.g. `{ table: reader.handles, group:
   * reader.newHandleGroup() }`; release the group when done). Without it, previews come
   * without handles and nothing is kept.
   */
  readonly handles?: HandleSink;
  /** Function names known to the caller (e.g. a tracked frame's `fn.name`), by index. */
  readonly functionNames?: ReadonlyArray<string | null | undefined>;
}

export interface ReadChildrenOptions {
  readonly offset?: number;
  readonly limit?: number;
  /** Also list `#private` fields (they need the inspector: about 3 protocol calls). Default true. */
  readonly privateFields?: boolean;
}

/** Generators read per object group (see readGenerators). */
const BATCH = 32;

function isLocationValue(v: unknown): v is { scriptId: string; lineNumber: number; columnNumber: number } {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r.scriptId === 'string' && typeof r.lineNumber === 'number' && typeof r.columnNumber === 'number';
}

function asState(v: unknown): GeneratorState {
  return v === 'suspended' || v === 'running' || v === 'closed' ? v : 'unknown';
}

interface ScopeEntry {
  readonly description: string;
  readonly object: object;
}

function asScopeEntries(v: unknown): ScopeEntry[] {
  // V8 hands the scope list over as an array with a null prototype: no iterator, index it.
  if (!Array.isArray(v)) return [];
  const list = v as unknown[];
  const out: ScopeEntry[] = [];
  for (let i = 0; i < list.length; i++) {
    const e = list[i];
    if (typeof e !== 'object' || e === null) continue;
    const d = Object.getOwnPropertyDescriptor(e, 'description');
    const o = Object.getOwnPropertyDescriptor(e, 'object');
    if (
      d === undefined ||
      o === undefined ||
      typeof d.value !== 'string' ||
      typeof o.value !== 'object' ||
      o.value === null
    )
      continue;
    out.push({ description: d.value, object: o.value as object });
  }
  return out;
}

/** A primitive carried by a RemoteObject, as a JS value. */
function primitiveOf(r: Runtime.RemoteObject): unknown {
  if (r.type === 'undefined') return undefined;
  if (r.unserializableValue !== undefined) {
    const u = r.unserializableValue;
    if (u.endsWith('n')) return BigInt(u.slice(0, -1));
    if (u === '-0') return -0;
    return Number(u);
  }
  return r.value;
}

/** A binding in its temporal dead zone (lexical-bindings.ts). */
const UNINITIALIZED: ValuePreview = {
  type: 'uninitialized',
  text: UNINITIALIZED_TEXT,
  className: null,
  size: null,
  handle: null,
};

export class GeneratorReader {
  readonly handles: HandleTable;
  private readonly session: InspectorSession;
  /** By generator function ([[FunctionLocation]]): its declarations, and its text. */
  private readonly bindings = new Map<string, FunctionBindings | null>();
  private readonly functionTexts = new Map<string, string>();

  constructor(session: InspectorSession = inspectorSession(), handles: HandleTable = new HandleTable()) {
    this.session = session;
    this.handles = handles;
  }

  /** A new handle group for previews; release it with releaseHandles. */
  newHandleGroup(): string {
    return this.handles.newGroup('frames');
  }

  releaseHandles(group: string): void {
    this.handles.release(group);
  }

  /** Reads one generator's frame. */
  readGenerator(gen: object, options: ReadGeneratorOptions = {}): GeneratorFrame {
    return this.readGenerators([gen], options)[0]!;
  }

  /** Reads the frames of many generators in one batch (in their order). */
  readGenerators(gens: readonly object[], options: ReadGeneratorOptions = {}): GeneratorFrame[] {
    if (gens.length === 0) return [];
    const wantLocals = options.locals ?? false;
    const sink: HandleSink | null = options.handles ?? null;
    const out: GeneratorFrame[] = [];
    // Chunks, each in its own object group: V8's lookups slow down as a group grows.
    for (let start = 0; start < gens.length; start += BATCH) {
      const chunk = gens.slice(start, start + BATCH);
      this.session.withObjectGroup((group) => {
        const remotes = this.session.remoteObjectsOf(chunk, group);
        for (let i = 0; i < remotes.length; i++) {
          const r = remotes[i]!;
          const known = options.functionNames?.[start + i];
          const name = known ?? (r.subtype === 'generator' ? (r.className ?? '') : '');
          out.push(this.readOne(r, name, wantLocals, sink));
        }
      });
    }
    return out;
  }

  private readOne(
    remote: Runtime.RemoteObject,
    functionName: string,
    wantLocals: boolean,
    sink: HandleSink | null,
  ): GeneratorFrame {
    if (remote.objectId === undefined || remote.subtype !== 'generator') {
      return { functionName, state: 'unknown', location: null, locals: null };
    }
    const props = this.session.getProperties({ objectId: remote.objectId, ownProperties: true });
    let location: GeneratorLocation | null = null;
    let state: GeneratorState = 'unknown';
    let scopesId: string | undefined;
    let receiver: Runtime.RemoteObject | undefined;
    let functionId: string | undefined;
    for (const p of props.internalProperties ?? []) {
      const v = p.value;
      if (v === undefined) continue;
      switch (p.name) {
        case '[[GeneratorLocation]]':
          if (isLocationValue(v.value)) {
            const info = this.session.scriptInfo(v.value.scriptId);
            location = {
              scriptId: v.value.scriptId,
              url: info?.url ?? '',
              line0: v.value.lineNumber,
              column0: v.value.columnNumber,
              sourceMapURL: info?.sourceMapURL ?? null,
            };
          }
          break;
        case '[[GeneratorState]]':
          state = asState(v.value);
          break;
        case '[[Scopes]]':
          scopesId = v.objectId;
          break;
        case '[[GeneratorReceiver]]':
          receiver = v;
          break;
        case '[[GeneratorFunction]]':
          functionId = v.objectId;
          break;
      }
    }
    let locals: LocalVariable[] | null = null;
    if (wantLocals && scopesId !== undefined && state !== 'running') {
      const at = location === null || functionId === undefined ? null : { location, functionId };
      locals = this.readLocals(scopesId, receiver, sink, at);
    }
    return { functionName, state, location, locals };
  }

  private readLocals(
    scopesId: string,
    receiver: Runtime.RemoteObject | undefined,
    sink: HandleSink | null,
    at: { location: GeneratorLocation; functionId: string } | null,
  ): LocalVariable[] {
    const raw = this.rawLocals(scopesId, receiver);
    // V8 reads a binding in its temporal dead zone as undefined, or, for a `let`/`const` of a loop's body
    // suspended before its declaration, as the value the last turn left in its register: the function's text
    // says which are in their dead zone.
    const dead =
      at !== null && raw.some(([, scope]) => scope !== 'this') ? this.deadZoneAt(at.location, at.functionId) : null;
    return raw.map(([name, scope, value]) => ({
      name,
      scope,
      value: dead !== null && scope !== 'this' && dead(name, scope) ? UNINITIALIZED : previewValue(value, sink),
    }));
  }

  /**
   * Which bindings are uninitialized where the generator is suspended: its function's text (toString) from its
   * [[FunctionLocation]] (its parameters' `(`) on, line by line, to the suspension. Null when it cannot be told.
   */
  private deadZoneAt(
    location: GeneratorLocation,
    functionId: string,
  ): ((name: string, scope: 'block' | 'catch' | 'local') => boolean) | null {
    const parse = scriptParser();
    if (parse === null) return null;
    const props = this.session.getProperties({ objectId: functionId, ownProperties: true });
    const start = props.internalProperties?.find((p) => p.name === '[[FunctionLocation]]')?.value?.value;
    if (!isLocationValue(start)) return null;
    const key = `${start.scriptId}:${start.lineNumber}:${start.columnNumber}`;
    let bindings = this.bindings.get(key);
    let text = this.functionTexts.get(key);
    if (bindings === undefined || text === undefined) {
      const fn = this.session.valuesOf(functionId, []).self;
      if (typeof fn !== 'function') return null;
      text = Function.prototype.toString.call(fn);
      bindings = FunctionBindings.of(text, parse);
      if (this.bindings.size > 512) {
        this.bindings.clear();
        this.functionTexts.clear();
      }
      this.bindings.set(key, bindings);
      this.functionTexts.set(key, text);
    }
    if (bindings === null || bindings.paramsAt < 0) return null;
    let offset = bindings.paramsAt;
    if (location.line0 === start.lineNumber) offset += location.column0 - start.columnNumber;
    else {
      for (let line = start.lineNumber; line < location.line0; line++) {
        offset = text.indexOf('\n', offset);
        if (offset < 0) return null;
        offset++;
      }
      offset += location.column0;
    }
    if (offset < 0 || offset >= text.length) return null;
    const b = bindings;
    // A suspended generator's block bindings held in registers are read among its Local scope's.
    return (name, scope) =>
      (b.stateOf(offset, name, scope) ?? (scope === 'local' ? b.stateOf(offset, name, 'block') : null)) ===
      'uninitialized';
  }

  /** The frame's variables as JS values (see the header for which scopes count). */
  private rawLocals(
    scopesId: string,
    receiver: Runtime.RemoteObject | undefined,
  ): Array<[string, LocalVariable['scope'], unknown]> {
    const args: Runtime.CallArgument[] = receiver?.objectId !== undefined ? [{ objectId: receiver.objectId }] : [];
    const { self, args: values } = this.session.valuesOf(scopesId, args);
    const out: Array<[string, LocalVariable['scope'], unknown]> = [];
    const thisValue = values[0];
    if (typeof thisValue === 'object' && thisValue !== null && thisValue !== globalThis)
      out.push(['this', 'this', thisValue]);
    const seen = new Set<string>();
    for (const scope of asScopeEntries(self)) {
      const kind = scope.description.startsWith('Local')
        ? 'local'
        : scope.description.startsWith('Block')
          ? 'block'
          : scope.description.startsWith('Catch')
            ? 'catch'
            : null;
      if (kind === null) break;
      for (const name of Object.keys(scope.object)) {
        if (seen.has(name)) continue;
        seen.add(name);
        const d = Object.getOwnPropertyDescriptor(scope.object, name);
        if (d === undefined || !('value' in d)) continue;
        out.push([name, kind, d.value]);
      }
      if (kind === 'local') break;
    }
    return out;
  }

  /**
   * The children of a value behind a handle, one page, with handles in the same group.
   * Private `#fields` come first (on the first page), read through the inspector.
   */
  readChildren(handle: string, options: ReadChildrenOptions = {}): ChildrenPage {
    const value = this.handles.get(handle);
    const sink: HandleSink = { table: this.handles, group: this.handles.groupOf(handle) };
    const offset = options.offset ?? 0;
    const page = childrenOf(value, sink, offset, options.limit ?? 100);
    if (
      (options.privateFields ?? true) &&
      offset === 0 &&
      typeof value === 'object' &&
      value !== null &&
      !types.isProxy(value)
    ) {
      const privates = this.privateFieldsOf(value, sink);
      if (privates.length > 0)
        return { children: [...privates, ...page.children], total: page.total + privates.length, offset };
    }
    return page;
  }

  private privateFieldsOf(obj: object, sink: HandleSink): NamedPreview[] {
    return this.session.withObjectGroup((group) => {
      const objectId = this.session.objectIdOf(obj, group);
      const props = this.session.getProperties({ objectId, ownProperties: true });
      // `privateProperties` is in the protocol but not in @types/node: narrow it here.
      const raw = (props as unknown as { privateProperties?: unknown }).privateProperties;
      if (!Array.isArray(raw) || raw.length === 0) return [];
      const named: Array<{ name: string; remote: Runtime.RemoteObject | null }> = [];
      for (const p of raw as unknown[]) {
        if (typeof p !== 'object' || p === null) continue;
        const rec = p as { name?: unknown; value?: unknown };
        if (typeof rec.name !== 'string') continue;
        const remote = typeof rec.value === 'object' && rec.value !== null ? (rec.value as Runtime.RemoteObject) : null;
        named.push({ name: rec.name, remote });
      }
      const objectArgs = named
        .filter((n) => n.remote?.objectId !== undefined)
        .map((n) => ({ objectId: n.remote!.objectId! }));
      const values = objectArgs.length > 0 ? this.session.valuesOf(objectId, objectArgs).args : [];
      let next = 0;
      return named.map(({ name, remote }): NamedPreview => {
        if (remote === null) {
          return {
            name,
            kind: 'accessor',
            value: { type: 'function', text: '(accessor)', className: null, size: null, handle: null },
          };
        }
        const v = remote.objectId !== undefined ? values[next++] : primitiveOf(remote);
        return { name, kind: 'private', value: previewValue(v, sink) };
      });
    });
  }
}

let shared: GeneratorReader | null = null;

/** The process's generator reader (one inspector session, one handle table). */
export function generatorReader(): GeneratorReader {
  shared ??= new GeneratorReader();
  return shared;
}
