// Runs the response fuzzer (bench/fuzz-response-parser.ts) on 2,000 inputs: every random or
// mutated HTTP response must end in a response or a typed HttpError naming the URL, never
// in another error, never in a hang. Also checks that inputs are reproducible from
// (seed, index), and sends a few inputs through a real ClientSession on loopback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildCorpus, formatReport, generateInput, runFuzz } from '../../../bench/fuzz-response-parser';

test('2,000 fuzzed responses: each ends in a response or a typed HttpError, none hangs', {
  timeout: 120_000,
}, async () => {
  // A generous per-input budget: CI machines may be loaded (the slowest input takes ~60 ms alone).
  const report = await runFuzz({ count: 2000, seed: 1, budgetMs: 10_000 });
  assert.equal(report.inputs, 2000);
  assert.deepEqual(report.violations, [], formatReport(report, 1));
  const labels = [...report.outcomes.keys()];
  const count = (prefix: string): number =>
    labels.filter((l) => l.startsWith(prefix)).reduce((n, l) => n + report.outcomes.get(l)!, 0);
  // The inputs reach every part of the read path.
  for (const framing of ['length', 'chunked', 'close', 'none'])
    assert.ok(count(`response (${framing})`) > 0, `some responses are ${framing}-framed`);
  for (const kind of ['HttpProtocolError', 'HttpTooLargeError', 'HttpTimeoutError'])
    assert.ok(count(kind) > 0, `some inputs end in ${kind}`);
  assert.ok(count('HttpProtocolError: cannot decode') > 0, 'some bodies fail to decompress');
  assert.ok(count('HttpProtocolError: invalid chunk size') > 0, 'some chunk sizes are bad');
  assert.equal(count('untyped'), 0);
});

test('a second seed, with bigger limits: still no violation', { timeout: 120_000 }, async () => {
  const report = await runFuzz({
    count: 2000,
    seed: 20240601,
    maxBodyBytes: 1 << 20,
    maxHeaderBytes: 64 * 1024,
    budgetMs: 10_000,
  });
  assert.deepEqual(report.violations, [], formatReport(report, 20240601));
});

test('inputs are reproducible from (seed, index), and --only replays one', async () => {
  const corpus = buildCorpus();
  for (const index of [0, 1, 17, 1999]) {
    const a = generateInput(corpus, 7, index);
    const b = generateInput(corpus, 7, index);
    assert.deepEqual(a, b);
  }
  assert.notDeepEqual(generateInput(corpus, 7, 3).bytes, generateInput(corpus, 8, 3).bytes);
  const whole = await runFuzz({ count: 50, seed: 7, watchdogMs: 0 });
  const one = await runFuzz({ count: 50, seed: 7, only: 42, watchdogMs: 0 });
  assert.equal(one.inputs, 1);
  const label = [...one.outcomes.keys()][0]!;
  assert.ok(whole.outcomes.has(label), `the replayed input ends as in the full run (${label})`);
});

test('fuzzed responses from a loopback server to a real ClientSession: typed errors only', {
  timeout: 120_000,
}, async () => {
  const report = await runFuzz({ count: 1, seed: 3, loopback: 80, budgetMs: 10_000 });
  assert.ok(report.loopback !== null);
  assert.equal(report.loopback.inputs, 80);
  assert.deepEqual(report.violations, [], formatReport(report, 3));
  assert.ok((report.loopback.outcomes.get('response') ?? 0) > 0, 'some responses are read whole');
  assert.ok(
    [...report.loopback.outcomes.keys()].some((l) => l.startsWith('HttpProtocolError')),
    'some fail as protocol errors',
  );
});
