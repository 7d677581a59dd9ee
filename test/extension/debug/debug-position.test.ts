// Where the debugger stands: the position model's transitions and queries (no host).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  RUNNING,
  answersMove,
  aside,
  atEnd as endShown,
  backToPresent,
  canStepBack,
  canStepForward,
  endStopAt,
  forwardFrom,
  isPast,
  landedInPast,
  liveStop,
  onContinued,
  onFinished,
  onLaunched,
  onPaused,
  onViewedTick,
  openedRecording,
  presentOf,
  presentStop,
  refused,
  retarget,
  settled,
  shownStop,
  startMove,
  viewedTickOf,
  stepsByLine,
  type DebugPosition,
  type PositionStop,
} from '../../../extension/debug/debug-position';
import { LOOP_THREAD_ID } from '../../../extension/debug/dap-mapping';

const between: PositionStop = {
  reason: 'breakpoint',
  tick: 40,
  taskId: 3,
  threadId: 3,
  description: 'worker-1 suspended at fetch',
};
const onLine: PositionStop = {
  reason: 'breakpoint',
  tick: 40,
  taskId: 3,
  threadId: 3,
  description: 'line 12',
  line: { file: '/p/crawl.ts', line: 12, column: 1 },
};
const pastLineStop: PositionStop = {
  reason: 'step',
  tick: 40,
  taskId: 3,
  threadId: 3,
  description: 'line 11 (replayed)',
  line: { file: '/p/crawl.ts', line: 11, column: 1 },
};
const hitStop: PositionStop = {
  reason: 'breakpoint',
  tick: 17,
  taskId: 4,
  threadId: 4,
  description: 'hit at line 20',
  line: { file: '/p/crawl.ts', line: 20, column: 1 },
};
const gotoStop: PositionStop = {
  reason: 'goto',
  tick: 9,
  taskId: undefined,
  threadId: LOOP_THREAD_ID,
  description: 'tick 9 of 50',
};
const end = endStopAt(50);

const paused: DebugPosition = { kind: 'paused', stop: between };
const liveLine: DebugPosition = { kind: 'liveLine', stop: onLine };
const pastLine: DebugPosition = { kind: 'pastLine', stop: pastLineStop, live: onLine };
const pastTick: DebugPosition = {
  kind: 'pastTick',
  tick: 9,
  stop: gotoStop,
  present: { kind: 'stopped', stop: between },
};
const pastHit: DebugPosition = { kind: 'pastHit', tick: 17, stop: hitStop, present: { kind: 'stopped', stop: onLine } };
const atEnd: DebugPosition = { kind: 'end', stop: end };
const recording: DebugPosition = openedRecording(9, 50, gotoStop);

describe("debug position: the host's paused", () => {
  it('a live stop between ticks is paused, on a line is liveLine', () => {
    assert.deepEqual(onPaused(RUNNING, between, false), { kind: 'paused', stop: between });
    assert.deepEqual(onPaused(RUNNING, onLine, false), { kind: 'liveLine', stop: onLine });
    assert.deepEqual(onPaused(paused, onLine, false), { kind: 'liveLine', stop: onLine });
  });

  it('a past line of the live line stop keeps that stop as the one to come back to', () => {
    assert.deepEqual(onPaused(liveLine, pastLineStop, true), { kind: 'pastLine', stop: pastLineStop, live: onLine });
    const earlier = { ...pastLineStop, description: 'line 10' };
    assert.deepEqual(onPaused(pastLine, earlier, true), { kind: 'pastLine', stop: earlier, live: onLine });
    // The live stop shown again ends the past lines.
    assert.deepEqual(onPaused(pastLine, onLine, false), { kind: 'liveLine', stop: onLine });
  });

  it('a line reached from a hit is shown like the hit, at its tick', () => {
    const next = { ...hitStop, tick: 18, reason: 'step' as const };
    assert.deepEqual(onPaused(pastHit, next, true), {
      kind: 'pastHit',
      tick: 18,
      stop: next,
      present: pastHit.present,
    });
  });

  it('the live run stopping while the past is shown becomes the present, the view stays', () => {
    const running: DebugPosition = { ...pastTick, present: { kind: 'running' } };
    assert.deepEqual(onPaused(running, between, false), pastTick);
    assert.deepEqual(onPaused({ ...pastHit, present: { kind: 'running' } }, onLine, false), pastHit);
  });

  it('an opened recording has no live run to stop', () => {
    assert.equal(onPaused(recording, between, false), recording);
  });
});

describe("debug position: the host's continued", () => {
  it('live positions run', () => {
    for (const p of [paused, liveLine, pastLine, RUNNING]) assert.deepEqual(onContinued(p), RUNNING);
  });
  it('the past stays shown, its present now running', () => {
    assert.deepEqual(onContinued(pastTick), { ...pastTick, present: { kind: 'running' } });
    assert.deepEqual(onContinued(pastHit), { ...pastHit, present: { kind: 'running' } });
  });
  it('the end and an opened recording do not run', () => {
    assert.equal(onContinued(atEnd), atEnd);
    assert.equal(onContinued(recording), recording);
  });
});

describe("debug position: the host's viewedTick", () => {
  it('a tick moved to from the present keeps the present to come back to', () => {
    assert.deepEqual(onViewedTick(paused, 9, 50, false, gotoStop), pastTick);
    assert.deepEqual(onViewedTick(RUNNING, 9, 50, false, gotoStop), {
      kind: 'pastTick',
      tick: 9,
      stop: gotoStop,
      present: { kind: 'running' },
    });
    // From a past line the present is the live line stop, not the line shown.
    assert.deepEqual(onViewedTick(pastLine, 9, 50, false, gotoStop), {
      kind: 'pastTick',
      tick: 9,
      stop: gotoStop,
      present: { kind: 'stopped', stop: onLine },
    });
    // From the end, the end.
    assert.deepEqual(onViewedTick(atEnd, 9, 50, true, gotoStop), {
      kind: 'pastTick',
      tick: 9,
      stop: gotoStop,
      present: { kind: 'end', stop: end },
    });
  });

  it('a tick moved to from the past keeps its present (a hit shown is left)', () => {
    const other = { ...gotoStop, tick: 12 };
    assert.deepEqual(onViewedTick(pastTick, 12, 50, false, other), { ...pastTick, tick: 12, stop: other });
    assert.deepEqual(onViewedTick(pastHit, 12, 50, false, other), {
      kind: 'pastTick',
      tick: 12,
      stop: other,
      present: pastHit.present,
    });
  });

  it('null is the present again', () => {
    assert.deepEqual(onViewedTick(pastTick, null, 50, false, null), paused);
    assert.deepEqual(onViewedTick(pastHit, null, 50, false, null), liveLine);
    // Already there: nothing moves.
    assert.equal(onViewedTick(paused, null, 50, false, null), paused);
  });

  it("a finished run's last tick is its end", () => {
    const past: DebugPosition = { ...pastTick, present: { kind: 'end', stop: end } };
    assert.deepEqual(onViewedTick(past, 50, 50, true, gotoStop), atEnd);
    assert.deepEqual(onViewedTick(atEnd, 50, 50, true, null), atEnd);
    // A live run's last recorded tick is only a tick.
    assert.equal(onViewedTick(paused, 50, 50, false, gotoStop).kind, 'pastTick');
  });

  it('an opened recording moves between its ticks, never to a present', () => {
    assert.deepEqual(onViewedTick(recording, 30, 50, true, null), openedRecording(30, 50, null));
    assert.deepEqual(onViewedTick(recording, 80, 50, true, null), openedRecording(50, 50, null));
    assert.equal(onViewedTick(recording, null, 50, true, null), recording);
  });
});

describe('debug position: finished, landed, back', () => {
  it('a run that finishes while live stands at its end', () => {
    for (const p of [RUNNING, paused, liveLine, pastLine]) assert.deepEqual(onFinished(p, end), atEnd);
  });
  it('a run that finishes while the past is shown keeps the view, the end its present', () => {
    assert.deepEqual(onFinished(pastTick, end), { ...pastTick, present: { kind: 'end', stop: end } });
    assert.deepEqual(onFinished(pastHit, end), { ...pastHit, present: { kind: 'end', stop: end } });
    assert.equal(onFinished(recording, end), recording);
    assert.equal(onFinished(atEnd, endStopAt(60)), atEnd);
  });

  it('a search landing in the past keeps the present', () => {
    assert.deepEqual(landedInPast(liveLine, 17, hitStop, true), pastHit);
    assert.deepEqual(landedInPast(pastTick, 17, hitStop, true), {
      kind: 'pastHit',
      tick: 17,
      stop: hitStop,
      present: pastTick.present,
    });
    assert.deepEqual(landedInPast(paused, 9, gotoStop, false), pastTick);
    assert.deepEqual(landedInPast(recording, 17, hitStop, true), openedRecording(17, 50, hitStop));
  });

  it('back to the present: running, the live stop held, or the end', () => {
    assert.deepEqual(backToPresent({ ...pastTick, present: { kind: 'running' } }), RUNNING);
    assert.deepEqual(backToPresent(pastTick), paused);
    assert.deepEqual(backToPresent(pastLine), liveLine);
    assert.deepEqual(backToPresent({ ...pastHit, present: { kind: 'end', stop: end } }), atEnd);
    assert.equal(backToPresent(recording), recording);
    assert.deepEqual(backToPresent(paused), paused);
  });

  it('a launch or restart starts over from running, whatever the last run showed', () => {
    for (const pos of [RUNNING, paused, liveLine, pastLine, pastTick, pastHit, atEnd, recording]) {
      const launched = onLaunched(pos);
      assert.deepEqual(launched, RUNNING, pos.kind);
      assert.equal(isPast(launched), false, pos.kind);
      assert.equal(presentStop(launched), null, pos.kind);
      assert.equal(stepsByLine(launched), false, pos.kind);
    }
  });
});

describe('debug position: queries', () => {
  it('isPast', () => {
    assert.deepEqual(
      [RUNNING, paused, liveLine, pastTick, pastLine, pastHit, atEnd, recording, openedRecording(50, 50, null)].map(
        isPast,
      ),
      [false, false, false, true, true, true, false, true, false],
    );
  });
  it('the present and its stop', () => {
    assert.equal(presentStop(pastTick), between);
    assert.equal(presentStop(pastLine), onLine);
    assert.equal(presentStop(pastHit), onLine);
    assert.equal(presentStop(atEnd), end);
    assert.equal(presentStop(RUNNING), null);
    assert.equal(presentOf(recording), null);
    assert.deepEqual(presentOf({ kind: 'pastLine', stop: null, live: null }), { kind: 'running' });
  });
  it('what can be done: forward, back, by line', () => {
    assert.equal(canStepForward(atEnd), false);
    assert.equal(canStepForward(openedRecording(50, 50, null)), false);
    assert.equal(canStepForward(recording), true);
    assert.equal(canStepForward(pastTick), true);
    assert.equal(canStepBack(openedRecording(1, 50, null)), false);
    assert.equal(canStepBack(pastTick), true);
    assert.equal(canStepBack(liveStop({ ...onLine, tick: 1 })), true);
    assert.equal(canStepBack(liveStop({ ...between, tick: 1 })), false);
    assert.equal(canStepBack(RUNNING), true);
    assert.deepEqual([liveLine, pastLine, pastHit, pastTick, paused, { ...pastHit, stop: null }].map(stepsByLine), [
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
  it('forward steps from mid-tick count from the tick before', () => {
    assert.equal(forwardFrom(pastHit, 17), 16);
    assert.equal(forwardFrom(pastLine, 40), 39);
    assert.equal(forwardFrom(pastTick, 9), 9);
    assert.equal(shownStop(RUNNING), null);
    assert.equal(shownStop(pastTick), gotoStop);
  });
});

describe('debug position: a move under way', () => {
  it('a move keeps the position it left, shows no stop meanwhile (a search keeps the one shown), and a refusal goes back to it', () => {
    const seeking = startMove(paused, { waits: 'seek', reason: 'step', threadId: 3 });
    assert.equal(seeking.kind, 'moving');
    assert.equal(shownStop(seeking), null);
    assert.deepEqual(presentOf(seeking), { kind: 'stopped', stop: between });
    assert.equal(refused(seeking), paused);
    const searching = startMove(pastHit, { waits: 'search' });
    assert.equal(shownStop(searching), hitStop);
    assert.equal(viewedTickOf(searching), 17);
    // A line move that must seek after all still leaves from where it started.
    const retargeted = retarget(startMove(pastHit, { waits: 'hitLine' }), {
      waits: 'seek',
      reason: 'step',
      threadId: 4,
    });
    assert.equal(refused(retargeted), pastHit);
    assert.equal(
      startMove(seeking, { waits: 'search' }).kind === 'moving' && refused(startMove(seeking, { waits: 'search' })),
      paused,
    );
  });
  it('answersMove: each move is answered by its own event only', () => {
    const seek = startMove(pastTick, { waits: 'seek', reason: 'step', threadId: 3 });
    assert.equal(answersMove(seek, { event: 'viewedTick', tick: 8 }), true);
    assert.equal(answersMove(seek, { event: 'paused', pastLine: false }), false);
    const search = startMove(pastTick, { waits: 'search' });
    assert.equal(answersMove(search, { event: 'viewedTick', tick: 5 }), true);
    assert.equal(answersMove(search, { event: 'viewedTick', tick: null }), false);
    const toLive = startMove(pastLine, { waits: 'liveStop', live: onLine });
    assert.equal(answersMove(toLive, { event: 'paused', pastLine: false }), true);
    assert.equal(answersMove(toLive, { event: 'paused', pastLine: true }), false);
    assert.equal(answersMove(toLive, { event: 'viewedTick', tick: null }), false);
    const line = startMove(liveLine, { waits: 'pastLine' });
    assert.equal(answersMove(line, { event: 'paused', pastLine: true }), true);
    assert.equal(answersMove(line, { event: 'viewedTick', tick: 40 }), false);
    assert.equal(
      answersMove(pastTick, { event: 'viewedTick', tick: 8 }),
      false,
      'no move under way: nothing is its answer',
    );
  });
  it('answersMove by moment id: an event naming another move never answers this one; one naming none is judged by its kind', () => {
    const seek = startMove(pastTick, { waits: 'seek', reason: 'step', threadId: 3 }, 'debug 1:4');
    assert.equal(answersMove(seek, { event: 'viewedTick', tick: 8, moment: 'debug 1:4' }), true);
    assert.equal(
      answersMove(seek, { event: 'viewedTick', tick: 8, moment: 'debug 2:4' }),
      false,
      "another session's seek to the same tick",
    );
    assert.equal(answersMove(seek, { event: 'viewedTick', tick: 8, moment: 'webview x:1' }), false, "the panel's seek");
    assert.equal(answersMove(seek, { event: 'viewedTick', tick: 8 }), true, 'a host that does not echo ids: by kind');
    assert.equal(
      answersMove(seek, { event: 'paused', pastLine: false, moment: 'debug 1:4' }),
      false,
      'its own id on an event of another kind',
    );
    const line = startMove(liveLine, { waits: 'pastLine' }, 'debug 1:5');
    assert.equal(answersMove(line, { event: 'paused', pastLine: true, moment: 'debug 2:1' }), false);
    assert.equal(answersMove(line, { event: 'paused', pastLine: true, moment: 'debug 1:5' }), true);
    // A line move that must seek after all goes on under a new id: the old one no longer answers it.
    const seekAfter = retarget(line, { waits: 'seek', reason: 'step', threadId: 2 }, 'debug 1:6');
    assert.equal(answersMove(seekAfter, { event: 'viewedTick', tick: 3, moment: 'debug 1:5' }), false);
    assert.equal(answersMove(seekAfter, { event: 'viewedTick', tick: 3, moment: 'debug 1:6' }), true);
    const anonymous = startMove(pastTick, { waits: 'seek', reason: 'step', threadId: 3 });
    assert.equal(
      answersMove(anonymous, { event: 'viewedTick', tick: 8, moment: 'debug 1:4' }),
      false,
      'a move without an id is answered by no named event',
    );
  });
  it('another view moves the views during a move: the move goes on from there (aside)', () => {
    const seek = startMove(paused, { waits: 'seek', reason: 'step', threadId: 3 }, 'debug 1:1');
    const other = onViewedTick(settled(seek), 4, 10, false, null);
    const next = aside(seek, false, other);
    assert.equal(next.kind, 'moving');
    assert.equal(next.kind === 'moving' && next.moment, 'debug 1:1');
    assert.deepEqual(settled(next), other);
    assert.deepEqual(aside(seek, true, other), other, 'its own answer lands it');
    assert.deepEqual(aside(paused, false, other), other, 'no move under way: the event lands');
  });
  it('the host goes on during a move: the move keeps going, from where the host now stands', () => {
    const seek = startMove(pastTick, { waits: 'seek', reason: 'step', threadId: 3 });
    const afterContinue = onContinued(seek);
    assert.equal(afterContinue.kind, 'moving');
    assert.deepEqual(presentOf(afterContinue), { kind: 'running' });
    // From a live line stop the host's own continue is the move's doing: the live stop is still the present.
    const fromLive = startMove(liveLine, { waits: 'pastLine' });
    assert.equal(onContinued(fromLive), fromLive);
    // The run finishing during a move: the end is the present it comes back to.
    assert.deepEqual(presentOf(onFinished(seek, end)), { kind: 'end', stop: end });
    // A viewedTick that is not the move's answer lands as any view's move does.
    assert.equal(onViewedTick(seek, 5, 50, false, gotoStop).kind, 'pastTick');
  });
  it("the end shown: a finished run's end, or an opened recording's last tick", () => {
    assert.deepEqual(endShown(pastTick, end), { kind: 'end', stop: end });
    assert.deepEqual(endShown(openedRecording(3, 50, null), end), {
      kind: 'recording',
      tick: 50,
      ticks: 50,
      stop: end,
    });
  });
});
