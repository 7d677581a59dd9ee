// runtime/write-batch.ts: a connection is corked at its first write of a tick and uncorked once
// at the tick's end (flushWrites) or, outside a loop, in a microtask after the synchronous run;
// a destroyed one is left alone. Stand-in connections count their corks and uncorks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchWrite, flushWrites, type CorkableConnection } from '../../runtime/write-batch';

class Counted implements CorkableConnection {
  writableCorked = 0;
  destroyed = false;
  readonly calls: string[] = [];
  cork(): void {
    this.writableCorked++;
    this.calls.push('cork');
  }
  uncork(): void {
    this.writableCorked--;
    this.calls.push('uncork');
  }
}

describe('batchWrite and flushWrites', () => {
  it('corks once however many writes a tick makes, and uncorks at the flush', () => {
    const a = new Counted();
    const b = new Counted();
    batchWrite(a);
    batchWrite(a);
    batchWrite(b);
    batchWrite(a);
    assert.deepEqual([a.calls, b.calls], [['cork'], ['cork']]);
    flushWrites();
    assert.deepEqual([a.calls, b.calls, a.writableCorked], [['cork', 'uncork'], ['cork', 'uncork'], 0]);
    flushWrites();
    assert.deepEqual(a.calls, ['cork', 'uncork'], 'a second flush has nothing to send');
  });

  it('leaves a connection destroyed meanwhile corked (nothing to send on it)', () => {
    const gone = new Counted();
    batchWrite(gone);
    gone.destroyed = true;
    flushWrites();
    assert.deepEqual(gone.calls, ['cork']);
  });

  it('without a flush, uncorks in a microtask after the synchronous run, then batches again', async () => {
    const c = new Counted();
    batchWrite(c);
    batchWrite(c);
    assert.deepEqual(c.calls, ['cork'], 'still corked in the same synchronous run');
    await Promise.resolve();
    assert.deepEqual(c.calls, ['cork', 'uncork']);
    batchWrite(c);
    await Promise.resolve();
    assert.deepEqual(c.calls, ['cork', 'uncork', 'cork', 'uncork'], 'the next run is batched on its own');
  });

  it('does not cork a connection its owner corked already', () => {
    const c = new Counted();
    c.cork();
    batchWrite(c);
    flushWrites();
    assert.deepEqual([c.calls, c.writableCorked], [['cork'], 1]);
  });
});
