// Tests of runtime/inspect/entry-frame.ts: the first statement of a coroutine function, from
// its definition line (a one-line header, a parameter list over several lines, comments and
// blank lines before the first statement), and the frame of a real generator function.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { entryFrameOf, firstStatementLine } from '../../../runtime/inspect/entry-frame';
import { lineOf } from '../../source-line';

describe('firstStatementLine', () => {
  test('a one-line header', () => {
    const lines = [
      'export const main = coroutine(function* main(): Coroutine<void> {',
      '  const q = new Queue();',
      '});',
    ];
    assert.equal(firstStatementLine(lines, 1), 2);
  });
  test('parameters over several lines, then comments and blank lines', () => {
    const lines = [
      'const f = coroutine(function* f(',
      '  a: number,',
      '  b: { x: number },',
      '): Coroutine<void> {',
      '',
      '  // why',
      '  /* more',
      '     of it */',
      '  yield* sleep(a);',
      '});',
    ];
    assert.equal(firstStatementLine(lines, 1), 9);
  });
  test('no body brace found: the definition line', () => {
    assert.equal(firstStatementLine(['const f = g;'], 1), 1);
  });
});

function* starter(): Generator<number, void, unknown> {
  // The first statement comes next.
  const first = 1;
  yield first;
}

test("entryFrameOf: a generator function's frame at its first statement", () => {
  const frame = entryFrameOf(starter);
  assert.equal(frame?.name, 'starter');
  assert.equal(frame?.position?.file, __filename);
  assert.equal(frame?.position?.line, lineOf(__filename, 'const first = 1;'));
});
