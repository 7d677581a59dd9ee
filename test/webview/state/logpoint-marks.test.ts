import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LogpointMark } from '../../../protocol/webview-protocol';
import { LogpointMarks, logpointMarkTitle, MARK_TITLE_MESSAGE_CHARS } from '../../../webview/state/logpoint-marks';

function hit(over: Partial<LogpointMark>): LogpointMark {
  return {
    hit: 0,
    tick: 1,
    taskId: 3,
    task: 'worker-1',
    time: 1.25,
    message: 'url=/a',
    file: '/w/src/crawler.ts',
    line: 42,
    ...over,
  };
}

describe('LogpointMarks', () => {
  it('puts each hit on its task lane, in tick order, and finds those of a window', () => {
    const marks = new LogpointMarks();
    marks.replace([
      hit({ hit: 0, tick: 40, taskId: 3 }),
      hit({ hit: 1, tick: 5, taskId: 3 }),
      hit({ hit: 2, tick: 12, taskId: 7 }),
      hit({ hit: 3, tick: 20, taskId: 3 }),
      hit({ hit: 4, tick: 9, taskId: null }),
    ]);
    assert.equal(marks.size, 4, 'a hit outside any task has no lane');
    assert.deepEqual(
      marks.inLane(3, 0, 100).map((m) => m.hit),
      [1, 3, 0],
    );
    assert.deepEqual(
      marks.inLane(3, 6, 40).map((m) => m.hit),
      [3, 0],
    );
    assert.deepEqual(
      marks.inLane(3, 21, 39).map((m) => m.hit),
      [],
    );
    assert.deepEqual(
      marks.inLane(7, 12, 12).map((m) => m.hit),
      [2],
    );
    assert.deepEqual(marks.inLane(99, 0, 100), []);
  });

  it('hit-tests the mark nearest the pointer on its lane, the earliest hit of a tick first', () => {
    const marks = new LogpointMarks();
    marks.replace([
      hit({ hit: 5, tick: 10 }),
      hit({ hit: 2, tick: 10 }),
      hit({ hit: 3, tick: 14 }),
      hit({ hit: 4, tick: 14, taskId: 8 }),
    ]);
    assert.equal(marks.near(3, 8, 12, 11)?.hit, 2);
    assert.equal(marks.near(3, 9, 15, 13)?.hit, 3);
    assert.equal(marks.near(3, 11, 13, 12), null, 'none within the pointer ticks');
    assert.equal(marks.near(8, 9, 15, 10)?.hit, 4, 'only the lane pointed at');
  });

  it('finds the next hit of a lane after a tick, back to its first past the last', () => {
    const marks = new LogpointMarks();
    marks.replace([hit({ hit: 0, tick: 4 }), hit({ hit: 1, tick: 9 }), hit({ hit: 2, tick: 9, taskId: 5 })]);
    assert.equal(marks.nextAfter(3, 0)?.hit, 0);
    assert.equal(marks.nextAfter(3, 4)?.hit, 1);
    assert.equal(marks.nextAfter(3, 9)?.hit, 0);
    assert.equal(marks.nextAfter(5, 20)?.hit, 2);
    assert.equal(marks.nextAfter(6, 0), null);
  });

  it('replaces every mark with each list (a removed logpoint loses its marks) and clears for a new run', () => {
    const marks = new LogpointMarks();
    marks.replace([hit({ hit: 0, tick: 3 }), hit({ hit: 1, tick: 4, line: 50 })]);
    const v = marks.version;
    marks.replace([hit({ hit: 1, tick: 4, line: 50 })]);
    assert.ok(marks.version > v);
    assert.deepEqual(
      marks.inLane(3, 0, 10).map((m) => m.hit),
      [1],
    );
    marks.clear();
    assert.equal(marks.size, 0);
    assert.deepEqual(marks.inLane(3, 0, 10), []);
  });

  it('titles a mark with its tick, time, task, line and message, cut when long', () => {
    const t = logpointMarkTitle(hit({ tick: 17, message: '<img src=x onerror=alert(1)>' }));
    assert.match(t, /crawler\.ts:42/);
    assert.match(t, /tick 17 \(\+1\.3 ms\)/);
    assert.match(t, /task #3 worker-1/);
    assert.ok(t.includes('<img src=x onerror=alert(1)>'), 'the text as it is: a title is never parsed as HTML');
    const long = logpointMarkTitle(hit({ message: 'x'.repeat(MARK_TITLE_MESSAGE_CHARS + 50) }));
    assert.ok(long.includes(`${'x'.repeat(MARK_TITLE_MESSAGE_CHARS)}…`));
    assert.ok(!long.includes('x'.repeat(MARK_TITLE_MESSAGE_CHARS + 1)));
    assert.match(logpointMarkTitle(hit({ taskId: null, task: null })), /no task/);
  });
});
