// The comparison of approaches on 10 pages with 100 ms of latency per response: the source
// article's ordering must hold (blocking and busy non-blocking slowest, the event-loop
// approaches fastest). It comes from how many fetches each approach has in flight, so it is
// a matter of round trips (1 s against 0.1 s), not of how fast this machine is. The pools have
// two members each, five round trips: their default size goes with the cores (four threads a
// core), and from three cores on a pool of ten threads fetched the ten pages in one round
// trip, as fast as the event loop; with two cores a pool of eight took two, one round trip
// (100 ms) behind the event loop, which a busy machine's delays could eat up.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  APPROACHES,
  EVENT_LOOP_APPROACHES,
  compareApproaches,
  formatComparison,
  type ApproachName,
  type ComparisonRow,
} from '../../../runtime/samples/compare';

test('10 pages, 100 ms latency: blocking and busy slowest, the event-loop approaches fastest', async () => {
  const rows = await compareApproaches({ pages: 10, latencyMs: 100, threads: 2, processes: 2 });
  assert.deepEqual(
    rows.map((r) => r.approach),
    APPROACHES,
  );
  const by = new Map<ApproachName, ComparisonRow>(rows.map((r) => [r.approach, r]));
  const seconds = (a: ApproachName): number => by.get(a)!.seconds;
  for (const r of rows) {
    assert.equal(r.failures, 0, `${r.approach}: every page came back 200`);
    assert.equal(r.pages, 10);
    assert.ok(Math.abs(r.pagesPerSecond - 10 / r.seconds) < 1e-9);
  }
  const sequential: ApproachName[] = ['blocking', 'busy-nonblocking'];
  const pools: ApproachName[] = ['processes', 'threads'];
  for (const a of sequential) {
    assert.equal(by.get(a)!.concurrency, 1);
    assert.ok(seconds(a) >= 1.0, `${a} takes ten round trips: ${seconds(a)}`);
  }
  const slowest = Math.min(...sequential.map(seconds));
  for (const a of [...pools, ...EVENT_LOOP_APPROACHES])
    assert.ok(seconds(a) < slowest, `${a} (${seconds(a)} s) beats the sequential approaches (${slowest} s)`);
  const fastestPool = Math.min(...pools.map(seconds));
  for (const a of pools) assert.equal(by.get(a)!.concurrency, 2);
  for (const a of EVENT_LOOP_APPROACHES) {
    assert.equal(by.get(a)!.concurrency, 10);
    assert.ok(seconds(a) < fastestPool, `${a} (${seconds(a)} s) beats the pools (${fastestPool} s)`);
  }
  // Memory per concurrent fetch: a process or a thread costs megabytes, a suspended fetch on the loop kilobytes.
  for (const a of [...pools, ...EVENT_LOOP_APPROACHES])
    assert.ok((by.get(a)!.memoryPerFetchBytes ?? 0) > 0, `${a} has a memory figure`);
  for (const a of pools) assert.ok(by.get(a)!.memoryPerFetchBytes! > 1024 * 1024, `${a}: over a megabyte per fetch`);
  for (const a of EVENT_LOOP_APPROACHES)
    assert.ok(by.get(a)!.memoryPerFetchBytes! < 100 * 1024, `${a}: well under 100 KB per fetch`);
  for (const a of pools) assert.ok(by.get(a)!.startupSeconds! > 0);
  assert.ok(by.get('busy-nonblocking')!.wastedTries! > 10);

  const table = formatComparison(rows);
  assert.match(table, /^10 pages, 100 ms latency per response\n/);
  for (const label of [
    'blocking (sequential)',
    'processes (pool)',
    'threads (pool)',
    'busy non-blocking',
    'callbacks (selector loop)',
    'generator coroutines',
    'runtime (ClientSession + tasks)',
  ]) {
    assert.ok(table.includes(label), label);
  }
});

test('formatComparison: aligned columns, speed-up against blocking, notes', () => {
  const row = (approach: ApproachName, seconds: number, extra: Partial<ComparisonRow> = {}): ComparisonRow => ({
    approach,
    seconds,
    pagesPerSecond: 10 / seconds,
    concurrency: 1,
    pages: 10,
    latencyMs: 50,
    failures: 0,
    ...extra,
  });
  const table = formatComparison([
    row('blocking', 2),
    row('threads', 0.5, { concurrency: 8, memoryPerFetchBytes: 8 * 1024 * 1024, startupSeconds: 0.25 }),
    row('runtime', 0.1, { concurrency: 10, memoryPerFetchBytes: 6144, failures: 1 }),
  ]);
  const lines = table.split('\n');
  assert.equal(lines[0], '10 pages, 50 ms latency per response');
  assert.match(lines[1]!, /^approach +in flight +seconds +pages\/s +vs blocking +memory\/fetch +notes$/);
  assert.match(lines[3]!, /^blocking \(sequential\) +1 +2\.000 +5\.0 +1\.0x +-$/);
  assert.match(lines[4]!, /^threads \(pool\) +8 +0\.500 +20\.0 +4\.0x +8\.0 MB +\+0\.25 s to start the pool$/);
  assert.match(lines[5]!, /^runtime \(ClientSession \+ tasks\) +10 +0\.100 +100\.0 +20\.0x +6\.0 KB +1 FAILED$/);
  // Numbers are right-aligned under their header: the seconds column ends where its header and its rule end.
  const secondsEnd = lines[1]!.indexOf('seconds') + 'seconds'.length;
  assert.equal(lines[2]!.split('  ').slice(0, 3).join('  ').length, secondsEnd);
  assert.equal(lines[3]!.indexOf('2.000') + '2.000'.length, secondsEnd);
  assert.equal(lines[5]!.indexOf('0.100') + '0.100'.length, secondsEnd);
  assert.equal(formatComparison([]), '(no approaches measured)');
});

test('compareApproaches checks its options before starting anything', async () => {
  await assert.rejects(compareApproaches({ pages: 0, latencyMs: 10 }), /pages must be an integer >= 1/);
  await assert.rejects(compareApproaches({ pages: 2, latencyMs: -1 }), /latencyMs must be a finite number >= 0/);
  await assert.rejects(compareApproaches({ pages: 2, latencyMs: 10, threads: 0 }), /threads must be an integer >= 1/);
  await assert.rejects(
    compareApproaches({ pages: 2, latencyMs: 10, approaches: ['carrier-pigeon' as ApproachName] }),
    /unknown approach "carrier-pigeon"/,
  );
});

test('a subset of approaches, from a running site', async () => {
  const rows = await compareApproaches({
    pages: 3,
    latencyMs: 20,
    approaches: ['runtime', 'callbacks'],
    memory: false,
  });
  assert.deepEqual(
    rows.map((r) => r.approach),
    ['runtime', 'callbacks'],
  );
  for (const r of rows) {
    assert.equal(r.failures, 0);
    assert.equal(r.memoryPerFetchBytes, undefined);
  }
});
