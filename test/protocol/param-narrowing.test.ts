// Tests of the params-narrowing primitives (protocol/param-narrowing.ts): each accepts exactly
// its type and shape and returns the value unchanged; anything else is a ProtocolError with code
// 'badRequest' whose message names the method, the param's path, what was expected and what came
// (the message is the protocol's answer to the client, so it is compared whole).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  nested,
  optionalBoolean,
  optionalNumber,
  optionalString,
  paramsOf,
  requireArray,
  requireBoolean,
  requireCancelRequester,
  requireNumber,
  requireObject,
  requireString,
  requireStringArray,
} from '../../protocol/param-narrowing';
import { ProtocolError } from '../../protocol/rpc';

/** Asserts `f` throws a badRequest ProtocolError with exactly `message`. */
function refused(f: () => unknown, message: string): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof ProtocolError, `a ProtocolError, got ${String(e)}`);
    assert.equal(e.code, 'badRequest');
    assert.equal(e.message, message);
    return true;
  });
}

describe('paramsOf', () => {
  test('absent params are an empty object; an object is returned as is', () => {
    assert.deepEqual(paramsOf('m', undefined), {});
    assert.deepEqual(paramsOf('m', null), {});
    const p = { a: 1 };
    assert.equal(paramsOf('m', p), p);
  });

  test('an array or a primitive is refused, described', () => {
    refused(() => paramsOf('seekTick', [1]), 'seekTick: params must be an object, got an array');
    refused(() => paramsOf('seekTick', 3), 'seekTick: params must be an object, got number 3');
    refused(() => paramsOf('seekTick', 'x'), 'seekTick: params must be an object, got the string "x"');
  });
});

describe('numbers', () => {
  test('any number passes the default check, NaN does not', () => {
    assert.equal(requireNumber('m', { n: -1.5 }, 'n'), -1.5);
    refused(() => requireNumber('m', { n: Number.NaN }, 'n'), 'm: params.n must be a number, got number NaN');
  });

  test('integer and id checks: fractions refused by both, negatives by id only', () => {
    assert.equal(requireNumber('m', { n: -3 }, 'n', 'integer'), -3);
    refused(() => requireNumber('m', { n: 1.5 }, 'n', 'integer'), 'm: params.n must be an integer, got 1.5');
    refused(() => requireNumber('m', { n: 1.5 }, 'n', 'id'), 'm: params.n must be an integer, got 1.5');
    refused(() => requireNumber('m', { n: -1 }, 'n', 'id'), 'm: params.n must be >= 0, got -1');
    assert.equal(requireNumber('m', { n: 0 }, 'n', 'id'), 0);
  });

  test('missing is "nothing"; a long string is cut in the message', () => {
    refused(() => requireNumber('m', {}, 'n'), 'm: params.n must be a number, got nothing');
    refused(
      () => requireNumber('m', { n: 'x'.repeat(50) }, 'n'),
      `m: params.n must be a number, got the string "${'x'.repeat(37)}..."`,
    );
  });

  test('optional: undefined passes as undefined, a present value is checked', () => {
    assert.equal(optionalNumber('m', {}, 'n'), undefined);
    assert.equal(optionalNumber('m', { n: 4 }, 'n', 'id'), 4);
    refused(() => optionalNumber('m', { n: null }, 'n'), 'm: params.n must be a number, got null');
  });
});

describe('strings, booleans, objects, arrays', () => {
  test('each accepts its type and refuses the others', () => {
    assert.equal(requireString('m', { s: '' }, 's'), '');
    refused(() => requireString('m', { s: 1 }, 's'), 'm: params.s must be a string, got number 1');
    assert.equal(optionalString('m', {}, 's'), undefined);
    assert.equal(requireBoolean('m', { b: false }, 'b'), false);
    refused(() => requireBoolean('m', { b: 'true' }, 'b'), 'm: params.b must be a boolean, got the string "true"');
    assert.equal(optionalBoolean('m', { b: true }, 'b'), true);
    assert.equal(optionalBoolean('m', {}, 'b'), undefined);
    const o = { x: 1 };
    assert.equal(requireObject('m', { o }, 'o'), o);
    refused(() => requireObject('m', { o: [] }, 'o'), 'm: params.o must be an object, got an array');
    refused(() => requireObject('m', { o: null }, 'o'), 'm: params.o must be an object, got null');
    assert.deepEqual(requireArray('m', { a: [1, 'x'] }, 'a'), [1, 'x']);
    refused(() => requireArray('m', { a: {} }, 'a'), 'm: params.a must be an array, got an object');
  });

  test('a string array names the first element that is not a string', () => {
    assert.deepEqual(requireStringArray('m', { a: ['x', 'y'] }, 'a'), ['x', 'y']);
    refused(() => requireStringArray('m', { a: ['x', 2, true] }, 'a'), 'm: params.a[1] must be a string, got number 2');
  });

  test('a cancel requester is one of the three names', () => {
    for (const who of ['inspector', 'debugger', 'cli'])
      assert.equal(requireCancelRequester('m', { by: who }, 'by'), who);
    refused(
      () => requireCancelRequester('cancelTask', { by: 'someone' }, 'by'),
      `cancelTask: params.by must be one of 'inspector', 'debugger', 'cli', got the string "someone"`,
    );
  });
});

describe('where a param is named', () => {
  test('a nested object names its fields from the method and path', () => {
    const where = nested('launch', 'options');
    assert.equal(where, 'launch: params.options');
    refused(
      () => requireNumber(where, { pages: 'many' }, 'pages'),
      'launch: params.options.pages must be a number, got the string "many"',
    );
    assert.equal(nested(where, 'demo'), 'launch: params.options.demo');
  });
});
