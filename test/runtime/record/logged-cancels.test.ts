// LoggedCancels: the cancel in effect right after a tick, read from a task's logged CANCEL,
// UNCANCEL and CANCEL_EFFECT records, by the runtime's rule (cancel-request.ts): a request taken
// back is never named; a task that ended cancelled names the request that ended it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CancelOrigin } from '../../../protocol/host-protocol';
import { LoggedCancels } from '../../../runtime/record/logged-cancels';

const byTask = (taskId: number): CancelOrigin => ({ kind: 'task', taskId });

test('the oldest request pending after the tick is in effect; one taken back stops counting from its tick', () => {
  const log = new LoggedCancels();
  const timeout = log.asked(5, byTask(1)); // request 1: a timeout's, taken back at tick 9
  const parent = log.asked(7, byTask(2)); // request 2
  assert.equal(log.withdrawn(1, 9), timeout);
  assert.equal(log.count, 2);
  assert.equal(log.inEffectAt(4, false), null, 'none asked yet');
  assert.equal(log.inEffectAt(5, false), timeout);
  assert.equal(log.inEffectAt(8, false), timeout, 'the oldest pending');
  assert.equal(log.inEffectAt(9, false), parent, 'taken back at 9: no longer in effect after it');
  assert.equal(log.inEffectAt(Infinity, false), parent);
});

test('a task that ended cancelled names the request whose CancelledError ended it, while it is pending', () => {
  const log = new LoggedCancels();
  const first = log.asked(3, byTask(1));
  const second = log.asked(4, { kind: 'unknown' });
  log.endedBy(2);
  assert.equal(log.inEffectAt(10, true), second, 'the one that ended it, not the oldest');
  assert.equal(log.inEffectAt(10, false), first, 'not ended (yet): the oldest pending');
  log.withdrawn(2, 6);
  assert.equal(log.inEffectAt(10, true), first, 'the ending one was taken back: the oldest pending');
});

test('a second UNCANCEL of a request keeps its first tick; unknown request numbers change nothing', () => {
  const log = new LoggedCancels();
  const c = log.asked(1, byTask(7));
  log.withdrawn(1, 3);
  log.withdrawn(1, 8);
  assert.equal(c.withdrawnTick, 3);
  assert.equal(log.withdrawn(2, 4), undefined);
  log.endedBy(0);
  log.endedBy(5);
  assert.equal(log.inEffectAt(2, true), c, 'no CANCEL_EFFECT kept: the oldest pending');
  assert.equal(log.inEffectAt(3, true), null);
});
