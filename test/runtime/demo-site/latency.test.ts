// Tests of runtime/demo-site/latency.ts: the `realistic` demo site answers late with pages of
// real size but holds exactly what the `instant` one holds (the same URLs and outcomes, so a
// crawl's report ends in the same counts); against real loopback servers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import {
  REALISTIC_TRANSPORT,
  SiteModel,
  demoSiteOptions,
  isDemoLatency,
  startDemoSite,
} from '../../../runtime/demo-site';

function get(url: string): Promise<{ ms: number; bytes: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ ms: performance.now() - t0, bytes }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

test('realistic: every response 100-800 ms late, content pages of 24 KiB; instant: at once, small pages', async () => {
  const realistic = await startDemoSite(demoSiteOptions('realistic', 20));
  const instant = await startDemoSite(demoSiteOptions('instant', 20));
  try {
    const slow = await Promise.all([1, 2, 3, 4].map((n) => get(`${realistic.url}page/${n}/`)));
    for (const r of slow) {
      assert.ok(r.ms >= REALISTIC_TRANSPORT.latencyMs - 2, `a realistic response came after ${r.ms.toFixed(0)} ms`);
      // The site and this client share one process: on a loaded machine its timers and sockets
      // run late (a full suite saw 1109 ms), so the bound allows that much beyond 800 ms and
      // still catches a response held twice its longest latency.
      assert.ok(r.ms < 2 * (REALISTIC_TRANSPORT.latencyMs + REALISTIC_TRANSPORT.jitterMs), `${r.ms.toFixed(0)} ms`);
      assert.equal(r.bytes, 24 * 1024);
    }
    // At once: before a realistic response asked at the same moment (held latencyMs at least),
    // its peer in this run, not against a wall-clock bound a busy machine's own delays can pass.
    const arrived: string[] = [];
    const [fast, peer] = await Promise.all([
      get(`${instant.url}page/1/`).then((r) => (arrived.push('instant'), r)),
      get(`${realistic.url}page/1/`).then((r) => (arrived.push('realistic'), r)),
    ]);
    assert.deepEqual(
      arrived,
      ['instant', 'realistic'],
      `an instant response took ${fast.ms.toFixed(0)} ms, a realistic one ${peer.ms.toFixed(0)} ms`,
    );
    assert.ok(fast.bytes < 4096);
  } finally {
    await realistic.close();
    await instant.close();
  }
});

test('both hold the same site: the same URLs with the same outcomes', () => {
  const origin = 'http://127.0.0.1:1/';
  const a = new SiteModel(demoSiteOptions('realistic')).expectedOutcomes(origin);
  const b = new SiteModel(demoSiteOptions('instant')).expectedOutcomes(origin);
  assert.deepEqual([...a], [...b]);
  assert.equal(a.size, 373);
});

test('isDemoLatency names the two', () => {
  assert.ok(isDemoLatency('realistic') && isDemoLatency('instant'));
  assert.ok(!isDemoLatency('slow') && !isDemoLatency(undefined));
});
