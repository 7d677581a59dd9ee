// Bounded previews of JS values (one line, at most PREVIEW_TEXT characters: `ClassName {a: 1, …}`,
// `Array(n) [...]`, `Map(n) {k => v}`), the handle table that lets a client expand them, and the
// value a preview stands for (valueOfPreview).
//
// Invariants:
// - A preview or a child list runs no program code: no getter, toString or Proxy trap (a Proxy
//   previews as `Proxy`); Maps and Sets read through the built-in iterators; only the runtime's
//   own toString, built-ins and V8's Error `stack` are called.
// - An expandable value gets a handle in a handle group; the table holds it strongly until the
//   group is released (`HandleTable.release(group)`).

import { types } from 'node:util';
import { isTrackingWrapper } from '../coroutine';
import { Future } from '../future';

/** Longest string shown in a preview, in characters. */
export const PREVIEW_STRING = 200;
/** Longest preview text, in characters. */
export const PREVIEW_TEXT = 200;
/** Properties and elements shown inside an object's one-line preview. */
const PREVIEW_PROPERTIES = 6;
const PREVIEW_ELEMENTS = 10;
/** Strings nested inside an object preview are cut shorter. */
const NESTED_STRING = 40;

export type ValueType =
  | 'undefined'
  | 'null'
  | 'boolean'
  | 'number'
  | 'bigint'
  | 'string'
  | 'symbol'
  | 'function'
  | 'object'
  /** A `let`/`const`/`class` binding in its temporal dead zone (lexical-bindings.ts): no value yet. */
  | 'uninitialized';

/** One value as a variables pane shows it. */
export interface ValuePreview {
  readonly type: ValueType;
  /** Bounded one-line text (at most PREVIEW_TEXT characters, plus a length note for cut strings). */
  readonly text: string;
  /** For objects and functions: the constructor's name ('Array', 'Map', 'Crawler', 'Object'). */
  readonly className: string | null;
  /** Length of strings and arrays, size of maps and sets, bytes of buffers; null otherwise. */
  readonly size: number | null;
  /** Handle for readChildren, or null when there is nothing to expand. */
  readonly handle: string | null;
}

/** A named child of an expanded value (a property, an element, an entry, a private field). */
export interface NamedPreview {
  readonly name: string;
  readonly kind: 'property' | 'element' | 'entry' | 'private' | 'accessor' | 'internal';
  readonly value: ValuePreview;
}

/** One page of an expanded value's children. */
export interface ChildrenPage {
  readonly children: NamedPreview[];
  /** Children in all (properties, elements or entries), when known without listing them. */
  readonly total: number;
  readonly offset: number;
}

/** Values behind handles, grouped so a client releases one group at once. */
export class HandleTable {
  private readonly values = new Map<string, unknown>();
  private readonly groups = new Map<string, string[]>();
  private groupSeq = 0;
  private handleSeq = 0;

  /** A new group name. */
  newGroup(prefix = 'g'): string {
    return `${prefix}${++this.groupSeq}`;
  }

  register(group: string, value: unknown): string {
    const handle = `${group}/${++this.handleSeq}`;
    this.values.set(handle, value);
    let members = this.groups.get(group);
    if (members === undefined) this.groups.set(group, (members = []));
    members.push(handle);
    return handle;
  }

  has(handle: string): boolean {
    return this.values.has(handle);
  }

  /** The value behind a handle; throws if the handle is unknown or its group was released. */
  get(handle: string): unknown {
    if (!this.values.has(handle)) throw new RangeError(`unknown or released handle ${JSON.stringify(handle)}`);
    return this.values.get(handle);
  }

  /** The group a handle belongs to. */
  groupOf(handle: string): string {
    const slash = handle.lastIndexOf('/');
    return slash < 0 ? handle : handle.slice(0, slash);
  }

  /** Drops every handle of the group; returns how many. */
  release(group: string): number {
    const members = this.groups.get(group);
    if (members === undefined) return 0;
    for (const h of members) this.values.delete(h);
    this.groups.delete(group);
    return members.length;
  }

  /** Handles currently held (leak checks). */
  size(): number {
    return this.values.size;
  }
}

/** A handle table and the group new handles go to; null table: previews without handles. */
export interface HandleSink {
  readonly table: HandleTable;
  readonly group: string;
}

function cutString(s: string, max: number): string {
  const body = s.length > max ? `${s.slice(0, max)}…` : s;
  return JSON.stringify(body);
}

/** A function's own `name` data property, without running a getter. */
function ownName(fn: object): string {
  const d = Object.getOwnPropertyDescriptor(fn, 'name');
  return d !== undefined && 'value' in d && typeof d.value === 'string' ? d.value : '';
}

/** The constructor name of an object, read from data properties only. */
export function classNameOf(obj: object): string {
  if (types.isProxy(obj)) return 'Proxy';
  // coroutine()'s tracking wrapper stands for the generator it drives, as the program sees it.
  if (types.isGeneratorObject(obj) || isTrackingWrapper(obj)) return 'Generator';
  const proto: unknown = Object.getPrototypeOf(obj);
  if (proto === null || typeof proto !== 'object') return 'Object';
  const d = Object.getOwnPropertyDescriptor(proto, 'constructor');
  if (d !== undefined && 'value' in d && typeof d.value === 'function') {
    const name = ownName(d.value as object);
    if (name !== '') return name;
  }
  return 'Object';
}

function functionText(fn: object): string {
  const name = ownName(fn) || '(anonymous)';
  if (types.isGeneratorFunction(fn)) return `ƒ* ${name}()`;
  if (types.isAsyncFunction(fn)) return `async ƒ ${name}()`;
  // A class's prototype property is not writable; a plain function's is.
  const proto = Object.getOwnPropertyDescriptor(fn, 'prototype');
  if (proto !== undefined && proto.writable === false) return `class ${name}`;
  return `ƒ ${name}()`;
}

function clip(text: string): string {
  return text.length > PREVIEW_TEXT ? `${text.slice(0, PREVIEW_TEXT - 1)}…` : text;
}

/** Short text of a value nested inside another's preview (no further nesting). */
function nestedText(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return cutString(v, NESTED_STRING);
    case 'bigint':
      return `${v}n`;
    case 'symbol':
      return v.toString();
    case 'function':
      return functionText(v);
    case 'object':
      if (v === null) return 'null';
      if (types.isProxy(v)) return 'Proxy';
      if (Array.isArray(v)) return `Array(${v.length})`;
      if (v instanceof Future) return v.toString();
      if (types.isMap(v)) return `Map(${(v as Map<unknown, unknown>).size})`;
      if (types.isSet(v)) return `Set(${(v as Set<unknown>).size})`;
      if (types.isTypedArray(v)) return `${classNameOf(v)}(${v.length})`;
      if (types.isDate(v)) return dateText(v);
      if (types.isNativeError(v)) return errorText(v, 60);
      {
        const name = classNameOf(v);
        return name === 'Object' ? '{…}' : name;
      }
    default:
      return String(v);
  }
}

function dateText(d: Date): string {
  return Number.isNaN(d.getTime()) ? 'Invalid Date' : Date.prototype.toISOString.call(d);
}

function errorText(e: Error, max: number): string {
  const name = Object.getOwnPropertyDescriptor(e, 'name');
  const message = Object.getOwnPropertyDescriptor(e, 'message');
  const n = name !== undefined && typeof name.value === 'string' ? name.value : classNameOf(e);
  const m = message !== undefined && typeof message.value === 'string' ? message.value : '';
  return `${n}: ${m.length > max ? `${m.slice(0, max)}…` : m}`;
}

/** `{a: 1, b: "x", …}` from at most PREVIEW_PROPERTIES own enumerable data properties. */
function propertiesText(obj: object): string {
  const parts: string[] = [];
  let more = false;
  let length = 0;
  for (const key in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, key)) continue;
    if (parts.length >= PREVIEW_PROPERTIES || length > PREVIEW_TEXT) {
      more = true;
      break;
    }
    const d = Object.getOwnPropertyDescriptor(obj, key);
    if (d === undefined) continue;
    const part = `${key}: ${'value' in d ? nestedText(d.value) : '(accessor)'}`;
    parts.push(part);
    length += part.length + 2;
  }
  return `{${parts.join(', ')}${more ? ', …' : ''}}`;
}

function elementsText(arr: ArrayLike<unknown>, isTyped: boolean): string {
  const n = Math.min(arr.length, PREVIEW_ELEMENTS);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    if (isTyped) parts.push(String(arr[i]));
    else {
      const d = Object.getOwnPropertyDescriptor(arr, i);
      parts.push(d === undefined ? 'empty' : 'value' in d ? nestedText(d.value) : '(accessor)');
    }
  }
  return `[${parts.join(', ')}${arr.length > n ? ', …' : ''}]`;
}

function objectPreview(obj: object, sink: HandleSink | null): ValuePreview {
  const handle = (): string | null => (sink === null ? null : sink.table.register(sink.group, obj));
  const make = (text: string, className: string, size: number | null, expandable = true): ValuePreview => ({
    type: 'object',
    text: clip(text),
    className,
    size,
    handle: expandable ? handle() : null,
  });
  if (types.isProxy(obj)) return make('Proxy', 'Proxy', null, false);
  if (Array.isArray(obj)) return make(`Array(${obj.length}) ${elementsText(obj, false)}`, 'Array', obj.length);
  if (obj instanceof Future) return make(obj.toString(), classNameOf(obj), null);
  if (types.isTypedArray(obj)) {
    const cls = classNameOf(obj);
    return make(`${cls}(${obj.length}) ${elementsText(obj as unknown as ArrayLike<unknown>, true)}`, cls, obj.length);
  }
  if (types.isArrayBuffer(obj)) return make(`ArrayBuffer(${obj.byteLength})`, 'ArrayBuffer', obj.byteLength, false);
  if (types.isMap(obj)) {
    const m = obj as Map<unknown, unknown>;
    const parts: string[] = [];
    for (const [k, v] of Map.prototype.entries.call(m)) {
      if (parts.length >= PREVIEW_PROPERTIES) break;
      parts.push(`${nestedText(k)} => ${nestedText(v)}`);
    }
    return make(`Map(${m.size}) {${parts.join(', ')}${m.size > parts.length ? ', …' : ''}}`, classNameOf(obj), m.size);
  }
  if (types.isSet(obj)) {
    const s = obj as Set<unknown>;
    const parts: string[] = [];
    for (const v of Set.prototype.values.call(s)) {
      if (parts.length >= PREVIEW_ELEMENTS) break;
      parts.push(nestedText(v));
    }
    return make(`Set(${s.size}) {${parts.join(', ')}${s.size > parts.length ? ', …' : ''}}`, classNameOf(obj), s.size);
  }
  if (types.isDate(obj)) return make(dateText(obj), 'Date', null, false);
  if (types.isRegExp(obj)) return make(RegExp.prototype.toString.call(obj), 'RegExp', null, false);
  if (types.isNativeError(obj)) return make(errorText(obj, 150), classNameOf(obj), null);
  if (types.isPromise(obj)) return make('Promise', classNameOf(obj), null, false);
  if (types.isWeakMap(obj) || types.isWeakSet(obj)) return make(classNameOf(obj), classNameOf(obj), null, false);
  if (types.isBoxedPrimitive(obj))
    return make(`[${classNameOf(obj)}: ${nestedText(obj.valueOf())}]`, classNameOf(obj), null, false);
  if (obj instanceof URL) return make(`URL ${cutString(obj.href, PREVIEW_STRING - 10)}`, 'URL', null);
  const cls = classNameOf(obj);
  if (types.isGeneratorObject(obj) || isTrackingWrapper(obj)) return make('Generator', cls, null);
  const props = propertiesText(obj);
  return make(cls === 'Object' ? props : `${cls} ${props}`, cls, null);
}

/** The bounded preview of any value; objects get a handle in `sink` (if given). */
export function previewValue(value: unknown, sink: HandleSink | null): ValuePreview {
  switch (typeof value) {
    case 'undefined':
      return { type: 'undefined', text: 'undefined', className: null, size: null, handle: null };
    case 'boolean':
      return { type: 'boolean', text: String(value), className: null, size: null, handle: null };
    case 'number':
      return {
        type: 'number',
        text: Object.is(value, -0) ? '-0' : String(value),
        className: null,
        size: null,
        handle: null,
      };
    case 'bigint':
      return { type: 'bigint', text: `${value}n`, className: null, size: null, handle: null };
    case 'symbol':
      return { type: 'symbol', text: clip(value.toString()), className: null, size: null, handle: null };
    case 'string': {
      const text =
        value.length > PREVIEW_STRING
          ? `${cutString(value, PREVIEW_STRING)} (${value.length} chars)`
          : JSON.stringify(value);
      return { type: 'string', text, className: null, size: value.length, handle: null };
    }
    case 'function':
      return {
        type: 'function',
        text: clip(functionText(value)),
        className: classNameOf(value),
        size: null,
        handle: sink === null ? null : sink.table.register(sink.group, value),
      };
    case 'object':
      if (value === null) return { type: 'null', text: 'null', className: null, size: null, handle: null };
      return objectPreview(value, sink);
    default:
      return { type: 'undefined', text: String(value), className: null, size: null, handle: null };
  }
}

/**
 * The value a preview stands for, read back from the preview alone (no handle): primitives
 * whole; a cut string as the text its preview kept, `cut`; anything else (an object, a
 * function, a symbol) undefined, `cut`. With `cut: false` the value is the one previewed, so
 * what evaluates over a frame's locals (breakpoint conditions, evaluate) sees the same values.
 */
export function valueOfPreview(preview: ValuePreview): { value: unknown; cut: boolean } {
  switch (preview.type) {
    case 'undefined':
      return { value: undefined, cut: false };
    case 'null':
      return { value: null, cut: false };
    case 'boolean':
      return { value: preview.text === 'true', cut: false };
    case 'number':
      return { value: Number(preview.text), cut: false };
    case 'bigint':
      return { value: BigInt(preview.text.replace(/n$/, '')), cut: false };
    case 'string': {
      const cut = preview.size !== null && preview.size > PREVIEW_STRING;
      // A cut string's preview is its first PREVIEW_STRING characters and `…` quoted, then its length.
      const text = cut ? preview.text.replace(/ \(\d+ chars\)$/, '').replace(/…"$/, '"') : preview.text;
      try {
        return { value: JSON.parse(text) as unknown, cut };
      } catch {
        return { value: text, cut: true };
      }
    }
    default:
      return { value: undefined, cut: true };
  }
}

function property(obj: object, key: string | symbol, sink: HandleSink): NamedPreview | null {
  const d = Object.getOwnPropertyDescriptor(obj, key);
  if (d === undefined) return null;
  const name = typeof key === 'symbol' ? `[${key.toString()}]` : key;
  if ('value' in d) return { name, kind: 'property', value: previewValue(d.value, sink) };
  const text =
    d.get !== undefined && d.set !== undefined ? '(getter/setter)' : d.get !== undefined ? '(getter)' : '(setter)';
  return { name, kind: 'accessor', value: { type: 'function', text, className: null, size: null, handle: null } };
}

/**
 * The children of an expandable value, one page: an array's elements (then its other
 * properties), a Map's entries, a Set's values, a typed array's items, an object's own
 * properties (string keys, then symbols). Accessors are listed, never called.
 */
export function childrenOf(value: unknown, sink: HandleSink, offset = 0, limit = 100): ChildrenPage {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null || types.isProxy(value)) {
    return { children: [], total: 0, offset };
  }
  const out: NamedPreview[] = [];
  const end = offset + limit;
  if (Array.isArray(value) || types.isTypedArray(value)) {
    const arr = value as ArrayLike<unknown>;
    for (let i = offset; i < Math.min(end, arr.length); i++) {
      const d = Object.getOwnPropertyDescriptor(arr, i);
      if (d !== undefined && 'value' in d)
        out.push({ name: String(i), kind: 'element', value: previewValue(d.value, sink) });
    }
    return { children: out, total: arr.length, offset };
  }
  if (types.isMap(value)) {
    const m = value as Map<unknown, unknown>;
    let i = 0;
    for (const [k, v] of Map.prototype.entries.call(m)) {
      if (i >= end) break;
      if (i++ < offset) continue;
      out.push({ name: nestedText(k), kind: 'entry', value: previewValue(v, sink) });
    }
    return { children: out, total: m.size, offset };
  }
  if (types.isSet(value)) {
    const s = value as Set<unknown>;
    let i = 0;
    for (const v of Set.prototype.values.call(s)) {
      if (i >= end) break;
      if (i++ < offset) continue;
      out.push({ name: String(i - 1), kind: 'entry', value: previewValue(v, sink) });
    }
    return { children: out, total: s.size, offset };
  }
  const keys = Reflect.ownKeys(value);
  const isError = types.isNativeError(value);
  for (let i = offset; i < Math.min(end, keys.length); i++) {
    const key = keys[i]!;
    if (isError && key === 'stack') {
      // V8 installs `stack` as an accessor on the instance; its text is what people want.
      const stack: unknown = (value as Error).stack;
      out.push({ name: 'stack', kind: 'property', value: previewValue(stack, sink) });
      continue;
    }
    const p = property(value, key, sink);
    if (p !== null) out.push(p);
  }
  return { children: out, total: keys.length, offset };
}
