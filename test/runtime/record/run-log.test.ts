// readRunLog's view of the cancels asked from outside the loop: only those between ticks
// with no requesting task, each placed among the socket inputs of its gap as it came.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunLogWriter, readRunLog } from '../../../runtime/record/run-log';

test('a cancel between ticks is an input of the next tick, in its place among the socket inputs; one inside a tick or by a task is not', () => {
  const w = new RunLogWriter();
  w.created(0, 'crawl', 1);
  w.created(1, 'worker-1', 2);
  w.socket('127.0.0.1', 80);
  w.tick(0.001);
  w.step(1);
  w.cancel(2, 1); // by task #1, inside a tick: the program's own
  w.cancel(2, 0); // by a callback or timer inside a tick: replays itself
  w.tickEnd(1);
  w.input(1, 'data', Buffer.from('ab'));
  w.cancel(1, 0); // from outside (a signal), after one input of the gap
  w.input(1, 'end', null);
  w.cancel(2, 0);
  w.tick(0.002);
  w.tickEnd(0);
  const events = w.events.bytes();
  const log = readRunLog(events, w.gaps.bytes(), Buffer.concat(w.payloads), 'test.corotrace');
  assert.deepEqual(log.cancelsBefore, [[], [{ task: 1, afterInputs: 1 }, { task: 2, afterInputs: 2 }]]);
  assert.equal(log.inputsBefore[1]!.length, 2);
});
