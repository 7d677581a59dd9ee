// PastView (runtime/host/worker/past-view.ts): the worker's moves through the past, each asked
// of the replay host showing it, and the position each leaves. The replay host here answers
// from a script (the landings a real one gives: line-replay-host.test.ts runs those), and
// records which request each move made: a move from a hit or an earlier step walks from the
// hit (pastHitLine), a move from a stop's line walks the stop (pastLine), a search says
// whether a line is shown, and a move that fails leaves the position as it stood then.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ArmedBreakpoint, BreakpointHitLanding, PastLineLanding } from '../../../../protocol/host-protocol';
import type { ReplayHostMethods } from '../../../../protocol/replay-host-protocol';
import { PastView, type PastHost, type PastMove } from '../../../../runtime/host/worker/past-view';
import { LIVE } from '../../../../runtime/host/worker/worker-position';

const AT = { file: '/src/app.ts', line: 7, column: 1 };
const stopLine: PastLineLanding = { landed: 'line', line: AT };
const earlierLine: PastLineLanding = { landed: 'line', line: AT, tick: 4, taskId: 2 };
const hit: BreakpointHitLanding = {
  landed: 'line',
  tick: 3,
  taskId: 2,
  line: AT,
  breakpoint: { file: AT.file, line: AT.line },
  description: 'hit',
};
const none: BreakpointHitLanding = { landed: 'none', breakpoints: [], from: 0, to: 9 };

/** A replay host answering from a script; `asked` lists the requests made. */
class ScriptedHost implements PastHost {
  runId = 5;
  ticks = 9;
  readonly asked: string[] = [];
  walks: Array<PastLineLanding | Error> = [];
  searches: BreakpointHitLanding[] = [];

  /** The moment id each request carried (undefined: none). */
  readonly ids: Array<string | undefined> = [];

  /** The breakpoints each walk's move was given (a forward step stops at their hits on its way). */
  readonly armed: string[][] = [];

  walkStop(
    move: PastMove,
    moment?: string,
    _lines = 1,
    breakpoints: readonly ArmedBreakpoint[] = [],
  ): Promise<PastLineLanding> {
    this.asked.push(`pastLine ${move}`);
    this.ids.push(moment);
    this.armed.push(breakpoints.map((b) => `${b.file}:${b.line}`));
    return this.next();
  }

  walkFromHit(move: PastMove, moment?: string, breakpoints: readonly ArmedBreakpoint[] = []): Promise<PastLineLanding> {
    this.asked.push(`pastHitLine ${move}`);
    this.ids.push(moment);
    this.armed.push(breakpoints.map((b) => `${b.file}:${b.line}`));
    return this.next();
  }

  searchHit(params: ReplayHostMethods['pastHit']['params']): Promise<BreakpointHitLanding> {
    this.asked.push(`pastHit shown=${String(params.shown)}`);
    return Promise.resolve(this.searches.shift()!);
  }

  async seekPast(tick: number, moment?: string): Promise<void> {
    this.asked.push(`seekTick ${tick}`);
    this.ids.push(moment);
  }

  private next(): Promise<PastLineLanding> {
    const w = this.walks.shift()!;
    return w instanceof Error ? Promise.reject(w) : Promise.resolve(w);
  }
}

const PARAMS: ReplayHostMethods['pastHit']['params'] = {
  direction: 'back',
  bound: { tick: 9 },
  floor: 0,
  ceiling: 9,
  breakpoints: [],
};

describe('PastView', () => {
  test("Step Back twice (into the step before), forward into the stop's step, forward to the present", async () => {
    const view = new PastView();
    const r = new ScriptedHost();
    r.walks = [stopLine, earlierLine, stopLine, { landed: 'present' }];
    await view.move(r, 'back');
    assert.deepEqual(view.position, { kind: 'pastLine' });
    await view.move(r, 'back');
    assert.deepEqual(view.position, { kind: 'stepBefore' });
    // From the step before: a walk from it (as from a hit), into the stop's own step.
    await view.move(r, 'over');
    assert.deepEqual(view.position, { kind: 'pastLine' });
    await view.move(r, 'over');
    assert.equal(view.position, LIVE);
    assert.deepEqual(r.asked, ['pastLine back', 'pastLine back', 'pastHitLine over', 'pastLine over']);
  });

  test("a forward step from the stop's line is given the breakpoints armed; a hit on its way is walked from", async () => {
    const view = new PastView();
    const r = new ScriptedHost();
    const armed: ArmedBreakpoint[] = [{ file: '/src/lib.ts', line: 3 }];
    // Back to a line of the stop's step, over a call whose breakpoint the replay host's search found in the same
    // tick (a landing with its tick and the breakpoint), then over from that hit.
    const onTheWay: PastLineLanding = { landed: 'line', line: AT, tick: 6, taskId: 2, breakpoint: 'hit in lib' };
    r.walks = [stopLine, onTheWay, stopLine];
    await view.move(r, 'back', undefined, 1, armed);
    await view.move(r, 'over', undefined, 1, armed);
    assert.deepEqual(view.position, { kind: 'stepBefore' });
    await view.move(r, 'over', undefined, 1, armed);
    assert.deepEqual(r.asked, ['pastLine back', 'pastLine over', 'pastHitLine over']);
    // Passed on whatever the move; LineReplayHost gives a move back none (no hit to stop at on its way).
    assert.deepEqual(r.armed, [['/src/lib.ts:3'], ['/src/lib.ts:3'], ['/src/lib.ts:3']]);
  });

  test('leaving with nothing shown asks nothing; a search from a line says it is shown, and finding none keeps it', async () => {
    const view = new PastView();
    const r = new ScriptedHost();
    assert.deepEqual(await view.move(r, 'leave'), { landed: 'present' });
    assert.deepEqual(r.asked, []);
    r.walks = [stopLine];
    await view.move(r, 'back');
    r.searches = [none, hit];
    await view.findHit(r, 'stop', PARAMS);
    assert.deepEqual(view.position, { kind: 'pastLine' });
    await view.findHit(r, 'stop', PARAMS);
    assert.deepEqual(view.position, { kind: 'pastHit', on: 'stop' });
    // A search on the other replay host does not see the stop's line as shown.
    r.searches = [none];
    await view.findHit(r, 'search', PARAMS);
    assert.deepEqual(r.asked, ['pastLine back', 'pastHit shown=true', 'pastHit shown=true', 'pastHit shown=false']);
  });

  test('a seek leaves the line shown first, then views the tick; back to the present leaves it', async () => {
    const view = new PastView();
    const r = new ScriptedHost();
    r.walks = [stopLine, { landed: 'present' }];
    await view.move(r, 'back');
    assert.deepEqual(await view.seek(r, 6), { runId: 5, tick: 6, ticks: 9 });
    assert.deepEqual(view.position, { kind: 'pastTick', tick: 6 });
    await view.seek(r, null);
    assert.equal(view.position, LIVE);
    assert.deepEqual(r.asked, ['pastLine back', 'pastLine leave', 'seekTick 6']);
  });

  test('a move that fails leaves the position as it stood: a line stays, a tick viewed was left first', async () => {
    const view = new PastView();
    const r = new ScriptedHost();
    r.walks = [stopLine, new Error('the replay host exited')];
    await view.move(r, 'back');
    await assert.rejects(view.move(r, 'back'), /exited/);
    assert.deepEqual(view.position, { kind: 'pastLine' });
    r.walks = [{ landed: 'present' }, new Error('gone')];
    await view.seek(r, 3);
    await assert.rejects(view.move(r, 'back'), /gone/);
    assert.equal(view.position, LIVE);
  });

  test('a replay host dropped takes only what it showed; a newer stop leaves a tick viewed', async () => {
    const view = new PastView();
    const r = new ScriptedHost();
    r.searches = [hit];
    await view.findHit(r, 'search', PARAMS);
    view.drop('stop');
    assert.deepEqual(view.position, { kind: 'pastHit', on: 'search' });
    view.drop('search');
    assert.equal(view.position, LIVE);
    r.walks = [{ landed: 'present' }];
    await view.seek(r, 2);
    view.leaveTick();
    assert.equal(view.position, LIVE);
  });

  test("a move's moment id rides each request it makes, and a seek's answer echoes it", async () => {
    const view = new PastView();
    const r = new ScriptedHost();
    r.walks = [stopLine, earlierLine, stopLine, stopLine];
    await view.move(r, 'back', 'debug 1:1');
    await view.move(r, 'back', 'debug 1:2');
    // From the step before: a walk from it, still named by its move.
    await view.move(r, 'over', 'debug 1:3');
    // A seek from a past line leaves it first (the walk's 'leave', named too), then replays the tick.
    const moment = await view.seek(r, 3, 'panel:4');
    assert.deepEqual(moment, { runId: 5, tick: 3, ticks: 9, moment: 'panel:4' });
    assert.deepEqual(r.asked, ['pastLine back', 'pastLine back', 'pastHitLine over', 'pastLine leave', 'seekTick 3']);
    assert.deepEqual(r.ids, ['debug 1:1', 'debug 1:2', 'debug 1:3', undefined, 'panel:4']);
    // Without an id: none on the answer.
    assert.equal('moment' in (await view.seek(r, null)), false);
  });
});
