// Looking never changes the program (issue 25, item 4), at the issue's own scale: a realistic
// demo crawl (the site answering 100-800 ms late, as over a network) in the runtime host the
// extension forks, paused from the panel for 60 s of wall clock while its workers wait on their
// requests, then continued. The crawl keeps its default timeouts (read 15 s, total 30 s), which
// such a pause exceeded four times over before the loop's clock stood still during holds; with
// one try per URL (maxTries 1) a request that timed out would be a failure in the report, so
// "every URL fetched on its first try" is the report itself. Asserted: the paused crawl's
// report equals an unpaused crawl's (but for the site's port, its time and which page first
// found a link), no request timed out, and the crawl's elapsed time leaves the pause out.
// host.test.ts has the same check scaled down (a 5 s pause, 3 s timeouts) for quick runs.
// The demo site is small (40 pages) so the two crawls and the pause take about 70 s.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PROTOCOL_VERSION, type HostEvents } from '../../../../protocol/host-protocol';
import { forkHost } from '../host-client';
import { distBundle } from '../../../dist-bundles';

const HOST_BUNDLE = distBundle('runtime-host.js');
const PAUSE_MS = 60_000;

/**
 * The same crawl either way but for its site's port, its time and the order pages were crawled in (which page
 * first found a link: its "new" count).
 */
function comparable(report: string): string {
  return report
    .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'SITE')
    .replace(/; \d+\/(\d+) new urls/g, '; $1 urls')
    .replace(/^Finished (\d+) urls in .*$/m, 'Finished $1 urls');
}

test('a realistic demo crawl paused 60 s and continued: the report of an unpaused crawl, every URL fetched on its first try', {
  timeout: 150_000,
}, async (ctx) => {
  const host = forkHost({ bundle: HOST_BUNDLE });
  try {
    await host.rpc.request('hello', { client: 'test', protocolVersion: PROTOCOL_VERSION });
    const crawl = async (
      pauseMs: number,
    ): Promise<{ report: string; inFlightAtPause: number; elapsed: number; wall: number }> => {
      const from = host.events.length;
      const t0 = performance.now();
      const run = await host.rpc.request('launch', {
        target: { kind: 'demo', pages: 40, latency: 'realistic' },
        options: { maxTasks: 10, maxTries: 1 },
      });
      let inFlightAtPause = 0;
      if (pauseMs > 0) {
        // Paused once the workers are fetching pages (not while the crawl reads robots.txt).
        for (
          let polls = 0;
          polls < 400 && ((await host.rpc.request('snapshot', {})).progress?.inFlight ?? 0) < 5;
          polls++
        )
          await new Promise((r) => setTimeout(r, 25));
        await host.rpc.request('pause', {});
        inFlightAtPause = (await host.rpc.request('snapshot', {})).progress?.inFlight ?? 0;
        await new Promise((r) => setTimeout(r, pauseMs));
        await host.rpc.request('continue', {});
      }
      const finished = await host.waitFor('finished', (f) => f.runId === run.runId, 60_000, from);
      assert.equal(finished.ok, true, finished.summary);
      const wall = (performance.now() - t0) / 1000;
      const out = host.events
        .slice(from)
        .filter((e) => e.event === 'output' && (e.body as HostEvents['output']).category === 'stdout')
        .map((e) => (e.body as HostEvents['output']).text)
        .join('');
      const report = out.slice(out.indexOf('*** Report ***'));
      const elapsed = Number(/^Finished \d+ urls in ([\d.]+) secs/m.exec(report)?.[1]);
      return { report, inFlightAtPause, elapsed, wall };
    };
    const unpaused = await crawl(0);
    const paused = await crawl(PAUSE_MS);
    assert.match(unpaused.report, /^Finished [1-9]\d+ urls/m);
    assert.ok(
      paused.inFlightAtPause >= 5,
      `requests were in flight when the crawl was paused (${paused.inFlightAtPause})`,
    );
    assert.deepEqual(
      paused.report.split('\n').filter((l) => /Timeout|timed out|tries/.test(l)),
      [],
      'no request timed out or was tried again',
    );
    assert.equal(comparable(paused.report), comparable(unpaused.report));
    assert.ok(
      paused.elapsed < paused.wall - PAUSE_MS / 1000 + 0.5,
      `the crawl's ${paused.elapsed} s leave out the ${PAUSE_MS / 1000} s pause (${paused.wall.toFixed(3)} s of wall time)`,
    );
    ctx.diagnostic(
      `unpaused: ${unpaused.elapsed} s; paused ${PAUSE_MS / 1000} s with ${paused.inFlightAtPause} requests in flight: ${paused.elapsed} s of crawl in ${paused.wall.toFixed(1)} s of wall time, the same report`,
    );
  } finally {
    await host.close();
  }
});
