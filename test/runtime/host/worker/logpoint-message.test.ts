// runtime/host/worker/logpoint-message.ts: a logpoint's message turned into the JavaScript a V8
// breakpoint condition evaluates. The expressions are run here in a vm context standing for the
// paused frame, so what is checked is what the live run prints and the past records.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as vm from 'node:vm';
import {
  loggedMessageCounted,
  loggedMessageExpression,
  loggedMessageOrThrow,
  logpointTemplate,
} from '../../../../runtime/host/worker/logpoint-message';

/** Evaluates `source` with `frame`'s names in scope, as V8 does a condition in a paused frame. */
function inFrame(source: string, frame: Record<string, unknown> = {}): unknown {
  return vm.runInNewContext(source, { ...frame });
}

describe('logpointTemplate', () => {
  it('interpolates each {expression} with String(value)', () => {
    const template = logpointTemplate('url={url} tries={n + 1}');
    assert.equal(template, '`url=${url} tries=${n + 1}`');
    assert.equal(inFrame(template, { url: 'http://a/', n: 1 }), 'url=http://a/ tries=2');
    assert.equal(inFrame(logpointTemplate('{x}'), { x: { toString: () => 'obj' } }), 'obj');
  });

  it('takes everything outside braces literally: backticks, backslashes, dollars', () => {
    const text = 'a `tick` \\n costs $5 and ${not} {v}';
    // `${not}` is a brace group too: its inside is an expression, as for any {…}.
    assert.equal(inFrame(logpointTemplate(text), { v: 'V', not: 'N' }), 'a `tick` \\n costs $5 and $N V');
    assert.equal(inFrame(logpointTemplate('100$ \\` end')), '100$ \\` end');
  });
});

describe('loggedMessageOrThrow', () => {
  it('is the message where the condition holds, false where it does not', () => {
    assert.equal(inFrame(loggedMessageOrThrow('n={n}', 'n > 1'), { n: 2 }), 'n=2');
    assert.equal(inFrame(loggedMessageOrThrow('n={n}', 'n > 1'), { n: 1 }), false);
  });

  it('treats a missing or blank condition as true', () => {
    assert.equal(inFrame(loggedMessageOrThrow('hi'), {}), 'hi');
    assert.equal(inFrame(loggedMessageOrThrow('hi', '  '), {}), 'hi');
  });

  it('throws when an expression of the message throws (V8 then does not pause)', () => {
    assert.throws(() => inFrame(loggedMessageOrThrow('{missing.x}')), {
      name: 'ReferenceError',
      message: 'missing is not defined',
    });
  });
});

describe('loggedMessageExpression', () => {
  it('is the message, or false when the condition fails, throws, or the message throws', () => {
    assert.equal(inFrame(loggedMessageExpression('v={v}'), { v: 3 }), 'v=3');
    assert.equal(inFrame(loggedMessageExpression('v={v}', 'v === 4'), { v: 3 }), false);
    assert.equal(inFrame(loggedMessageExpression('v={v}', 'nope.x'), { v: 3 }), false);
    assert.equal(inFrame(loggedMessageExpression('{nope.x}'), {}), false);
  });
});

describe('loggedMessageCounted', () => {
  it('tells a hit whose message threw (null) from one whose condition failed (false)', () => {
    assert.equal(inFrame(loggedMessageCounted('v={v}'), { v: 'x' }), 'v=x');
    assert.equal(inFrame(loggedMessageCounted('{nope.x}'), {}), null);
    assert.equal(inFrame(loggedMessageCounted('{v}', 'v > 0'), { v: 0 }), false);
    assert.equal(inFrame(loggedMessageCounted('{v}', 'nope.x'), { v: 0 }), false);
    assert.equal(inFrame(loggedMessageCounted('{nope.x}', 'v > 0'), { v: 1 }), null);
  });
});
