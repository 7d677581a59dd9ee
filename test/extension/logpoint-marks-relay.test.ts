import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Emitter } from '../../extension/emitter';
import { LogpointMarksRelay } from '../../extension/logpoint-marks-relay';
import type { LogpointMark } from '../../protocol/webview-protocol';

/** The part of a RunSession the relay reads: the run shown, its resets, its seeks (kept). */
class Shown {
  run: object | null = null;
  readonly onReset = new Emitter<void>();
  readonly seeks: number[] = [];
  async seek(tick: number): Promise<void> {
    this.seeks.push(tick);
  }
}

/** A debug session that listed hits: the hits it was asked to go to; `ended` once it has. */
class Session {
  readonly asked: number[] = [];
  ended = false;
  readonly port = {
    goTo: async (hit: number): Promise<void> => {
      if (this.ended) throw new Error('the debug session has ended');
      this.asked.push(hit);
    },
    ended: (): boolean => this.ended,
  };
}

function body(...hits: Array<Partial<LogpointMark> & { hit: number }>): unknown {
  return {
    hits: hits.map((h) => ({
      logpoint: 0,
      ordinal: 0,
      tick: 5,
      taskId: 2,
      task: 'worker',
      time: 1,
      message: 'm',
      file: '/a.ts',
      line: 3,
      ...h,
    })),
  };
}

describe('LogpointMarksRelay', () => {
  it('passes the hits of the run shown to the panel; another run’s are ignored', () => {
    const shown = new Shown();
    const runA = {};
    const runB = {};
    shown.run = runA;
    const relay = new LogpointMarksRelay(shown);
    const heard: number[][] = [];
    relay.onMarks.on((m) => heard.push(m.map((x) => x.hit)));
    relay.received(runB, body({ hit: 0 }), new Session().port);
    relay.received(null, body({ hit: 0 }), new Session().port);
    assert.deepEqual(heard, []);
    assert.deepEqual(relay.current(), []);
    relay.received(runA, body({ hit: 0 }, { hit: 1, tick: 9 }, { hit: -3 }), new Session().port);
    assert.deepEqual(heard, [[0, 1]]);
    assert.deepEqual(
      relay.current().map((m) => [m.hit, m.tick]),
      [
        [0, 5],
        [1, 9],
      ],
    );
    // The next list replaces them (a logpoint removed: its hits are not in it).
    relay.received(runA, body({ hit: 1, tick: 9 }), new Session().port);
    assert.deepEqual(heard.at(-1), [1]);
    relay.received(runA, { hits: [] }, new Session().port);
    assert.deepEqual(heard.at(-1), []);
    assert.deepEqual(relay.current(), []);
    relay.received(runA, { nothing: true }, new Session().port);
    assert.equal(heard.length, 3, 'a malformed body changes nothing');
  });

  it('forgets them on a new run shown', () => {
    const shown = new Shown();
    const run = {};
    shown.run = run;
    const relay = new LogpointMarksRelay(shown);
    const heard: number[] = [];
    relay.onMarks.on((m) => heard.push(m.length));
    relay.received(run, body({ hit: 0 }), new Session().port);
    shown.onReset.fire();
    assert.deepEqual(heard, [1, 0]);
    assert.deepEqual(relay.current(), []);
    // Another run shown without a reset heard yet: the marks of the old one are not the panel's.
    relay.received(run, body({ hit: 0 }), new Session().port);
    shown.run = {};
    assert.deepEqual(relay.current(), []);
  });

  it('goes to a hit through the session that listed it, and refuses one not listed or of another run', async () => {
    const shown = new Shown();
    const run = {};
    shown.run = run;
    const relay = new LogpointMarksRelay(shown);
    await assert.rejects(relay.goToHit(0), /no debug session/);
    const session = new Session();
    relay.received(run, body({ hit: 4 }), session.port);
    await relay.goToHit(4);
    assert.deepEqual(session.asked, [4]);
    await assert.rejects(relay.goToHit(5), /not listed/);
    shown.run = {};
    await assert.rejects(relay.goToHit(4), /no debug session/);
    assert.deepEqual(session.asked, [4]);
    assert.deepEqual(shown.seeks, []);
  });

  it('keeps the marks once the session that listed them ended; a mark then shows its tick in the panel', async () => {
    const shown = new Shown();
    const run = {};
    shown.run = run;
    const relay = new LogpointMarksRelay(shown);
    const heard: number[] = [];
    relay.onMarks.on((m) => heard.push(m.length));
    const session = new Session();
    relay.received(run, body({ hit: 0, tick: 7 }, { hit: 1, tick: 12 }), session.port);
    session.ended = true;
    assert.deepEqual(
      relay.current().map((m) => m.tick),
      [7, 12],
    );
    await relay.goToHit(1);
    assert.deepEqual(shown.seeks, [12], "the panel at the hit's tick");
    assert.deepEqual(session.asked, [], 'nothing asked of the ended session');
    assert.deepEqual(heard, [2], 'no list went out: the marks stayed');
    // A new run shown forgets them, as before.
    shown.onReset.fire();
    await assert.rejects(relay.goToHit(1), /no debug session/);
  });
});
