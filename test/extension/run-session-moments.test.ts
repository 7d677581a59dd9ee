// RunSession and moment ids (protocol/moment-ids.ts), on the real runtime host: the panel and
// a debug session seek the same run at once; the ordered log of what the session heard
// shows each moment once, the status naming whose request made it, and the panel knowing its
// own answer by id (never counting it twice, never taking another view's for its own). At a
// line stop the debugger holds, the host answers a seek before telling it (the line stop's
// worker): before moment ids the panel counted its own seek as two moments.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RunRegistry } from '../../extension/runs/run-registry';
import { RunSession } from '../../extension/run-session';
import { MomentIds } from '../../protocol/moment-ids';
import type { ViewedMoment } from '../../protocol/host-protocol';
import { lineOf } from '../source-line';
import { until } from './wait-until';
import { distBundle } from '../dist-bundles';

const HOST = distBundle('runtime-host.js');

describe('RunSession knows its own moments by id', {
  timeout: 120_000,
}, () => {
  let runs: RunRegistry;
  let session: RunSession;

  before(() => {
    runs = new RunRegistry({ hostScript: HOST, clientName: 'test' });
    session = new RunSession(runs, { snapshotRate: () => 20 });
  });
  after(async () => {
    session.dispose();
    await runs.dispose();
  });

  it('the panel and a debug session seek at once: each moment told once, in order, each view knows its own', async () => {
    await session.launch({ kind: 'demo', pages: 20, latency: 'instant' }, { maxTasks: 3, record: true });
    await until('the end of the crawl', () => session.status.phase === 'finished', 60_000);
    const run = session.run!;
    const detach = run.attach('debug 1');
    try {
      const ticks = (await session.request('timeline', {})).ticks;
      const debugIds = new MomentIds('debug 1');
      const log: string[] = [];
      const heard: ViewedMoment[] = [];
      const offs = [
        session.onViewed.on((t) => log.push(`viewed ${t} by ${session.status.momentId}`)),
        run.endpoint.on('viewedTick', (v) => heard.push(v)),
      ];
      const a = Math.floor(ticks / 3);
      const b = Math.floor((2 * ticks) / 3);
      const debugId = debugIds.next();
      const [panelTick, debugAnswer] = await Promise.all([
        session.seek(a),
        run.endpoint.request('seekTick', { tick: b, moment: debugId }),
      ]);
      assert.equal(panelTick, a);
      assert.deepEqual([debugAnswer.tick, debugAnswer.moment], [b, debugId]);
      await until(
        "the debug session's moment landed",
        () =>
          session.status.viewedTick === b &&
          session.status.viewedReplaying === undefined &&
          session.status.momentId === debugId,
      );
      for (const off of offs) off();
      // The panel's seek, then the debugger's: each moment once, named by its own request.
      const panelId = heard[0]?.moment;
      assert.ok(panelId !== undefined && panelId !== debugId && !debugIds.isOwn(panelId), JSON.stringify(heard));
      assert.deepEqual(log, [`viewed ${a} by ${panelId}`, `viewed ${b} by ${debugId}`]);
      // The debug session recognises only its own (the tick b and its landing), never the panel's.
      assert.deepEqual(
        heard.filter((v) => debugIds.isOwn(v.moment)).map((v) => v.tick),
        [b, b],
      );
      assert.ok(heard.filter((v) => !debugIds.isOwn(v.moment)).every((v) => v.tick === a && v.moment === panelId));
      assert.equal(await session.seek(null), null);
      assert.equal(session.status.momentId?.startsWith('panel'), true);
    } finally {
      detach();
    }
  });

  it("at a line stop the debugger holds (answer before event): the panel's seek is one moment, another view's in the same tick another", async () => {
    const other = await runs.start();
    const detachOther = other.attach('debugger');
    try {
      await other.launch(
        { kind: 'demo', pages: 12, latency: 'instant' },
        { maxTasks: 2, stopOnEntry: true, record: true },
        'debugger',
      );
      session.show(other);
      const crawler = join(__dirname, '..', '..', 'runtime', 'crawler', 'crawler.ts');
      const decl = lineOf(crawler, 'let response: ClientResponse | null = null;');
      await other.endpoint.request('setBreakpoints', { file: crawler, breakpoints: [{ file: crawler, line: decl }] });
      let stop = other.lastPause;
      for (let i = 0; i < 3; i++) {
        const before = stop;
        await other.endpoint.request('continue', {});
        await until(
          'the next stop on the line',
          () => other.lastPause !== null && other.lastPause !== before && other.lastPause.line !== undefined,
          30_000,
        );
        stop = other.lastPause;
      }
      assert.ok(stop !== null && stop.tick > 3);
      await until(
        'the panel at the stop',
        () => session.status.phase === 'paused' && session.status.tick === stop!.tick,
      );
      const order: string[] = [];
      const offs = [
        session.onViewed.on((t) => order.push(`onViewed ${t}`)),
        other.endpoint.on('viewedTick', (v) => order.push(`event ${v.tick} ${v.moment ?? '-'}`)),
      ];
      const t = stop.tick - 2;
      assert.equal(await session.seek(t), t);
      const panelId = session.status.momentId;
      assert.ok(panelId !== undefined && panelId.startsWith('panel'));
      await until('the seek told to every view', () => order.includes(`event ${t} ${panelId}`), 10_000);
      await new Promise((r) => setTimeout(r, 200));
      // One seek, one moment: its answer and its event (after it, here) are the same moment.
      assert.deepEqual(order, [`onViewed ${t}`, `event ${t} ${panelId}`], JSON.stringify(order));
      assert.equal(session.status.viewedMoment, undefined);
      // The debug session seeks the same tick: another view's request, another moment in that tick.
      const debugId = new MomentIds('debugger').next();
      const answer = await other.endpoint.request('seekTick', { tick: t, moment: debugId });
      assert.equal(answer.moment, debugId);
      await until("the debugger's moment shown", () => session.status.momentId === debugId);
      assert.equal(session.status.viewedMoment, 1);
      assert.deepEqual(
        order.filter((o) => o.startsWith('onViewed')),
        [`onViewed ${t}`, `onViewed ${t}`],
      );
      for (const off of offs) off();
      // The other view hears the panel's way back too (its event may come after the panel's answer): heard
      // before its own moves are listened to.
      let otherAtPresent = false;
      const offPresent = other.endpoint.on('viewedTick', (v) => {
        if (v.tick === null) otherAtPresent = true;
      });
      await session.seek(null);
      await until('the panel back at the present', () => session.status.viewedTick === undefined);
      await until('the other view told the present', () => otherAtPresent);
      offPresent();
      // The debugger's line moves name themselves too: through the worker and the line replay host and back.
      const lineIds = new MomentIds('debugger lines');
      const back = lineIds.next();
      const heardLine: Array<{ event: string; moment?: string; pastLine?: boolean }> = [];
      const offLine = [
        other.endpoint.on('viewedTick', (v) => heardLine.push({ event: 'viewedTick', moment: v.moment })),
        other.endpoint.on('paused', (p) => heardLine.push({ event: 'paused', moment: p.moment, pastLine: p.pastLine })),
      ];
      const landing = await other.endpoint.request('lineStepBack', { moment: back });
      assert.equal((landing as { moment?: string }).moment, back, JSON.stringify(landing));
      await until('the past line told', () => heardLine.some((e) => e.event === 'paused' && e.pastLine === true));
      await until("the panel at the past line, named by the debugger's move", () => session.status.momentId === back);
      const over = lineIds.next();
      await other.endpoint.request('lineStep', { kind: 'over', moment: over });
      await until('the present again', () => heardLine.some((e) => e.event === 'paused' && e.moment === over));
      for (const off of offLine) off();
      assert.ok(
        heardLine.every((e) => lineIds.isOwn(e.moment)),
        JSON.stringify(heardLine),
      );
      await other.endpoint.request('setBreakpoints', { file: crawler, breakpoints: [] });
      await other.endpoint.request('continue', {});
      await until('the end of the crawl', () => session.status.phase === 'finished', 60_000);
    } finally {
      detachOther();
    }
  });
});
