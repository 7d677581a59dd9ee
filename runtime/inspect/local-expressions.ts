// Expressions over a frame's locals: the one evaluator behind breakpoint conditions
// (loop-control.ts) and the debugger's evaluate request (runtime/host/main-thread/variables.ts).
//
// V8 cannot evaluate on a suspended generator's frame, so the locals (read through
// node:inspector) are bound as the parameters of a function made with `new Function`, whose
// body returns the expression. Invariants: a binding is passed only under a name that can be
// a parameter (an identifier, not a reserved word, first of its name: the innermost local
// wins); the expression is wrapped so a trailing `// comment` cannot swallow the closing
// parenthesis; a parse failure and a throw are told apart, never thrown at the caller. A local in its temporal
// dead zone (bound to IN_DEAD_ZONE) throws V8's own ReferenceError when read, as in the frame itself.

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const RESERVED = new Set([
  'this',
  'arguments',
  'eval',
  'await',
  'yield',
  'let',
  'static',
  'enum',
  'implements',
  'interface',
  'package',
  'private',
  'protected',
  'public',
  'null',
  'true',
  'false',
  'new',
  'delete',
  'typeof',
  'void',
  'in',
  'instanceof',
  'function',
  'class',
  'const',
  'var',
  'return',
  'if',
  'else',
  'for',
  'while',
  'do',
  'switch',
  'case',
  'default',
  'break',
  'continue',
  'throw',
  'try',
  'catch',
  'finally',
  'with',
  'debugger',
  'super',
  'import',
  'export',
  'extends',
]);

/** The value of a binding that is in its temporal dead zone (lexical-bindings.ts): reading it throws. */
export const IN_DEAD_ZONE: unique symbol = Symbol('in its temporal dead zone');

export type LocalsEvaluation =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly stage: 'parse' | 'run'; readonly error: unknown };

export interface LocalsEvaluationOptions {
  /** `this` inside the expression (default undefined). */
  readonly self?: unknown;
  /** Strict mode (breakpoint conditions); default false. */
  readonly strict?: boolean;
}

/** Evaluates `expression` with `bindings` (name, value; innermost first) as variables. */
export function evaluateOverLocals(
  expression: string,
  bindings: Iterable<readonly [string, unknown]>,
  options: LocalsEvaluationOptions = {},
): LocalsEvaluation {
  const names: string[] = [];
  const values: unknown[] = [];
  const dead: string[] = [];
  for (const [name, value] of bindings) {
    if (!IDENTIFIER.test(name) || RESERVED.has(name) || names.includes(name) || dead.includes(name)) continue;
    if (value === IN_DEAD_ZONE) dead.push(name);
    else {
      names.push(name);
      values.push(value);
    }
  }
  // Declared after the return: the expression runs in their dead zone, as the frame did.
  const deadZone = dead.length === 0 ? '' : ` let ${dead.join(', ')};`;
  let fn: (...args: unknown[]) => unknown;
  try {
    fn = new Function(
      ...names,
      `${options.strict === true ? '"use strict"; ' : ''}return (${expression}\n);${deadZone}`,
    ) as (...args: unknown[]) => unknown;
  } catch (error) {
    return { ok: false, stage: 'parse', error };
  }
  try {
    return { ok: true, value: fn.apply(options.self, values) };
  } catch (error) {
    return { ok: false, stage: 'run', error };
  }
}

/** `Name: message` of an evaluation error. */
export function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
