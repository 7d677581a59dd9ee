// Runs in the transpiler's bundle (bundled-transpiler.ts). A JavaScript file's ES module syntax from Sucrase's
// tokens: whether it has any (what Node's detection of a .js looks for), and what CommonJS cannot hold.
// Invariants: a dynamic `import(…)` is no module syntax; the top level is outside every function scope but the
// program's own; each kind is said once, at its first line (1-based); a syntax error is the parser's, thrown.

import type { ParseScript } from '../../inspect/lexical-bindings';

export interface NotCommonJs {
  readonly what: 'top-level await' | 'import.meta';
  readonly line: number;
}

export function esModuleSyntax(source: string, parse: ParseScript): { isModule: boolean; notCommonJs: NotCommonJs[] } {
  const { tokens, scopes } = parse(source);
  const text = (i: number): string => (i < tokens.length ? source.slice(tokens[i]!.start, tokens[i]!.end) : '');
  const functions = scopes.filter((s) => s.isFunction && s.end < tokens.length);
  let isModule = false;
  const notCommonJs: NotCommonJs[] = [];
  const found = (what: NotCommonJs['what'], i: number): void => {
    isModule = true;
    if (notCommonJs.some((n) => n.what === what)) return;
    notCommonJs.push({ what, line: source.slice(0, tokens[i]!.start).split('\n').length });
  };
  // `await` as a name (a member, a key, a method, a field, a CommonJS variable) waits for nothing.
  const waits = (i: number): boolean => {
    const [prev, next] = [tokens[i - 1]?.kind, tokens[i + 1]?.kind ?? ''];
    if (prev === '.' || prev === '?.' || ':=,;)}'.includes(next)) return false;
    let j = i + 1;
    for (let depth = 0; next === '(' && prev !== 'for' && j < tokens.length; j++) {
      depth += tokens[j]!.kind === '(' ? 1 : tokens[j]!.kind === ')' ? -1 : 0;
      if (depth === 0) return tokens[j + 1]?.kind !== '{';
    }
    return true;
  };
  for (let i = 0; i < tokens.length; i++) {
    const kind = tokens[i]!.kind;
    const next = tokens[i + 1]?.kind;
    if (kind === 'export') isModule = true;
    else if ((kind === 'import' || text(i) === 'import') && next === '.') {
      if (text(i + 2) === 'meta') found('import.meta', i);
    } else if (kind === 'import' && next !== '(') isModule = true;
    else if (kind === 'name' && text(i) === 'await' && !functions.some((s) => s.start <= i && i < s.end) && waits(i))
      found('top-level await', i);
  }
  return { isModule, notCommonJs };
}
