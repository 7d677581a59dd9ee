// LexicalBindings: which `let`, `const` and `class` bindings of a function are in their temporal dead zone at a
// position (declared later, or in their own initializer): V8's scope objects read them as `undefined`, but
// reading one throws, so a view shows them as UNINITIALIZED_TEXT instead (line-debugger, generator-reader).
//
// The function's text (from V8's function position, its parameters' `(`, to its end) is parsed once with
// Sucrase's parser (script-parser.ts) and its declarations kept with the position where each is initialized
// (the end of its declarator; a `for … of/in` head's `)`; the end of a class body). A binding of a scope enclosing
// the position is uninitialized there before that point: a block entered again (a loop's next turn) has its
// bindings anew. Invariants: `var`, parameters, catch parameters and function declarations are never said
// uninitialized; a binding a `case` label jumps past is 'unknown'; no parse, no answer (null).

/** The words every view shows for a binding in its temporal dead zone. */
export const UNINITIALIZED_TEXT = '<uninitialized>';
/** The words for a binding V8 reads `undefined` that may be in its dead zone (a `let` of a `case` a jump skipped). */
export const UNDECIDED_TEXT = '<uninitialized or undefined>';

export type BindingState = 'uninitialized' | 'initialized' | 'unknown';

/** One token as the analysis reads it (Sucrase's, narrowed: script-parser.ts). */
export interface ScriptToken {
  /** Sucrase's token type as text: 'let', 'const', 'class', 'name', '=', ',', '(', '{', '${', 'case', … */
  readonly kind: string;
  readonly start: number;
  readonly end: number;
  /** A name a declaration binds (a `let`/`const`/`class` name, a catch parameter; at a script's top, any). */
  readonly declares: boolean;
  /** On a `=`: the index of the token after its right-hand side. */
  readonly rhsEnd: number | null;
  /** Shared by a class's keyword and its braces. */
  readonly contextId: number | null;
  /** On `class`: a class expression. */
  readonly isExpression: boolean;
}

/** A scope as token indices [start, end). */
export interface ScriptScope {
  readonly start: number;
  readonly end: number;
  readonly isFunction: boolean;
}

export interface ParsedScript {
  readonly tokens: readonly ScriptToken[];
  readonly scopes: readonly ScriptScope[];
}

/** Parses JavaScript; throws on a syntax error. */
export type ParseScript = (code: string) => ParsedScript;

/** Which of the frame's scopes a binding was read from, as V8 names it. */
export type ScopeKind = 'local' | 'block' | 'catch';

interface Declaration {
  readonly names: readonly string[];
  readonly token: number;
  /** Where its bindings are initialized (an offset in the wrapped text). */
  readonly initialized: number;
  readonly scope: ScriptScope;
}

/**
 * How the function's text is wrapped to parse as an expression, each tried in turn: from its parameters (V8's
 * function position) on, or as Function.prototype.toString gives it (a function, an arrow, a method).
 */
const WRAPPERS: ReadonlyArray<readonly [string, string]> = [
  ['(function* ', ')'],
  ['(async function* ', ')'],
  ['(async ', ')'],
  ['(', ')'],
  ['({', '})'],
];
/** The longest script parsed whole for its top-level code, in characters. */
const MAX_PROGRAM = 200_000;
const OPENERS = new Set(['(', '[', '{', '${']);
const CLOSERS = new Set([')', ']', '}']);

export class FunctionBindings {
  private readonly states = new Map<
    number,
    Array<{ scope: ScriptScope; local: boolean; names: Map<string, BindingState> }>
  >();

  /** Where the function's parameters begin in the text (V8's function position): -1 for none. */
  readonly paramsAt: number;

  private constructor(
    private readonly tokens: readonly ScriptToken[],
    private readonly scopes: readonly ScriptScope[],
    private readonly fn: ScriptScope,
    private readonly declarations: readonly Declaration[],
    private readonly shift: number,
  ) {
    const params = scopes.find((s) => s.isFunction && s.end === fn.end && tokens[s.start]?.kind === '(');
    this.paramsAt = params === undefined ? -1 : tokens[params.start]!.start - shift;
  }

  /** The bindings of the function whose text (from its parameters' `(`, or its toString) is `text`. */
  static of(text: string, parse: ParseScript): FunctionBindings | null {
    for (const [wrapper, close] of WRAPPERS) {
      const code = `${wrapper}${text}${close}`;
      let parsed: ParsedScript;
      try {
        parsed = parse(code);
      } catch {
        continue;
      }
      const { tokens } = parsed;
      const shift = wrapper.length;
      // The function: the outermost function scope but the whole text's.
      const fns = parsed.scopes.filter((s) => s.isFunction && s.start > 0 && tokens[s.start] !== undefined);
      const fn = fns.reduce<ScriptScope | null>(
        (a, s) => (a === null || s.end - s.start > a.end - a.start ? s : a),
        null,
      );
      if (fn === null) continue;
      const scopes = parsed.scopes.filter((s) => s.start >= fn.start && s.end <= fn.end);
      return new FunctionBindings(tokens, scopes, fn, declarationsIn(code, tokens, scopes, fn), shift);
    }
    // A CommonJS module's own code (its Local scope is the whole script): the program is the function. A
    // bundle's own is not parsed whole (a second or more; its top level declares with `var`).
    if (text.length > MAX_PROGRAM) return null;
    try {
      const { tokens, scopes } = parse(text);
      const program = scopes.find((s) => s.isFunction && s.start === 0 && s.end >= tokens.length - 1);
      if (program !== undefined)
        return new FunctionBindings(tokens, scopes, program, declarationsIn(text, tokens, scopes, program), 0);
    } catch {
      // Not a program either: no answer.
    }
    return null;
  }

  /**
   * The state at `offset` (in the text) of binding `name` read from a scope of kind `kind`; for a block, `range`
   * (V8's, in the text) picks among blocks declaring the name, else the innermost one does. Null: not a binding
   * of a `let`, `const` or `class` of a scope around the offset.
   */
  stateOf(
    offset: number,
    name: string,
    kind: ScopeKind,
    range: readonly [number, number] | null = null,
  ): BindingState | null {
    if (kind === 'catch') return null;
    const declaring = this.statesAt(offset + this.shift).filter((s) => s.names.has(name));
    // V8 reads a function's body as a Block of its own when its parameters have defaults: then the body's.
    const blocks = declaring.filter((s) => !s.local);
    const around = kind === 'local' || blocks.length === 0 ? declaring.filter((s) => s.local) : blocks;
    if (around.length === 0) return null;
    if (kind === 'local' || range === null) return around[0]!.names.get(name)!;
    const [from, to] = [range[0] + this.shift, range[1] + this.shift];
    const distance = (s: ScriptScope): number =>
      Math.abs(this.tokens[s.start]!.start - from) + Math.abs(this.tokens[s.end - 1]!.end - to);
    return around.reduce((a, s) => (distance(s.scope) < distance(a.scope) ? s : a)).names.get(name)!;
  }

  /** The scopes around `at` (wrapped text), innermost first, with their declarations' states. */
  private statesAt(at: number): Array<{ scope: ScriptScope; local: boolean; names: Map<string, BindingState> }> {
    const known = this.states.get(at);
    if (known !== undefined) return known;
    const around = this.scopes
      .filter((s) => this.tokens[s.start]!.start <= at && at < this.tokens[s.end - 1]!.end)
      .sort((a, b) => a.end - a.start - (b.end - b.start));
    const out = around.map((scope) => ({
      scope,
      local: scope.isFunction && scope.end === this.fn.end,
      names: new Map<string, BindingState>(),
    }));
    for (const d of this.declarations) {
      const entry = out.find((o) => o.scope === d.scope);
      if (entry === undefined) continue;
      const state: BindingState =
        at < d.initialized ? 'uninitialized' : this.caseBetween(d, at) ? 'unknown' : 'initialized';
      for (const n of d.names) entry.names.set(n, state);
    }
    if (this.states.size > 256) this.states.clear();
    this.states.set(at, out);
    return out;
  }

  /** A `case` or `default` of the declaration's own switch between it and `at`: a jump may have passed it. */
  private caseBetween(d: Declaration, at: number): boolean {
    for (let j = d.token + 1; j < this.tokens.length && this.tokens[j]!.start <= at; j++) {
      const k = this.tokens[j]!.kind;
      if ((k === 'case' || k === 'default') && innermost(this.scopes, j) === d.scope) return true;
    }
    return false;
  }
}

function innermost(scopes: readonly ScriptScope[], token: number): ScriptScope | null {
  let best: ScriptScope | null = null;
  for (const s of scopes)
    if (s.start <= token && token < s.end && (best === null || s.end - s.start < best.end - best.start)) best = s;
  return best;
}

/** The function's `let`, `const` and `class` declarations (its nested functions' too: their scopes never enclose). */
function declarationsIn(
  code: string,
  tokens: readonly ScriptToken[],
  scopes: readonly ScriptScope[],
  fn: ScriptScope,
): Declaration[] {
  const out: Declaration[] = [];
  for (let i = fn.start; i < fn.end; i++) {
    const t = tokens[i]!;
    const next = tokens[i + 1];
    if (next === undefined) break;
    const scope = innermost(scopes, i);
    if (scope === null) continue;
    if (t.kind === 'class' && !t.isExpression && next.declares) {
      let close = i + 1;
      for (let j = i + 1; j < fn.end; j++) if (tokens[j]!.contextId === t.contextId && t.contextId !== null) close = j;
      out.push({ names: [code.slice(next.start, next.end)], token: i, initialized: tokens[close]!.end, scope });
      continue;
    }
    if ((t.kind !== 'let' && t.kind !== 'const') || !(next.declares || next.kind === '{' || next.kind === '['))
      continue;
    i = declaratorsOf(code, tokens, i, fn.end, scope, out);
  }
  return out;
}

/** Reads the declarator list after the `let`/`const` at `keyword`; returns the index of its last token. */
function declaratorsOf(
  code: string,
  tokens: readonly ScriptToken[],
  keyword: number,
  end: number,
  scope: ScriptScope,
  out: Declaration[],
): number {
  let names: string[] = [];
  let depth = 0;
  const done = (initialized: number): void => {
    if (names.length > 0) out.push({ names, token: keyword, initialized, scope });
    names = [];
  };
  for (let j = keyword + 1; j < end; j++) {
    const t = tokens[j]!;
    if (OPENERS.has(t.kind)) depth++;
    else if (CLOSERS.has(t.kind)) {
      depth--;
      // A `for (let i …)` head ends: its bindings are initialized by then.
      if (depth < 0) {
        done(t.start);
        return j - 1;
      }
    } else if (t.declares) names.push(code.slice(t.start, t.end));
    if (depth > 0) continue;
    if (t.kind === '=' && t.rhsEnd !== null && t.rhsEnd > j) {
      done(tokens[t.rhsEnd - 1]!.end);
      j = t.rhsEnd - 1;
      if (tokens[j + 1]?.kind !== ',') return j;
      j++;
    } else if (t.kind === ',') done(tokens[j - 1]!.end);
    else if (t.kind === 'name' && !t.declares && names.length > 0 && /^(of|in)$/.test(code.slice(t.start, t.end))) {
      // `for (const x of xs)`: x is bound when a turn begins, after `xs`, at the head's `)`.
      let d = 0;
      for (let k = j + 1; k < end; k++) {
        const kind = tokens[k]!.kind;
        if (OPENERS.has(kind)) d++;
        else if (CLOSERS.has(kind) && --d < 0) {
          done(tokens[k]!.start);
          return k - 1;
        }
      }
      return j;
    } else if (!t.declares && !(t.kind === '{' || t.kind === '[' || t.kind === '}' || t.kind === ']')) {
      // The list ended without an initializer (`let x;`, or a new statement after a line break).
      done(tokens[j - 1]!.end);
      return j - 1;
    }
  }
  done(tokens[end - 1]!.end);
  return end - 1;
}
