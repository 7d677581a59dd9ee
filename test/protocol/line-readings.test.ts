// protocol/line-readings.ts: when two readings of a watched value are the same (no change
// between them), the rule Go to Last/Next Change and the replay host share.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LineReading } from '../../protocol/host-protocol';
import { sameReading } from '../../protocol/line-readings';

const value = (v: string, type = 'number'): LineReading => ({ reachable: true, value: v, type });
const unreachable = (why: string): LineReading => ({ reachable: false, why });

describe('sameReading', () => {
  it('compares a value and its type', () => {
    assert.equal(sameReading(value('1'), value('1')), true);
    assert.equal(sameReading(value('1'), value('2')), false);
    assert.equal(sameReading(value('1', 'number'), value('1', 'string')), false);
  });

  it('takes two unreachable readings as alike, whatever the why', () => {
    assert.equal(sameReading(unreachable('not declared yet'), unreachable('out of scope')), true);
  });

  it('takes a value and no value as a change, in either order', () => {
    assert.equal(sameReading(value('1'), unreachable('gone')), false);
    assert.equal(sameReading(unreachable('gone'), value('1')), false);
  });
});
