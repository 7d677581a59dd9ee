// Tests of runtime/inspect/local-expressions.ts, the one evaluator of expressions over a
// frame's locals (breakpoint conditions and the debugger's evaluate).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorText, evaluateOverLocals, IN_DEAD_ZONE } from '../../../runtime/inspect/local-expressions';

test('binds the locals as variables; the innermost of two same names wins; reserved and odd names are skipped', () => {
  const r = evaluateOverLocals('x * 2 + y', [
    ['x', 20],
    ['y', 2],
    ['x', 1000],
    ['this', 5],
    ['not-a-name', 1],
  ]);
  assert.deepEqual(r, { ok: true, value: 42 });
});

test('`this` is the given receiver; a trailing line comment does not break the expression', () => {
  assert.deepEqual(evaluateOverLocals('this.n + 1 // the count', [], { self: { n: 1 } }), { ok: true, value: 2 });
});

test('a parse failure and a throw are told apart, and strict mode is on when asked', () => {
  const parse = evaluateOverLocals('x +', [['x', 1]]);
  assert.equal(parse.ok, false);
  assert.equal(!parse.ok && parse.stage, 'parse');
  const run = evaluateOverLocals('missing.field', []);
  assert.equal(!run.ok && run.stage, 'run');
  assert.equal(errorText(!run.ok ? run.error : null), 'ReferenceError: missing is not defined');
  const sloppy = evaluateOverLocals('(function () { return this === undefined; })()', []);
  const strict = evaluateOverLocals('(function () { return this === undefined; })()', [], { strict: true });
  assert.deepEqual(
    [sloppy, strict],
    [
      { ok: true, value: false },
      { ok: true, value: true },
    ],
  );
});

test('a local in its temporal dead zone throws when read, as in its frame; an outer one of its name stays hidden', () => {
  const read = evaluateOverLocals('late + 1', [
    ['late', IN_DEAD_ZONE],
    ['late', 5],
  ]);
  assert.equal(!read.ok && read.stage, 'run');
  assert.equal(errorText(!read.ok ? read.error : null), "ReferenceError: Cannot access 'late' before initialization");
  assert.deepEqual(
    evaluateOverLocals('typeof early', [
      ['late', IN_DEAD_ZONE],
      ['early', 1],
    ]),
    {
      ok: true,
      value: 'number',
    },
  );
});
