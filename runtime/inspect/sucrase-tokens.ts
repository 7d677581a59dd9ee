// Runs wherever lexical-bindings.ts needs a parse, from the transpiler's bundle (dist/typescript-transpiler.js,
// bundled-transpiler.ts re-exports it) or, run from source, loaded by path (script-parser.ts).
//
// Sucrase's parser (a fork of Babel's, shipped in the .vsix within the transpiler's bundle) turned into the
// tokens and scopes lexical-bindings.ts reads. Invariants: only this file imports Sucrase's parser, so no other
// bundle carries it; JavaScript only (no TypeScript, JSX or Flow); a syntax error is thrown.

import type { ParsedScript } from './lexical-bindings';

/** Sucrase's parser, narrowed to what is read (required, as bundled-transpiler.ts requires Sucrase: no types). */
interface SucraseParser {
  parse(
    code: string,
    jsx: boolean,
    typescript: boolean,
    flow: boolean,
  ): {
    tokens: ReadonlyArray<{
      type: number;
      start: number;
      end: number;
      identifierRole: number | null;
      rhsEndIndex: number | null;
      contextId: number | null;
      isExpression: boolean;
    }>;
    scopes: ReadonlyArray<{ startTokenIndex: number; endTokenIndex: number; isFunctionScope: boolean }>;
  };
}
const { parse } = require('sucrase/dist/parser') as SucraseParser;
const { IdentifierRole } = require('sucrase/dist/parser/tokenizer') as {
  IdentifierRole: Record<
    | 'BlockScopedDeclaration'
    | 'ObjectShorthandBlockScopedDeclaration'
    | 'TopLevelDeclaration'
    | 'ObjectShorthandTopLevelDeclaration',
    number
  >;
};
const { formatTokenType } = require('sucrase/dist/parser/tokenizer/types') as {
  formatTokenType(type: number): string;
};

export function parseScript(code: string): ParsedScript {
  const file = parse(code, false, false, false);
  return {
    tokens: file.tokens.map((t) => ({
      kind: formatTokenType(t.type),
      start: t.start,
      end: t.end,
      // A script's own top level is Sucrase's "top level" (a CommonJS module's code: its function's Local scope).
      declares:
        t.identifierRole === IdentifierRole.BlockScopedDeclaration ||
        t.identifierRole === IdentifierRole.ObjectShorthandBlockScopedDeclaration ||
        t.identifierRole === IdentifierRole.TopLevelDeclaration ||
        t.identifierRole === IdentifierRole.ObjectShorthandTopLevelDeclaration,
      rhsEnd: t.rhsEndIndex,
      contextId: t.contextId,
      isExpression: t.isExpression,
    })),
    scopes: file.scopes.map((s) => ({ start: s.startTokenIndex, end: s.endTokenIndex, isFunction: s.isFunctionScope })),
  };
}
