// The `stopped` events the adapter sends: reasons as DAP knows them, every task stopped with the
// loop, the descriptions beside the thread's name, and the loop thread's own label event that
// leaves the focus where it is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOOP_THREAD_ID } from '../../../extension/debug/dap-mapping';
import {
  endStop,
  loopStoppedEvent,
  message,
  movedElsewhere,
  stoppedEvent,
  stoppedEventOf,
} from '../../../extension/debug/stop-events';

test('a stop stops every thread; a cancelled task is an exception to DAP, described as a cancel', () => {
  const bp = stoppedEvent('breakpoint', 7);
  assert.deepEqual(
    { reason: bp.body.reason, threadId: bp.body.threadId, all: bp.body.allThreadsStopped, d: bp.body.description },
    { reason: 'breakpoint', threadId: 7, all: true, d: 'Paused on breakpoint' },
  );
  const cancelled = stoppedEvent('cancelled', 7);
  assert.equal(cancelled.body.reason, 'exception');
  assert.equal(cancelled.body.description, 'Paused on task cancelled');
  assert.equal(stoppedEvent('goto', 7).body.description, 'Paused at a replayed tick');
  assert.equal(stoppedEvent('step', 7).body.description, undefined, "VS Code's own words for a step");
  assert.equal(stoppedEvent('end', 7).body.description, undefined);
  assert.equal(stoppedEvent('exception', 7, 'boom').body.text, 'boom');
});

test("the loop thread's label event stops no other thread and keeps the focus", () => {
  const ev = loopStoppedEvent('goto', 'At tick 3 of 9 (replayed)');
  assert.equal(ev.body.threadId, LOOP_THREAD_ID);
  assert.equal(ev.body.allThreadsStopped, false);
  assert.equal(ev.body.preserveFocusHint, true);
  assert.equal(ev.body.description, 'At tick 3 of 9 (replayed)');
});

test("the end of a recorded run is shown on the loop's thread, saying its last tick", () => {
  const ev = stoppedEventOf(endStop(42));
  assert.equal(ev.body.reason, 'end');
  assert.equal(ev.body.threadId, LOOP_THREAD_ID);
  assert.equal(ev.body.description, 'Finished at tick 42');
  assert.equal(ev.body.allThreadsStopped, true);
});

test("a move another view made keeps the focus; this session's own does not", () => {
  assert.equal(movedElsewhere(stoppedEvent('goto', 1), true).body.preserveFocusHint, true);
  assert.equal(movedElsewhere(stoppedEvent('goto', 1), false).body.preserveFocusHint, undefined);
  assert.equal(message(new Error('why')), 'why');
  assert.equal(message(42), '42');
});
