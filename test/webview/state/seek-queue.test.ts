import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MomentIds } from '../../../protocol/moment-ids';
import { SeekQueue, SHOWN_WAIT_MS, type SeekTarget } from '../../../webview/state/seek-queue';

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
    const q = new SeekQueue(
      (t) => {
        sent.push(t);
        const d = deferred();
        waits.push(d);
        return d.promise;
      },
      () => assert.fail('no failure expected'),
    );
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
    const q = new SeekQueue(
      async (t) => {
        sent.push(t);
        if (n++ === 0) throw new Error('no such tick');
      },
      (e) => errors.push(e),
    );
    q.ask(5);
    q.ask(null);
    await flush();
    await flush();
    assert.deepEqual(sent, [5, null]);
    assert.equal(errors.length, 1);
  });
});

describe('SeekQueue knows its own seeks by moment id', () => {
  it("two views move the moment at once: only the status naming its own seek ends the wait, another view's never does", async () => {
    const sent: Array<{ tick: SeekTarget; moment: string }> = [];
    const answers: Array<() => void> = [];
    const q = new SeekQueue(
      (tick, moment) => {
        sent.push({ tick, moment });
        return new Promise((resolve) => answers.push(() => resolve({ tick, moment })));
      },
      () => assert.fail('no failure expected'),
      new MomentIds('webview a'),
    );
    const debug = new MomentIds('debug 1');
    q.ask(10);
    assert.equal(sent[0]!.moment, 'webview a:1');
    // The ordered log the panel hears: the debugger's Step Back shown first, then the answer to the panel's seek.
    const debugId = debug.next();
    q.shown(debugId);
    assert.equal(q.isOwn(debugId), false);
    assert.equal(q.wanted, 10, "another view's moment is not the panel's answer");
    answers[0]!();
    await flush();
    assert.equal(q.wanted, 10, 'answered, but the status has not shown its moment yet');
    q.shown(sent[0]!.moment);
    assert.equal(q.isOwn(sent[0]!.moment), true);
    assert.equal(q.wanted, undefined, 'its own moment shown');
  });

  it('the status naming its seek before the answer comes (as the extension sends them): settled with the answer', async () => {
    const q = new SeekQueue(
      async (tick, moment) => {
        q.shown(moment);
        return { tick, moment };
      },
      () => assert.fail('no failure expected'),
    );
    q.ask(7);
    assert.equal(q.wanted, 7);
    await flush();
    assert.equal(q.wanted, undefined);
  });

  it('an answer without its id (a host that drops it): the answer settles the seek at once', async () => {
    const q = new SeekQueue(
      async (tick) => ({ tick }),
      () => assert.fail('no failure expected'),
      new MomentIds('webview b'),
      () => assert.fail('no timer expected'),
    );
    q.ask(4);
    assert.equal(q.wanted, 4);
    await flush();
    assert.equal(q.wanted, undefined);
    assert.equal(q.busy, false);
  });

  it('an answer with its id whose status never names it: the wait ends after the bound, not before, and only for the last seek', async () => {
    const timers: Array<{ ms: number; fn: () => void }> = [];
    const sent: string[] = [];
    const q = new SeekQueue(
      async (tick, moment) => {
        sent.push(moment);
        return { tick, moment };
      },
      () => assert.fail('no failure expected'),
      new MomentIds('webview c'),
      (ms, fn) => timers.push({ ms, fn }),
    );
    q.ask(9);
    await flush();
    assert.equal(q.wanted, 9, 'answered, its status not come yet: still waited for');
    assert.deepEqual(
      timers.map((t) => t.ms),
      [SHOWN_WAIT_MS],
    );
    // Another view's moment meanwhile does not end it; the bound does.
    q.shown('debug 1:1');
    assert.equal(q.wanted, 9);
    timers[0]!.fn();
    assert.equal(q.wanted, undefined, 'the status that never came is not waited for forever');
    // A later seek is not ended by the bound of the one before.
    q.ask(11);
    await flush();
    q.ask(12);
    await flush();
    assert.equal(timers.length, 3);
    timers[1]!.fn();
    assert.equal(q.wanted, 12, "the bound of a seek followed by another does not end the newer one's wait");
    q.shown(sent[2]);
    assert.equal(q.wanted, undefined);
    timers[2]!.fn();
    assert.equal(q.wanted, undefined);
  });
});
