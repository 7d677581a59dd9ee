// Tests of runtime/observer-fanout.ts: every part gets every hook it implements, with
// all its arguments, in order; a hook no part implements stays undefined; a part that throws
// is reported and does not stop the others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ObserverFanout } from '../../runtime/observer-fanout';
import type { LoopObserver } from '../../runtime/loop';

test('fans every hook out with all its arguments', () => {
  const calls: string[] = [];
  const errors: string[] = [];
  const a: LoopObserver = {
    slowCallback: (d, s, t) => calls.push(`a slow ${d} ${s} ${String(t)}`),
    tickStart: (n) => calls.push(`a tick ${n}`),
  };
  const b: LoopObserver = {
    slowCallback: () => {
      throw new Error('b broke');
    },
    tickEnd: (n, c) => calls.push(`b end ${n} ${c}`),
  };
  const c: LoopObserver = { slowCallback: (d, s, t) => calls.push(`c slow ${d} ${s} ${String(t)}`) };
  const f = new ObserverFanout([a, b, c], (e, hook) => errors.push(`${hook}: ${(e as Error).message}`));
  f.slowCallback!('x', 0.5, null);
  f.tickStart!(3);
  f.tickEnd!(3, 7);
  assert.equal(f.taskCreated, undefined);
  assert.deepEqual(calls, ['a slow x 0.5 null', 'c slow x 0.5 null', 'a tick 3', 'b end 3 7']);
  assert.deepEqual(errors, ['slowCallback: b broke']);
});
