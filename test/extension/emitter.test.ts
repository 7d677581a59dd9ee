// extension/emitter.ts: listeners hear each value in the order they were added, one listener's
// throw never keeps the others from it, and a listener added or removed during a delivery takes
// effect from the next value.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Emitter } from '../../extension/emitter';

describe('Emitter', () => {
  it('delivers each value to every listener, in the order they were added', () => {
    const e = new Emitter<number>();
    const heard: string[] = [];
    e.on((v) => heard.push(`a${v}`));
    e.on((v) => heard.push(`b${v}`));
    e.fire(1);
    e.fire(2);
    assert.deepEqual(heard, ['a1', 'b1', 'a2', 'b2']);
  });

  it('stops delivering to a listener once its remover is called, the others still hear', () => {
    const e = new Emitter<string>();
    const heard: string[] = [];
    const offA = e.on((v) => heard.push(`a:${v}`));
    e.on((v) => heard.push(`b:${v}`));
    offA();
    offA(); // twice: no harm
    e.fire('x');
    assert.deepEqual(heard, ['b:x']);
  });

  it('keeps delivering past a listener that throws', () => {
    const e = new Emitter<number>();
    const heard: number[] = [];
    e.on(() => {
      throw new Error('listener failed');
    });
    e.on((v) => heard.push(v));
    assert.doesNotThrow(() => e.fire(7));
    assert.deepEqual(heard, [7]);
  });

  it('applies a listener added or removed during a delivery from the next value on', () => {
    const e = new Emitter<number>();
    const heard: string[] = [];
    let offLate: (() => void) | null = null;
    const offFirst = e.on((v) => {
      heard.push(`first${v}`);
      if (v === 1) {
        offLate = e.on((w) => heard.push(`late${w}`));
        offSecond();
      }
    });
    const offSecond = e.on((v) => heard.push(`second${v}`));
    e.fire(1);
    assert.deepEqual(heard, ['first1', 'second1'], 'the removed one still hears the value being delivered');
    e.fire(2);
    assert.deepEqual(heard, ['first1', 'second1', 'first2', 'late2']);
    offFirst();
    (offLate as (() => void) | null)?.();
    e.fire(3);
    assert.equal(heard.length, 4);
  });
});
