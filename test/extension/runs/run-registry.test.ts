// Unit tests of extension/runs/run-registry.ts against the real runtime host
// (dist/runtime-host.js, built here as the adapter tests build it): one host process per
// run, what is listed and what is live, a run leaving the registry when its host ends (asked
// or not), and dispose.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RunRegistry } from '../../../extension/runs/run-registry';
import { HOST_SCRIPT, buildAdapterAndHost } from '../debug/build-adapter';
import { processExists } from '../debug/dap-client';
import { until } from '../wait-until';

describe('RunRegistry', { timeout: 60_000 }, () => {
  let runs: RunRegistry;

  before(async () => {
    await buildAdapterAndHost();
    runs = new RunRegistry({ hostScript: HOST_SCRIPT, clientName: 'test' });
  });

  after(async () => {
    await runs?.dispose();
  });

  it('starts nothing until asked, then one host process per run, each with its key', async () => {
    assert.deepEqual(runs.list(), []);
    const started: number[] = [];
    const off = runs.onDidStart.on((r) => started.push(r.key));
    const [a, b] = await Promise.all([runs.start(), runs.start()]);
    off();
    assert.notEqual(a.key, b.key);
    assert.notEqual(a.pid, b.pid);
    assert.ok(a.pid !== undefined && processExists(a.pid) && b.pid !== undefined && processExists(b.pid));
    assert.deepEqual(started.sort(), [a.key, b.key].sort());
    assert.deepEqual(
      runs.list(),
      [a, b].sort((x, y) => x.key - y.key),
    );
    assert.equal(runs.get(a.key), a);
    assert.deepEqual(runs.live(), [], 'nothing launched yet');
    await Promise.all([a.stop('inspector'), b.stop('inspector')]);
    assert.deepEqual(runs.list(), []);
  });

  it('lists a launched run as live, tells who launched it, and drops it from live when it finishes', async () => {
    const run = await runs.start();
    const off = run.attach('test');
    const launches: string[] = [];
    const offLaunch = runs.onDidLaunch.on(({ run: r, by }) => launches.push(`${r.key}:${by}`));
    await run.launch({ kind: 'demo', latency: 'instant' }, { maxTasks: 2, stopOnEntry: true }, 'the test');
    assert.deepEqual(launches, [`${run.key}:the test`]);
    assert.equal(run.phase, 'paused');
    assert.equal(run.lastPause?.reason, 'entry');
    assert.deepEqual(runs.live(), [run]);
    assert.equal(run.title.startsWith('Crawl of the demo site (http://127.0.0.1:'), true, run.title);
    await run.endpoint.request('continue', {});
    await until('running', () => run.phase === 'running' || run.phase === 'finished');
    await until('the crawl to finish', () => run.phase === 'finished', 30_000);
    assert.equal(run.lastPause, null);
    assert.deepEqual(runs.live(), []);
    assert.deepEqual(runs.list(), [run], 'a finished run stays inspectable while a view holds it');
    offLaunch();
    off();
    await until('the host to end with its last view', () => !run.isAlive());
    assert.equal(runs.get(run.key), undefined);
  });

  it('a run whose host dies leaves the registry, reported as unexpected', async () => {
    const run = await runs.start();
    const ended = new Promise<{ key: number; expected: boolean }>((resolve) =>
      runs.onDidEnd.on(({ run: r, exit }) => resolve({ key: r.key, expected: exit.expected })),
    );
    process.kill(run.pid!, 'SIGKILL');
    assert.deepEqual(await ended, { key: run.key, expected: false });
    assert.equal(run.phase, 'hostDied');
    assert.equal(runs.get(run.key), undefined);
  });

  it('stop() ends a run for every view attached to it', async () => {
    const run = await runs.start();
    run.attach('one');
    run.attach('two');
    await run.launch({ kind: 'demo', latency: 'instant' }, { maxTasks: 2, stopOnEntry: true }, 'one');
    const heard: boolean[] = [];
    run.onDidEnd.on((exit) => heard.push(exit.expected));
    await run.stop('inspector');
    assert.deepEqual(heard, [true]);
    assert.equal(processExists(run.pid!), false);
  });

  it('dispose ends every host and refuses new starts', async () => {
    const a = await runs.start();
    const b = await runs.start();
    await runs.dispose();
    assert.equal(a.isAlive() || b.isAlive(), false);
    await assert.rejects(runs.start(), /shutting down/);
  });
});
