// Tests of the worker's side of the client pipe (runtime/host/worker/client-views.ts) with a fake pipe that
// records every message in order and a fake replay host: answers and refusals in the protocol's shape;
// the live `paused` remembered and shown again with a move's moment id; the present told once after a
// past, ticks never fewer than the moment's; a landing told as the live step tells it (what it printed and
// said first, then the views' moment, then its `paused`, a breakpoint's hit as that hit), whoever runs it.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { HostEvents, PastLineLanding } from '../../../../protocol/host-protocol';
import type { StreamTransport } from '../../../../protocol/stream-transport';
import { ClientViews } from '../../../../runtime/host/worker/client-views';
import type { LineReplayHost } from '../../../../runtime/host/worker/line-replay-host';

function views(): { views: ClientViews; sent: unknown[] } {
  const sent: unknown[] = [];
  const client = { send: (m: unknown) => sent.push(m) } as unknown as StreamTransport;
  return { views: new ClientViews(client), sent };
}

/** A replay host of run 4 with `ticks` ticks, holding the live stop of task 2 in tick 9 (or none). */
function replay(ticks: number, liveStop = true): LineReplayHost {
  return {
    runId: 4,
    ticks,
    hasLiveStop: () => liveStop,
    stop: { tick: 9, taskId: 2 },
  } as unknown as LineReplayHost;
}

const LIVE: HostEvents['paused'] = {
  reason: 'breakpoint',
  tick: 9,
  taskId: 2,
  description: 'fetcher stopped on a line',
};
const LINE = { file: '/p.ts', line: 7, column: 3 };
const viewed = (tick: number | null, ticks: number, extra: object = {}) => ({
  kind: 'event',
  event: 'viewedTick',
  body: { runId: 4, tick, ticks, line: true, ...extra },
});

describe('answers, events and the live stop', () => {
  test('an answer and a refusal in the protocol shape; a paused event kept as the live stop', () => {
    const v = views();
    v.views.respond(1, { ok: 'yes' });
    v.views.refuse(2, new Error('not stopped'), 'badState');
    v.views.refuse(3, 'plain text');
    v.views.event('paused', LIVE);
    v.views.showLiveStop('m-7');
    assert.deepEqual(v.sent, [
      { kind: 'response', id: 1, ok: true, result: { ok: 'yes' } },
      { kind: 'response', id: 2, ok: false, error: { message: 'not stopped', code: 'badState' } },
      { kind: 'response', id: 3, ok: false, error: { message: 'plain text', code: 'failed' } },
      { kind: 'event', event: 'paused', body: LIVE },
      { kind: 'event', event: 'paused', body: { ...LIVE, moment: 'm-7' } },
    ]);
    assert.equal(v.views.livePaused, LIVE);
  });

  test('no live stop yet: nothing shown again', () => {
    const v = views();
    v.views.showLiveStop('m');
    assert.deepEqual(v.sent, []);
  });
});

describe("the views' moment", () => {
  test('the present is told once after a past; ticks never fewer than the moment; a stop with a tick only', () => {
    const v = views();
    const r = replay(5);
    const stop = { reason: 'step' as const, description: 'x' };
    v.views.tellViewed(r, null);
    v.views.tellViewed(r, 8, 'm-1', stop);
    v.views.tellViewed(r, 3);
    v.views.tellViewed(r, null, 'm-2', stop);
    v.views.tellViewed(r, null);
    assert.deepEqual(v.sent, [viewed(8, 8, { moment: 'm-1', stop }), viewed(3, 5), viewed(null, 5, { moment: 'm-2' })]);
    assert.equal(v.views.toldPast, null);
  });

  test('leaving the past: the present told when a past was, or shown; a seek told as it is', () => {
    const v = views();
    const r = replay(5);
    v.views.leavePast(r, false);
    v.views.leavePast(r, true);
    v.views.tellSeek({ runId: 4, tick: 2, ticks: 5 });
    assert.equal(v.views.toldPast, 2);
    v.views.leavePast(r, false);
    v.views.leavePast(null, true);
    assert.deepEqual(v.sent, [
      { kind: 'event', event: 'viewedTick', body: { runId: 4, tick: null, ticks: 5 } },
      { kind: 'event', event: 'viewedTick', body: { runId: 4, tick: 2, ticks: 5 } },
      { kind: 'event', event: 'viewedTick', body: { runId: 4, tick: null, ticks: 5 } },
    ]);
    assert.equal(v.views.toldPast, null);
  });
});

describe('a landing', () => {
  const out = (category: string, text: string) => ({ kind: 'event', event: 'output', body: { category, text } });

  test("a past line of the live stop's tick: printed and said first, the moment, then its paused", () => {
    const v = views();
    v.views.event('paused', LIVE);
    v.sent.length = 0;
    const landing: PastLineLanding = {
      landed: 'line',
      line: LINE,
      note: 'the line before',
      printed: ['n=1'],
      said: ['suspended\n'],
    };
    v.views.showLanding(landing, replay(12), 'm-3');
    assert.deepEqual(v.sent, [
      out('stdout', 'n=1\n'),
      out('log', 'suspended\n'),
      viewed(9, 12, { moment: 'm-3' }),
      {
        kind: 'event',
        event: 'paused',
        body: {
          reason: 'step',
          tick: 9,
          taskId: 2,
          description: 'fetcher on a past line at /p.ts:7 (tick 9, replayed): the line before',
          pastLine: true,
          moment: 'm-3',
          line: LINE,
        },
      },
    ]);
  });

  test("a breakpoint's hit on the way is said as that hit; no line: no position", () => {
    const v = views();
    v.views.showLanding({ landed: 'line', line: null, breakpoint: 'Breakpoint at p.ts:9' }, replay(12));
    assert.deepEqual(v.sent, [
      viewed(9, 12),
      {
        kind: 'event',
        event: 'paused',
        body: { reason: 'breakpoint', tick: 9, taskId: 2, description: 'Breakpoint at p.ts:9', pastLine: true },
      },
    ]);
  });

  test('a line in an earlier tick: the views follow to it, its task named, else by id, else the main thread', () => {
    const v = views();
    const r = replay(12);
    v.views.showLanding({ landed: 'line', line: LINE, tick: 6, taskId: 3, task: 'worker-2' }, r);
    v.views.showHitLanding({ landed: 'line', line: null, tick: 5, taskId: 3 });
    v.views.showHitLanding({ landed: 'line', line: null, tick: 4 });
    const paused = (tick: number, description: string, extra: object = {}) => ({
      kind: 'event',
      event: 'paused',
      body: { reason: 'step', tick, description, pastLine: true, ...extra },
    });
    assert.deepEqual(v.sent, [
      viewed(6, 12),
      paused(6, 'worker-2 on a past line at /p.ts:7 (tick 6, replayed)', { taskId: 3, line: LINE }),
      paused(5, 'task #3 on a past line (tick 5, replayed)', { taskId: 3 }),
      paused(4, 'the main thread on a past line (tick 4, replayed)'),
    ]);
  });

  test('the present again: the views back, the live stop shown; a suspension or no live stop: nothing', () => {
    const v = views();
    const r = replay(12);
    v.views.event('paused', LIVE);
    v.views.tellViewed(r, 3);
    v.sent.length = 0;
    v.views.showLanding({ landed: 'present', printed: ['done'] }, r, 'm-4');
    v.views.showLanding({ landed: 'suspension', why: 'no lines before' }, r);
    v.views.showLanding({ landed: 'line', line: LINE }, replay(12, false));
    assert.deepEqual(v.sent, [
      out('stdout', 'done\n'),
      viewed(null, 12, { moment: 'm-4' }),
      { kind: 'event', event: 'paused', body: { ...LIVE, moment: 'm-4' } },
    ]);
  });
});
