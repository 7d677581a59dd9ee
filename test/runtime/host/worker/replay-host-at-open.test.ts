// A recording file opened (runtime/host/worker/replay-hosts.ts openingRecording): its hit replay host is forked
// with the open, before any list or search, and reads the same file; the first logpoint list is that
// process's (no other forked) and lists what the finished run's own replay host listed; it ends with the
// recording (another opened, a launch) and with a refused open.
// Runs against the bundle.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Breakpoint, LogpointHit } from '../../../../protocol/host-protocol';
import { forkHost, ROOT, type HostClient } from '../host-client';
import { lineOf } from '../../../source-line';
import { distBundle } from '../../../dist-bundles';

const BUNDLE = distBundle('runtime-host.js');
const CRAWLER = join(ROOT, 'runtime', 'crawler', 'crawler.ts');
const LOGPOINT: Breakpoint = {
  file: CRAWLER,
  line: lineOf(CRAWLER, 'const { stat, links } = parsed;'),
  logMessage: '{url} at depth {depth}',
};

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

/** The host's children once `done` holds of them (within `ms`). */
async function childrenWhen(host: HostClient, done: (pids: number[]) => boolean, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  while (!done(childrenOf(host.child.pid!)) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  return childrenOf(host.child.pid!);
}

const listed = (hits: readonly LogpointHit[]): Array<[number, number | null, string]> =>
  hits.map((h) => [h.tick, h.taskId, h.message]);

describe('the hit replay host started with an opened recording (bundle)', { timeout: 240_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-replay-at-open-'));
  const file = join(dir, 'crawl.corotrace');
  /** The finished run's own list (its hit replay host given a copy at the list). */
  let expected: LogpointHit[] = [];
  let host: HostClient;
  before(async () => {
    const recorder = forkHost({ bundle: BUNDLE, pipe: true });
    try {
      await recorder.rpc.request('launch', {
        target: { kind: 'demo', pages: 300, latency: 'instant' },
        options: { maxTasks: 3, record: true },
      });
      await recorder.waitFor('finished', () => true, 60_000);
      await recorder.rpc.request('saveRecording', { path: file });
      expected = (await recorder.rpc.request('pastLogpointHits', { logpoints: [LOGPOINT] })).hits;
    } finally {
      await recorder.close();
    }
    assert.ok(expected.length > 100, `${expected.length} hits`);
    host = forkHost({ bundle: BUNDLE, pipe: true });
  });
  after(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('forked with the open, used by the first list, ended with the recording', async () => {
    await host.rpc.request('openRecording', { path: file });
    // Before any list, search or debugger's breaks.
    const started = await childrenWhen(host, (c) => c.length === 1, 10_000);
    assert.equal(started.length, 1, 'a replay host started with the open');
    const first = await host.rpc.request('pastLogpointHits', { logpoints: [LOGPOINT] });
    assert.deepEqual(listed(first.hits), listed(expected));
    assert.deepEqual(childrenOf(host.child.pid!), started, 'the first list was the replay host started at the open');
    // Another recording opened (the same file again): the first one's replay host ends, the new one's starts.
    await host.rpc.request('openRecording', { path: file });
    const next = await childrenWhen(host, (c) => c.length === 1 && c[0] !== started[0], 10_000);
    assert.equal(next.length, 1);
    assert.notEqual(next[0], started[0], 'the previous recording replay host ended');
    assert.deepEqual(
      listed((await host.rpc.request('pastLogpointHits', { logpoints: [LOGPOINT] })).hits),
      listed(expected),
    );
    // A launch ends the recording: its replay host with it.
    await host.rpc.request('launch', { target: { kind: 'demo', pages: 5, latency: 'instant' }, options: {} });
    await host.waitFor('finished', () => true, 60_000);
    assert.deepEqual(await childrenWhen(host, (c) => c.length === 0, 10_000), []);
    // A file the host refuses: the replay host started with it ends too.
    const bad = join(dir, 'not-a-recording.corotrace');
    writeFileSync(bad, 'not a recording');
    await assert.rejects(host.rpc.request('openRecording', { path: bad }));
    assert.deepEqual(await childrenWhen(host, (c) => c.length === 0, 10_000), []);
  });
});
