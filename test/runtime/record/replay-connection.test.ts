// runtime/record/replay-connection.ts: a replayed socket's connection counts corked writes until the
// uncork that sends them, and says it ended or was destroyed, as a node:net socket would.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReplayConnection } from '../../../runtime/record/replay-connection';

describe('ReplayConnection', () => {
  it('takes every write; only corked bytes wait in writableLength, until the outermost uncork', () => {
    const c = new ReplayConnection();
    assert.equal(c.write(Buffer.from('abc')), true);
    assert.equal(c.writableLength, 0, 'an uncorked write fits and is gone');
    c.cork();
    c.cork();
    c.write(Buffer.from('hello'));
    c.write(Buffer.from('!'));
    assert.deepEqual([c.writableCorked, c.writableLength], [2, 6]);
    c.uncork();
    assert.deepEqual([c.writableCorked, c.writableLength], [1, 6], 'still corked once');
    c.uncork();
    assert.deepEqual([c.writableCorked, c.writableLength], [0, 0]);
    c.uncork();
    assert.equal(c.writableCorked, 0, 'an extra uncork does not go below zero');
  });

  it('end() marks it ended; destroy() destroyed, dropping what was waiting; destroySoon() both', () => {
    const ended = new ReplayConnection();
    ended.end();
    assert.deepEqual([ended.writableEnded, ended.destroyed], [true, false]);
    const destroyed = new ReplayConnection();
    destroyed.cork();
    destroyed.write(Buffer.from('xy'));
    destroyed.destroy();
    assert.deepEqual([destroyed.destroyed, destroyed.writableLength, destroyed.writableEnded], [true, 0, false]);
    const soon = new ReplayConnection();
    soon.destroySoon();
    assert.deepEqual([soon.writableEnded, soon.destroyed], [true, true]);
    const reset = new ReplayConnection();
    assert.equal(reset.resetAndDestroy(), reset);
    assert.equal(reset.destroyed, true);
  });
});
