// Runs on a runtime host's main thread, for es-module-programs.ts. Reads a JavaScript file's ES module syntax
// from Sucrase's tokens (the transpiler bundle's parseScript): whether it is written as a module (an import
// declaration, an export, import.meta, a top-level await: what Node's own detection of a .js looks for), and
// what of it CommonJS cannot hold (a top-level await, import.meta), with its line.
//
// Invariants: a dynamic `import(…)` is not module syntax (a script may use it); the top level is outside every
// function scope but the program's own; lines are 1-based; a syntax error is the parser's, thrown.

import type { ParseScript } from '../../inspect/lexical-bindings';

/** ES module syntax a CommonJS module cannot hold, the first place of each kind. */
export interface NotCommonJs {
  readonly what: 'top-level await' | 'import.meta';
  readonly line: number;
}

export interface EsModuleSyntax {
  /** The file has module syntax. */
  readonly isModule: boolean;
  /** What cannot be made CommonJS, in source order (each kind once, at its first line). */
  readonly notCommonJs: readonly NotCommonJs[];
}

/** Reads `source`'s module syntax with `parse` (which throws on a syntax error). */
export function esModuleSyntax(source: string, parse: ParseScript): EsModuleSyntax {
  const { tokens, scopes } = parse(source);
  const text = (i: number): string => {
    const t = tokens[i];
    return t === undefined ? '' : source.slice(t.start, t.end);
  };
  // The program's own scope spans every token; any other function scope is a function's body (or its parameters).
  const functions = scopes.filter((s) => s.isFunction && s.end < tokens.length);
  const atTopLevel = (i: number): boolean => !functions.some((s) => s.start <= i && i < s.end);
  const lineAt = (i: number): number => {
    const start = tokens[i]?.start ?? 0;
    let line = 1;
    for (let at = source.indexOf('\n'); at !== -1 && at < start; at = source.indexOf('\n', at + 1)) line++;
    return line;
  };
  let isModule = false;
  const found = new Map<NotCommonJs['what'], number>();
  for (let i = 0; i < tokens.length; i++) {
    const kind = tokens[i]!.kind;
    if (kind === 'export') isModule = true;
    else if ((kind === 'import' || (kind === 'name' && text(i) === 'import')) && tokens[i + 1]?.kind === '.') {
      if (text(i + 2) !== 'meta') continue;
      isModule = true;
      if (!found.has('import.meta')) found.set('import.meta', i);
    } else if (kind === 'import' && tokens[i + 1]?.kind !== '(') isModule = true;
    else if (kind === 'name' && text(i) === 'await' && atTopLevel(i)) {
      isModule = true;
      if (!found.has('top-level await')) found.set('top-level await', i);
    }
  }
  const notCommonJs = [...found]
    .sort((a, b) => a[1] - b[1])
    .map(([what, i]): NotCommonJs => ({ what, line: lineAt(i) }));
  return { isModule, notCommonJs };
}
