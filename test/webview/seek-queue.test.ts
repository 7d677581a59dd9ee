import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SeekQueue, type SeekTarget } from '../../webview/state/seek-queue';

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((a, b) => {
    resolve = a;
    reject = b;
  });
  return { promise, resolve, reject };
}

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('SeekQueue (the scrubber drag)', () => {
  it('sends one seek at a time and then only the latest tick asked meanwhile', async () => {
    const sent: SeekTarget[] = [];
    const waits: Array<ReturnType<typeof deferred>> = [];
    const q = new SeekQueue((t) => {
      sent.push(t);
      const d = deferred();
      waits.push(d);
      return d.promise;
    }, () => assert.fail('no failure expected'));
    q.ask(10);
    q.ask(11);
    q.ask(12);
    q.ask(13);
    assert.deepEqual(sent, [10]);
    assert.equal(q.wanted, 13);
    waits[0]!.resolve();
    await flush();
    assert.deepEqual(sent, [10, 13]);
    waits[1]!.resolve();
    await flush();
    assert.deepEqual(sent, [10, 13]);
    assert.equal(q.wanted, undefined);
    assert.equal(q.busy, false);
  });

  it('reports a failed seek and goes on with the next', async () => {
    const errors: unknown[] = [];
    const sent: SeekTarget[] = [];
    let n = 0;
    const q = new SeekQueue(async (t) => {
      sent.push(t);
      if (n++ === 0) throw new Error('no such tick');
    }, (e) => errors.push(e));
    q.ask(5);
    q.ask(null);
    await flush();
    await flush();
    assert.deepEqual(sent, [5, null]);
    assert.equal(errors.length, 1);
  });
});
