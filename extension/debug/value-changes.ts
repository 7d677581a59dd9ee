// Value changes: the pure pieces of "Go to Last/Next Change" and of data breakpoints on a local or
// a field (session-changes.ts walks the task's lines with them). A watched value is an expression
// (a local, then `.field` / `[key]`) read in one frame named by its function and its depth from
// the stack's root. A change is a reading that differs from the one before (another primitive or
// type, an object shown otherwise: two replays never share objects), or the value becoming
// unreachable.
//
// Invariants: pure (no host, no DAP state); a data breakpoint's id round-trips through
// dataIdOf / parseDataId and anything else parses to null.

/** A value read in one frame of a task's line stop. */
export interface WatchedValue {
  /** The expression read in the frame (a local's name, then fields). */
  readonly expression: string;
  /** The frame's function name. */
  readonly functionName: string;
  /** The frame's depth from the stack's root (0: the outermost frame shown). */
  readonly depth: number;
}

/** One reading of a watched value. */
export type Reading =
  | { readonly reachable: true; readonly value: string; readonly type: string }
  | { readonly reachable: false; readonly why: string };

/** The expression of `name` inside the value `parent` evaluates to (`parent.name`, `parent[3]`, `parent["a b"]`). */
export function childExpression(parent: string, name: string): string {
  if (parent === '') return name;
  if (/^[A-Za-z_$][\w$]*$/.test(name)) return `${parent}.${name}`;
  if (/^(0|[1-9]\d*)$/.test(name)) return `${parent}[${name}]`;
  // A Map entry, a symbol or a getter shown by a label: no expression reads it back.
  if (/^\[.*\]$/.test(name) || name.includes('→') || name.startsWith('Symbol(')) return '';
  return `${parent}[${JSON.stringify(name)}]`;
}

/** How a reading is said in the console. */
export function readingText(r: Reading): string {
  return r.reachable ? r.value : `(not reachable: ${r.why})`;
}

/** The index of the frame a watched value lives in, in a stack of `count` frames innermost first (null: gone). */
export function frameIndexOf(w: WatchedValue, names: readonly string[]): number | null {
  const index = names.length - 1 - w.depth;
  if (index < 0 || index >= names.length) return null;
  return names[index] === w.functionName ? index : null;
}

const DATA_ID_PREFIX = 'coroscope-value:';

/**
 * The DAP dataId of a data breakpoint on a watched value; `pin`: for a field, its object as pinned in the host
 * where it was asked (the object the breakpoint watches, whatever the path names later).
 */
export function dataIdOf(w: WatchedValue, pin: number | null = null): string {
  const parts: unknown[] = [w.expression, w.functionName, w.depth];
  if (pin !== null) parts.push(pin);
  return `${DATA_ID_PREFIX}${JSON.stringify(parts)}`;
}

/** The parts of one of this adapter's dataIds; null for anything else (no string at all too). */
function dataIdParts(id: unknown): { value: WatchedValue; pin: number | null } | null {
  if (typeof id !== 'string' || !id.startsWith(DATA_ID_PREFIX)) return null;
  let v: unknown;
  try {
    v = JSON.parse(id.slice(DATA_ID_PREFIX.length));
  } catch {
    return null;
  }
  if (!Array.isArray(v) || (v.length !== 3 && v.length !== 4)) return null;
  const [expression, functionName, depth, pin] = v as unknown[];
  if (typeof expression !== 'string' || expression === '' || typeof functionName !== 'string') return null;
  if (typeof depth !== 'number' || !Number.isInteger(depth) || depth < 0) return null;
  if (pin !== undefined && (typeof pin !== 'number' || !Number.isInteger(pin) || pin < 1)) return null;
  return { value: { expression, functionName, depth }, pin: pin ?? null };
}

/** The watched value a dataId names, or null when it is not one of this adapter's (or no string at all). */
export function parseDataId(id: unknown): WatchedValue | null {
  return dataIdParts(id)?.value ?? null;
}

/** The pinned object of a dataId's field (null: none, or not one of this adapter's ids). */
export function dataIdPin(id: unknown): number | null {
  return dataIdParts(id)?.pin ?? null;
}

/**
 * Whether a line's text may assign the watched expression: always for a local (only its frame writes it), and
 * for a field where the text assigns (or increments) a property of its name; true when the text is not known.
 */
export function mayAssign(text: string | null, expression: string): boolean {
  if (text === null || !/[.[]/.test(expression)) return true;
  const last = /(?:\.([A-Za-z_$][\w$]*)|\[([^\]]*)\])$/.exec(expression);
  if (last === null) return true;
  const name = (last[1] ?? last[2] ?? '').replace(/^["']|["']$/g, '');
  const n = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const assigned = new RegExp(
    `(?:\\.${n}\\b|\\[\\s*["']?${n}["']?\\s*\\])\\s*(?:(?:\\*\\*|<<|>>>?|&&|\\|\\||\\?\\?|[-+*/%&|^])?=(?!=)|\\+\\+|--)|(?:\\+\\+|--)\\s*[\\w$.]*\\.${n}\\b`,
  );
  // A destructuring assignment into it: `({ a: state.status } = x)`, `[state.status] = x`.
  return assigned.test(text) || new RegExp(`\\b${n}\\s*[,}\\]][^=;]*=(?!=)`).test(text);
}
