// Run.lastPause is the live run's pause only, on the real runtime host: a debugger stopped on a line steps
// back (a past line's `paused`, pastLine), and a panel that starts following the run then must show the live
// stop as the present, not the past line (its tick, its task, its words), as a panel that followed all along.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { HostEvents } from '../../../protocol/host-protocol';
import { RunRegistry } from '../../../extension/runs/run-registry';
import { RunSession } from '../../../extension/run-session';
import { lineOf } from '../../source-line';
import { until } from '../wait-until';
import { distBundle } from '../../dist-bundles';

const HOST = distBundle('runtime-host.js');

describe('Run.lastPause is the live pause', { timeout: 120_000 }, () => {
  let runs: RunRegistry;
  let late: RunSession | null = null;

  before(() => {
    runs = new RunRegistry({ hostScript: HOST, clientName: 'test' });
  });
  after(async () => {
    late?.dispose();
    await runs.dispose();
  });

  it('a past line shown keeps the live stop as the pause a late view takes', async () => {
    const run = await runs.start();
    const detach = run.attach('debugger');
    try {
      await run.launch(
        { kind: 'demo', pages: 12, latency: 'instant' },
        { maxTasks: 2, stopOnEntry: true, record: true },
        'debugger',
      );
      const crawler = join(__dirname, '..', '..', '..', 'runtime', 'crawler', 'crawler.ts');
      const decl = lineOf(crawler, 'let response: ClientResponse | null = null;');
      await run.endpoint.request('setBreakpoints', { file: crawler, breakpoints: [{ file: crawler, line: decl }] });
      let live: HostEvents['paused'] | null = null;
      const offLive = run.endpoint.on('paused', (b) => {
        if (b.pastLine !== true && b.line !== undefined) live = b;
      });
      for (let i = 0; i < 2; i++) {
        const before = live;
        await run.endpoint.request('continue', {});
        await until('the next stop on the line', () => live !== null && live !== before, 30_000);
      }
      offLive();
      const stop: HostEvents['paused'] = live!;
      assert.equal(run.lastPause, stop, 'at the live stop, its pause');
      // Step back: the host tells a past line's `paused`.
      let past: HostEvents['paused'] | null = null;
      const offPast = run.endpoint.on('paused', (b) => {
        if (b.pastLine === true) past = b;
      });
      await run.endpoint.request('lineStepBack', {});
      await until('the past line told', () => past !== null, 30_000);
      offPast();
      assert.equal(run.phase, 'paused');
      assert.equal(run.lastPause, stop, "a past line's pause is not the run's");
      // A panel that starts following the run now shows the live stop as the present's pause.
      late = new RunSession(runs, { snapshotRate: () => 20 });
      late.show(run);
      await until('the late panel paused', () => late!.status.phase === 'paused');
      assert.deepEqual(
        [late.status.detail, late.status.tick, late.status.pausedTaskId],
        [stop.description, stop.tick, stop.taskId],
        'the late panel shows the live stop as the present',
      );
    } finally {
      detach();
      await late?.stop();
    }
  });
});
