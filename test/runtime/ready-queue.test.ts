// Tests of runtime/ready-queue.ts: FIFO order across segment boundaries, a run takes only
// the entries counted before it began, errors go to the handler and the run goes on,
// and forEach sees every waiting entry in order.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ReadyQueue, type ReadyFn } from '../../runtime/ready-queue';

const record =
  (log: unknown[]): ReadyFn =>
  (a, b) => {
    log.push([a, b]);
  };

function noError(e: unknown): void {
  throw new Error(`unexpected error from an entry: ${String(e)}`);
}

describe('ReadyQueue', () => {
  test('runs 5,000 entries (several segments) in push order and ends empty', () => {
    const q = new ReadyQueue();
    const log: unknown[] = [];
    const fn = record(log);
    for (let i = 0; i < 5000; i++) q.push(fn, i, -i);
    assert.equal(q.length, 5000);
    q.run(q.length, noError);
    assert.equal(q.length, 0);
    assert.deepEqual(
      log,
      Array.from({ length: 5000 }, (_, i) => [i, -i]),
    );
  });

  test('a run takes only the entries present when it began; pushes meanwhile wait', () => {
    const q = new ReadyQueue();
    const log: number[] = [];
    const again: ReadyFn = (a) => {
      log.push(a as number);
      if ((a as number) < 3000) q.push(again, (a as number) + 3000, null);
    };
    for (let i = 0; i < 3000; i++) q.push(again, i, null);
    q.run(q.length, noError);
    assert.equal(log.length, 3000);
    assert.equal(q.length, 3000);
    q.run(q.length, noError);
    assert.equal(q.length, 0);
    assert.deepEqual(
      log.slice(3000),
      Array.from({ length: 3000 }, (_, i) => i + 3000),
    );
  });

  test('a partial run leaves the rest in order, across a segment boundary', () => {
    const q = new ReadyQueue();
    const log: unknown[] = [];
    const fn = record(log);
    for (let i = 0; i < 2500; i++) q.push(fn, i, null);
    q.run(1500, noError);
    assert.equal(q.length, 1000);
    const waiting: unknown[] = [];
    q.forEach((_fn, a) => waiting.push(a));
    assert.deepEqual(
      waiting,
      Array.from({ length: 1000 }, (_, i) => i + 1500),
    );
    q.run(1000, noError);
    assert.deepEqual(
      log.map((e) => (e as unknown[])[0]),
      Array.from({ length: 2500 }, (_, i) => i),
    );
  });

  test('what an entry throws goes to onError with the entry, and the run goes on', () => {
    const q = new ReadyQueue();
    const log: string[] = [];
    const boom: ReadyFn = (a) => {
      throw new Error(`boom ${String(a)}`);
    };
    q.push(boom, 'x', null);
    q.push(() => log.push('after'), null, null);
    q.run(2, (e, fn, a) => log.push(`${(e as Error).message} ${fn === boom} ${String(a)}`));
    assert.deepEqual(log, ['boom x true x', 'after']);
  });

  test('forEach visits nothing on an empty queue and every entry of a full segment', () => {
    const q = new ReadyQueue();
    let seen = 0;
    q.forEach(() => seen++);
    assert.equal(seen, 0);
    for (let i = 0; i < 1024; i++) q.push(() => {}, i, null);
    q.forEach(() => seen++);
    assert.equal(seen, 1024);
  });

  test('reuses emptied segments across bursts and keeps working after clear()', () => {
    const q = new ReadyQueue();
    const log: number[] = [];
    const fn: ReadyFn = (a) => log.push(a as number);
    for (let burst = 0; burst < 3; burst++) {
      for (let i = 0; i < 4000; i++) q.push(fn, burst * 4000 + i, null);
      q.run(q.length, noError);
    }
    assert.equal(log.length, 12000);
    assert.ok(log.every((v, i) => v === i));
    q.push(fn, -1, null);
    q.clear();
    assert.equal(q.length, 0);
    q.push(fn, 99, null);
    q.run(1, noError);
    assert.equal(log[log.length - 1], 99);
  });
});
