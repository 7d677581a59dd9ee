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
import { heldFor, mockSiteClock } from './site-clock';

function get(url: string): Promise<{ bytes: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ bytes }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

test('realistic: every response 100-800 ms late by the site clock, pages of 24 KiB; instant: no delay, small pages', async (t) => {
  const realistic = await startDemoSite(demoSiteOptions('realistic', 20));
  const instant = await startDemoSite(demoSiteOptions('instant', 20));
  // The sites' delays run on a mocked setTimeout that only the test moves: a response's delay is
  // the milliseconds of that clock before the site answered, exact whatever the machine's load.
  mockSiteClock(t);
  try {
    const { latencyMs, jitterMs } = REALISTIC_TRANSPORT;
    for (const n of [1, 2, 3, 4]) {
      const r = await heldFor(t, realistic, () => get(`${realistic.url}page/${n}/`), 2 * (latencyMs + jitterMs));
      // A timer of a fractional delay fires at the next whole millisecond.
      assert.ok(r.ms >= latencyMs && r.ms <= latencyMs + jitterMs, `a realistic response was held ${r.ms} ms`);
      assert.equal(r.reply.bytes, 24 * 1024);
    }
    // Instant: answered with no timer at all (the mocked clock does not move: one held would hang).
    const fast = await heldFor(t, instant, () => get(`${instant.url}page/1/`), 0);
    assert.equal(fast.ms, 0);
    assert.ok(fast.reply.bytes < 4096);
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
