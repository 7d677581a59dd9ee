// The scan replay host (runtime/host/worker/replay-hosts.ts scanWith, prepareScan): while a finished run's hit
// replay host shows a logpoint's hit, a logpoint listed is scanned by a replay host of its own. That one is
// started as soon as the hit is shown (ahead of the list), kept warm for the next lists (the same process,
// the same hits as the hit replay host listed), and ended with the run (a new run, the host gone).
// Runs against the bundle.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Breakpoint } from '../../../../protocol/host-protocol';
import { forkHost, landedOnLine, ROOT, type HostClient } from '../host-client';
import { lineOf } from '../../../source-line';
import { distBundle } from '../../../dist-bundles';

const BUNDLE = distBundle('runtime-host.js');
const CRAWLER = join(ROOT, 'runtime', 'crawler', 'crawler.ts');

/** The processes the host has started (its replay hosts). */
function childrenOf(pid: number): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['--ppid', String(pid), '-o', 'pid='], { encoding: 'utf8' });
  } catch {
    // ps exits 1 when there are none.
  }
  return out
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((n) => n > 0)
    .sort((a, b) => a - b);
}

/** The host's children once there are `n` of them (within `ms`). */
async function childrenWithin(host: HostClient, n: number, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  while (childrenOf(host.child.pid!).length !== n && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  return childrenOf(host.child.pid!);
}

describe('the scan replay host beside a hit shown (bundle)', { timeout: 180_000 }, () => {
  let host: HostClient;
  before(() => {
    host = forkHost({ bundle: BUNDLE, pipe: true });
  });
  after(async () => {
    await host.close();
  });

  test('started when a hit is shown, kept for the next lists, ended with the run', async () => {
    await host.rpc.request('launch', {
      target: { kind: 'demo', pages: 30, latency: 'instant' },
      options: { maxTasks: 2, record: true },
    });
    await host.waitFor('finished', () => true, 60_000);
    const logpoint: Breakpoint = {
      file: CRAWLER,
      line: lineOf(CRAWLER, 'const { stat, links } = parsed;'),
      logMessage: '{url}',
    };
    const past = await host.rpc.request('pastLogpointHits', { logpoints: [logpoint] });
    const hitHost = await childrenWithin(host, 1, 10_000);
    assert.equal(hitHost.length, 1, 'the hit replay host lists the first time');
    const h = past.hits[2]!;
    const landing = landedOnLine(
      await host.rpc.request('pastBreakpointHit', {
        direction: 'back',
        tick: past.ticks,
        logpointHit: { logpoint, tick: h.tick, ordinal: h.ordinal },
      }),
    );
    assert.equal(landing.tick, h.tick);
    // Ahead of need: before any list asked while the hit is shown.
    const both = await childrenWithin(host, 2, 30_000);
    assert.equal(both.length, 2, 'a scan replay host started once the hit is shown');
    const other: Breakpoint = { ...logpoint, logMessage: '{url} at depth {depth}' };
    const listed = await host.rpc.request('pastLogpointHits', { logpoints: [other] });
    assert.deepEqual(
      listed.hits.map((x) => [x.tick, x.taskId, x.message.split(' ')[0]]),
      past.hits.map((x) => [x.tick, x.taskId, x.message]),
    );
    assert.deepEqual(await host.rpc.request('pastLogpointHits', { logpoints: [logpoint] }), past);
    assert.deepEqual(childrenOf(host.child.pid!), both, 'the same two replay hosts: the scan one kept');
    // The hit stays shown.
    assert.equal((await host.rpc.request('lineEvaluate', { expression: 'url' })).value, JSON.stringify(h.message));
    // A new run: both replay hosts go.
    await host.rpc.request('launch', {
      target: { kind: 'demo', pages: 5, latency: 'instant' },
      options: { maxTasks: 2 },
    });
    await host.waitFor('finished', () => true, 60_000);
    assert.deepEqual(await childrenWithin(host, 0, 10_000), []);
  });
});
