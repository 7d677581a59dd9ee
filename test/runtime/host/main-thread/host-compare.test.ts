// The host's `compare` method (what "Coroscope: Compare Approaches…" asks): every approach of
// runtime/samples/compare.ts measured on a small demo site, in the article's order, with
// memory per concurrent fetch where it applies; bad parameters are refused. Run against the
// TypeScript source and against the bundle the extension ships (its worker threads and child
// processes are started from there).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RemoteError } from '../../../../protocol/rpc';
import { APPROACHES } from '../../../../runtime/samples/index';
import { forkHost, type HostClient } from '../host-client';
import { distBundle } from '../../../dist-bundles';

const BUNDLE = distBundle('runtime-host.js');

for (const from of ['source', 'bundle'] as const) {
  describe(`host compare (${from})`, {}, () => {
    let host: HostClient;
    before(() => {
      host = from === 'bundle' ? forkHost({ bundle: BUNDLE }) : forkHost();
    });
    after(async () => {
      await host.close();
    });

    test('measures every approach, in order, with memory per fetch for the pools and the loops', async () => {
      const { rows } = await host.rpc.request('compare', { pages: 4, latencyMs: 20 });
      assert.deepEqual(
        rows.map((r) => r.approach),
        [...APPROACHES],
      );
      for (const r of rows) {
        assert.equal(r.pages, 4, r.approach);
        assert.equal(r.failures, 0, r.approach);
        assert.ok(r.seconds > 0 && Number.isFinite(r.seconds), `${r.approach}: ${r.seconds}`);
      }
      for (const a of ['processes', 'threads', 'callbacks', 'generators', 'runtime']) {
        const m = rows.find((r) => r.approach === a)?.memoryPerFetchBytes;
        assert.ok(m !== undefined && m > 0, `${a}: memory per fetch ${m}`);
      }
    });

    test('refuses pages and latencies out of bounds', async () => {
      for (const params of [
        { pages: 0, latencyMs: 10 },
        { pages: 1.5, latencyMs: 10 },
        { pages: 100000, latencyMs: 10 },
        { pages: 3, latencyMs: -1 },
      ]) {
        await assert.rejects(
          host.rpc.request('compare', params),
          (e: unknown) => e instanceof RemoteError && e.code === 'badRequest',
          JSON.stringify(params),
        );
      }
    });
  });
}
