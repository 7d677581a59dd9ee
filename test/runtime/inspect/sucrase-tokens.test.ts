// Tests of Sucrase's parser turned into the tokens and scopes lexical-bindings.ts reads
// (runtime/inspect/sucrase-tokens.ts): each token's kind and place; `declares` on the names a `let`, `const`,
// class or top-level function binds (shorthand destructuring included), not on `var`, parameters or uses;
// where an initializer ends (rhsEnd); destructuring's context; the scopes, function or block; JavaScript
// only, a syntax error thrown.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseScript } from '../../../runtime/inspect/sucrase-tokens';

/** Each token as [text, kind, declares]. */
function tokensOf(code: string): Array<[string, string, boolean]> {
  return parseScript(code).tokens.map((t) => [code.slice(t.start, t.end), t.kind, t.declares]);
}

describe('parseScript', () => {
  test('the names `let`, `const` and a top-level function bind declare; `var`, parameters and uses do not', () => {
    assert.deepStrictEqual(tokensOf('let a = 1;\nfunction f(p) { const b = a; var c; return b; }\n'), [
      ['let', 'let', false],
      ['a', 'name', true],
      ['=', '=', false],
      ['1', 'num', false],
      [';', ';', false],
      ['function', 'function', false],
      ['f', 'name', true],
      ['(', '(', false],
      ['p', 'name', false],
      [')', ')', false],
      ['{', '{', false],
      ['const', 'const', false],
      ['b', 'name', true],
      ['=', '=', false],
      ['a', 'name', false],
      [';', ';', false],
      ['var', 'var', false],
      ['c', 'name', false],
      [';', ';', false],
      ['return', 'return', false],
      ['b', 'name', false],
      [';', ';', false],
      ['}', '}', false],
      ['', 'eof', false],
    ]);
  });

  test('shorthand destructuring declares, at the top level and in a block; its braces share a context', () => {
    const code = 'const { x } = o;\n{ let { y } = o; }\n';
    const { tokens } = parseScript(code);
    assert.deepStrictEqual(
      tokens.filter((t) => t.declares).map((t) => code.slice(t.start, t.end)),
      ['x', 'y'],
    );
    const pattern = tokens.slice(1, 4);
    assert.deepStrictEqual(
      pattern.map((t) => code.slice(t.start, t.end)),
      ['{', 'x', '}'],
    );
    assert.equal(new Set(pattern.map((t) => t.contextId)).size, 1);
    assert.notEqual(pattern[0]?.contextId, null);
  });

  test("an initializer's `=` says where its right-hand side ends (a token index)", () => {
    const code = 'let a = b + 1, c = 2;';
    const { tokens } = parseScript(code);
    const ends = tokens.filter((t) => t.kind === '=').map((t) => t.rhsEnd);
    // a's ends at `,` (token 6), c's at `;` (token 10).
    assert.deepStrictEqual(ends, [6, 10]);
    assert.deepStrictEqual(
      ends.map((e) => code.slice(tokens[e!]!.start, tokens[e!]!.end)),
      [',', ';'],
    );
  });

  test('a class expression is marked an expression; a class declaration, which declares its name, is not', () => {
    const code = 'const g = class {};\nclass K {}\n';
    const { tokens } = parseScript(code);
    assert.deepStrictEqual(
      tokens.filter((t) => t.kind === 'class').map((t) => [t.start, t.isExpression]),
      [
        [10, true],
        [20, false],
      ],
    );
    assert.deepStrictEqual(
      tokens.filter((t) => t.declares).map((t) => code.slice(t.start, t.end)),
      ['g', 'K'],
    );
  });

  test('the scopes, as token indices (end excluded): the block, the function body, its parameters, the program', () => {
    const { scopes, tokens } = parseScript('function f(p) { { let b; } }\n');
    assert.equal(tokens.length, 13);
    assert.deepStrictEqual(scopes, [
      { start: 6, end: 11, isFunction: false },
      { start: 5, end: 12, isFunction: true },
      { start: 2, end: 12, isFunction: true },
      { start: 0, end: 13, isFunction: true },
    ]);
  });

  test('JavaScript only: TypeScript is a syntax error; a syntax error is thrown with its place', () => {
    assert.throws(() => parseScript('let x: number = 1;'), /^SyntaxError: Unexpected token, expected ";" \(1:6\)$/);
    assert.throws(() => parseScript('const = 1;'), /^SyntaxError: Unexpected token \(1:7\)$/);
  });
});
