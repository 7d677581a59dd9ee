// Tests of runtime/exception-group.ts: Python 3.11's BaseExceptionGroup / ExceptionGroup
// rules that a TaskGroup's caller relies on (exceptions kept in order, subgroup() and
// split() keeping the nesting), after CPython's Lib/test/test_exception_group.py.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { BaseExceptionGroup, ExceptionGroup, TimeoutError, ValueError } from '../../runtime/index';

describe('ExceptionGroup (CPython test_exception_group.py)', () => {
  test('test_basics_ExceptionGroup_fields: message, exceptions in order, an AggregateError too', () => {
    const a = new ValueError('a');
    const b = new TypeError('b');
    const eg = new ExceptionGroup('simple eg', [a, b]);
    assert.equal(eg.message, 'simple eg');
    assert.deepEqual(eg.exceptions, [a, b]);
    assert.ok(eg instanceof BaseExceptionGroup);
    assert.ok(eg instanceof AggregateError);
    assert.deepEqual(eg.errors, [a, b]);
    assert.equal(String(eg), 'ExceptionGroup: simple eg (2 sub-exceptions)');
  });

  test('test_EG_and_BEG_wrap_empty_sequence: an empty group is refused', () => {
    assert.throws(() => new ExceptionGroup('eg', []), TypeError);
  });

  test('test_basics_subgroup_split__bad_arg_type / nested: subgroup() and split() keep the nesting', () => {
    const v1 = new ValueError('v1');
    const t1 = new TypeError('t1');
    const v2 = new ValueError('v2');
    const inner = new ExceptionGroup('inner', [v2, t1]);
    const eg = new ExceptionGroup('outer', [v1, inner]);
    const values = eg.subgroup(ValueError)!;
    assert.equal(values.message, 'outer');
    assert.equal(values.exceptions[0], v1);
    assert.ok(values.exceptions[1] instanceof ExceptionGroup);
    assert.deepEqual((values.exceptions[1] as ExceptionGroup).exceptions, [v2]);
    const [match, rest] = eg.split((e) => e instanceof TypeError);
    assert.deepEqual((match!.exceptions[0] as ExceptionGroup).exceptions, [t1]);
    assert.deepEqual(rest!.exceptions[0], v1);
    assert.equal(eg.subgroup(TimeoutError), null);
    assert.equal(eg.subgroup([ValueError, TypeError]), eg);
  });
});
