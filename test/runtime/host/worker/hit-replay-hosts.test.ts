// Tests of HitReplayHosts (runtime/host/worker/hit-replay-hosts.ts) with fakes of the main-thread link and
// the past view, and real forks of a script that exits before its hello (a replay host that fails to
// start, counted in a file): a host that cannot start one refuses with its words; a failed start is
// replayFailed and leaves nothing half-started (the next use starts again); a hit replay host handed in
// becomes the one used while it holds the ticks asked, and is closed if ended before it started; the scan
// replay host is started ahead only for a finished, recorded run, once; a line replay host starts none.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ProtocolError } from '../../../../protocol/rpc';
import { HitReplayHosts } from '../../../../runtime/host/worker/hit-replay-hosts';
import type { HostStart, LineReplayHost } from '../../../../runtime/host/worker/line-replay-host';
import type { MainThreadLink } from '../../../../runtime/host/worker/main-thread-link';
import type { PastView } from '../../../../runtime/host/worker/past-view';

const dir = mkdtempSync(join(tmpdir(), 'coroscope-hit-replay-hosts-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let scripts = 0;

/** A host start whose process counts its starts in its own file, then exits before its hello. */
function exitingHost(): { start: HostStart; forks: () => number } {
  const n = ++scripts;
  const counter = join(dir, `forks-${n}`);
  const script = join(dir, `exits-${n}.js`);
  writeFileSync(script, `require('node:fs').appendFileSync(${JSON.stringify(counter)}, 'x');\nprocess.exit(0);\n`);
  return {
    start: { script, execArgv: [] },
    forks: () => (existsSync(counter) ? readFileSync(counter, 'utf8').length : 0),
  };
}

interface Fakes {
  main: MainThreadLink;
  view: PastView;
  /** The past view's drops and the main thread's asks, in order. */
  log: string[];
}

function fakes(): Fakes {
  const log: string[] = [];
  const main = {
    ask: async (method: string, params: { path: string }) => {
      log.push(`ask ${method}`);
      writeFileSync(params.path, 'recording');
      return { runId: 1, ticks: 10, midTick: false };
    },
  } as unknown as MainThreadLink;
  const view = { drop: (role: string) => log.push(`drop ${role}`) } as unknown as PastView;
  return { main, view, log };
}

/** A started replay host as HitReplayHosts uses one: its ticks, whether closed. */
function replayHost(ticks: number): LineReplayHost & { closes: number } {
  const r = {
    ticks,
    closes: 0,
    get isClosed() {
      return r.closes > 0;
    },
    close: () => void r.closes++,
  };
  return r as unknown as LineReplayHost & { closes: number };
}

async function refusalOf(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ProtocolError, `not a protocol error: ${String(e)}`);
    return { code: e.code, message: e.message };
  }
  assert.fail('not refused');
}

const FINISHED = () => ({ recorded: true, finished: true });

describe('starting a replay host', () => {
  test('a host that cannot start one: refused with its words, for a search and for a scan', async () => {
    const f = fakes();
    const hosts = new HitReplayHosts(null, false, f.main, f.view, FINISHED);
    assert.deepEqual(
      [await refusalOf(hosts.hitsFrom(3)), await refusalOf(hosts.scanWith('pastLogpointHits', async () => 1))],
      [
        { code: 'replayFailed', message: 'pastBreakpointHit: this host cannot start a replay host' },
        { code: 'replayFailed', message: 'pastLogpointHits: this host cannot start a replay host' },
      ],
    );
    assert.deepEqual(f.log, ['drop search']);
  });

  test('a failed start is replayFailed, nothing half-started kept: the next search starts again', async () => {
    const f = fakes();
    const host = exitingHost();
    const hosts = new HitReplayHosts(host.start, false, f.main, f.view, FINISHED);
    const first = await refusalOf(hosts.hitsFrom(3));
    assert.deepEqual(
      { code: first.code, start: first.message.startsWith('the line replay host did not start: ') },
      { code: 'replayFailed', start: true },
    );
    await refusalOf(hosts.hitsFrom(3));
    assert.deepEqual([host.forks(), hosts.hitReplay], [2, null]);
    assert.deepEqual(f.log, ['drop search', 'ask writeReplayCopy', 'drop search', 'ask writeReplayCopy']);
  });

  test('a scan of a run going on, or not recorded: a replay host of its own; failing to start, no use', async () => {
    const outcomes = [];
    for (const run of [
      { recorded: true, finished: false },
      { recorded: false, finished: true },
    ]) {
      const f = fakes();
      const host = exitingHost();
      const hosts = new HitReplayHosts(host.start, false, f.main, f.view, () => run);
      let used = 0;
      const refused = await refusalOf(hosts.scanWith('pastLogpointHits', async () => used++));
      outcomes.push([refused.message.startsWith('the line replay host did not start: '), used, host.forks()]);
    }
    assert.deepEqual(outcomes, [
      [true, 0, 1],
      [true, 0, 1],
    ]);
  });
});

describe('the hit replay host handed in', () => {
  test('used while it holds the ticks asked; one short of them is ended and another started', async () => {
    const f = fakes();
    const host = exitingHost();
    const hosts = new HitReplayHosts(host.start, false, f.main, f.view, FINISHED);
    const handed = replayHost(10);
    hosts.becomeHitReplay(Promise.resolve(handed));
    assert.equal(await hosts.hitsFrom(10), handed);
    assert.deepEqual([hosts.hitReplay, handed.closes, host.forks()], [handed, 0, 0]);
    await refusalOf(hosts.hitsFrom(11));
    assert.deepEqual([handed.closes, host.forks()], [1, 1]);
  });

  test('ended before it started: closed once it has', async () => {
    const f = fakes();
    const hosts = new HitReplayHosts(null, false, f.main, f.view, FINISHED);
    let started: (r: LineReplayHost) => void = () => undefined;
    const handed = replayHost(10);
    hosts.becomeHitReplay(new Promise((resolve) => (started = resolve)));
    hosts.end();
    started(handed);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual([hosts.hitReplay, handed.closes], [null, 1]);
  });
});

describe('the scan replay host started ahead', () => {
  test('only for a finished, recorded run, and once while one is starting', async () => {
    const runs = [
      { recorded: true, finished: false },
      { recorded: false, finished: true },
    ];
    const counts: number[] = [];
    for (const run of runs) {
      const host = exitingHost();
      new HitReplayHosts(host.start, false, fakes().main, fakes().view, () => run).prepareScan();
      counts.push(host.forks());
    }
    const lineReplay = exitingHost();
    new HitReplayHosts(lineReplay.start, true, fakes().main, fakes().view, FINISHED).prepareScan();
    const finished = exitingHost();
    const f = fakes();
    const hosts = new HitReplayHosts(finished.start, false, f.main, f.view, FINISHED);
    hosts.prepareScan();
    hosts.prepareScan();
    // The spare failed to start: a scan starts another, and is refused.
    const refused = await refusalOf(hosts.scanWith('pastLogpointHits', async () => 1));
    assert.deepEqual(
      { counts, lineReplay: lineReplay.forks(), finished: finished.forks(), code: refused.code },
      { counts: [0, 0], lineReplay: 0, finished: 2, code: 'replayFailed' },
    );
  });
});
