// Moment ids on the host (protocol/moment-ids.ts): two views of one run seek at once over
// the run's one endpoint (as the panel and a debug session do); the ordered event log shows
// every `viewedTick` carrying the id of the seek that made that moment (its replay landing
// too), each answer its own id, and each view, reading the log by its ids, recognises only
// its own answers. A moment nobody's seek made (an anonymous seek) carries none.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ViewedMoment } from '../../../../protocol/host-protocol';
import { MomentIds } from '../../../../protocol/moment-ids';
import { forkHost, type HostClient } from '../host-client';

describe('moment ids of seeks', () => {
  let host: HostClient;
  let ticks = 0;

  before(async () => {
    host = forkHost();
    const from = host.events.length;
    const launched = await host.rpc.request('launch', {
      target: { kind: 'demo', pages: 16, latency: 'instant' },
      options: { record: true, maxTasks: 3 },
    });
    await host.waitFor('finished', (f) => f.runId === launched.runId, 30000, from);
    ticks = (await host.rpc.request('timeline', {})).ticks;
    assert.ok(ticks > 20, `ticks ${ticks}`);
  });
  after(async () => {
    await host.close();
  });

  test('two views seek at once: each answer and each viewedTick it causes carry its id, in order; each view recognises only its own', async () => {
    const panel = new MomentIds('panel');
    const debug = new MomentIds('debug 1');
    const a = Math.floor(ticks / 3);
    const b = Math.floor((2 * ticks) / 3);
    const from = host.events.length;
    const panelId = panel.next();
    const debugId = debug.next();
    const [pa, da] = await Promise.all([
      host.rpc.request('seekTick', { tick: a, moment: panelId }),
      host.rpc.request('seekTick', { tick: b, moment: debugId }),
    ]);
    assert.deepEqual([pa.tick, pa.moment], [a, panelId]);
    assert.deepEqual([da.tick, da.moment], [b, debugId]);
    // The debugger's tick lands (the panel's replay is dropped or taken on: never told as landed).
    await host.waitFor('viewedTick', (v) => v.tick === b && v.replayed === true, 20000, from);
    const log = host.events
      .slice(from)
      .filter((e) => e.event === 'viewedTick')
      .map((e) => e.body as ViewedMoment);
    // In order: the panel's moment (its landing too, had a replay been parked at its tick), then the
    // debugger's and its landing; every one names its seek.
    const order = log.map((v) => [v.tick, v.replayed, v.moment]);
    assert.deepEqual(order[0], [a, false, panelId], JSON.stringify(order));
    assert.deepEqual(
      order.slice(-2),
      [
        [b, false, debugId],
        [b, true, debugId],
      ],
      JSON.stringify(order),
    );
    assert.ok(order.length === 3 || (order.length === 4 && order[1]![2] === panelId), JSON.stringify(order));
    assert.ok(
      log.every((v) => panel.isOwn(v.moment) !== debug.isOwn(v.moment)),
      "each event is exactly one view's",
    );
    assert.ok(log.filter((v) => panel.isOwn(v.moment)).every((v) => v.tick === a));
    assert.deepEqual(
      log.filter((v) => debug.isOwn(v.moment)).map((v) => v.tick),
      [b, b],
    );
  });

  test('a seek that waits for its replay answers its own landing; an anonymous seek makes a moment with no id', async () => {
    const panel = new MomentIds('panel');
    const id = panel.next();
    const from = host.events.length;
    const landed = await host.rpc.request('seekTick', { tick: 5, replayed: true, moment: id });
    assert.deepEqual([landed.tick, landed.replayed, landed.moment], [5, true, id]);
    const anonymous = await host.rpc.request('seekTick', { tick: null });
    assert.equal(anonymous.moment, undefined);
    const log = host.events
      .slice(from)
      .filter((e) => e.event === 'viewedTick')
      .map((e) => e.body as ViewedMoment);
    assert.ok(log.length >= 2);
    for (const v of log) assert.equal(v.moment, v.tick === 5 ? id : undefined, JSON.stringify(v));
  });

  test('a moment id is narrowed: empty or too long is refused, naming the field', async () => {
    await assert.rejects(
      host.rpc.request('seekTick', { tick: 3, moment: '' }),
      /seekTick: params\.moment must be an id/,
    );
    await assert.rejects(
      host.rpc.request('seekTick', { tick: 3, moment: 'x'.repeat(201) }),
      /seekTick: params\.moment must be an id/,
    );
  });
});
