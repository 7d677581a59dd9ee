// `coroscope replay FILE --log FILE:LINE[:"message {expr}"]` as a user runs it (the bundled CLI
// in a child process): a demo crawl recorded by a runtime host and saved (as VS Code saves
// one), then listed from the command line: every hit of the logpoint in the crawler's fetch, in
// order, the same as the host's pastLogpointHits (tick, task, message); the text form one line
// per hit; a FILE:LINE that is not one is a usage error (exit 2).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { LogpointHit } from '../../../protocol/host-protocol';
import { forkHost, ROOT, type HostClient } from '../host/host-client';
import { lineOf } from '../../source-line';
import { distBundle } from '../../dist-bundles';
import { parseLogOption } from '../../../runtime/cli/replay-logpoints';
import { UsageError } from '../../../runtime/cli/args';

const CLI = join(ROOT, 'bin', 'coroscope.js');
const BUNDLE = distBundle('runtime-host.js');
distBundle('cli.js');
const CRAWLER = join(ROOT, 'runtime', 'crawler', 'crawler.ts');
const PARSED = lineOf(CRAWLER, 'const { stat, links } = parsed;');

function coroscope(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('coroscope replay --log (bundle)', {
  timeout: 300_000,
}, () => {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-replay-log-'));
  const file = join(dir, 'crawl.corotrace');
  let host: HostClient;
  let hits: LogpointHit[] = [];
  before(async () => {
    host = forkHost({ bundle: BUNDLE, pipe: true });
    await host.rpc.request('launch', {
      target: { kind: 'demo', pages: 12, latency: 'instant' },
      options: { maxTasks: 2, record: true },
    });
    await host.waitFor('finished', () => true, 60_000);
    await host.rpc.request('saveRecording', { path: file });
    hits = (
      await host.rpc.request('pastLogpointHits', {
        logpoints: [{ file: CRAWLER, line: PARSED, logMessage: 'fetched {url} at depth {depth}' }],
      })
    ).hits;
  });
  after(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('--json: every hit, in order, as the host lists them', () => {
    const r = coroscope([
      'replay',
      file,
      '--log',
      `${relative(ROOT, CRAWLER)}:${PARSED}:fetched {url} at depth {depth}`,
      '--json',
    ]);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { hits: LogpointHit[] };
    assert.ok(hits.length >= 12);
    assert.deepEqual(
      out.hits.map((h) => [h.logpoint, h.line, h.tick, h.ordinal, h.time, h.taskId, h.task, h.message]),
      hits.map((h) => [h.logpoint, h.line, h.tick, h.ordinal, h.time, h.taskId, h.task, h.message]),
    );
  });

  test('a file that is not a recording, or none: exit 1 with the reason, nothing listed', () => {
    const bad = join(dir, 'not-a-recording.corotrace');
    writeFileSync(bad, 'not a recording\n');
    for (const [path, why] of [
      [bad, /is not a Coroscope recording/],
      [join(dir, 'missing.corotrace'), /no such recording file/],
    ] as const) {
      const r = coroscope(['replay', path, '--log', `${CRAWLER}:${PARSED}:{url}`]);
      assert.deepEqual([r.status, r.stdout], [1, '']);
      assert.match(r.stderr, /^coroscope replay: openRecording: /);
      assert.match(r.stderr, why);
    }
  });

  test('text: one line per hit (tick, time, task, place, message), a quoted message unquoted', () => {
    const r = coroscope(['replay', file, '--log', `${CRAWLER}:${PARSED}:"fetched {url} at depth {depth}"`]);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, hits.length);
    for (const [i, l] of lines.entries()) {
      const h = hits[i]!;
      assert.match(
        l,
        new RegExp(`^tick ${h.tick}  \\+\\d+\\.\\d ms  ${h.task} \\(#${h.taskId}\\)  crawler\\.ts:${PARSED}  `),
      );
      assert.ok(l.endsWith(h.message), l);
    }
    assert.match(r.stderr, new RegExp(`${hits.length} hits of crawler\\.ts:${PARSED} in \\d+ ticks`));
  });

  test("the launcher's entry for --log answers as the whole CLI, the list and every refusal alike", () => {
    // bin/coroscope.js runs dist/cli-replay-log.js for a replay with --log; dist/cli.js is the whole CLI.
    const whole = (args: string[]): { status: number | null; stdout: string; stderr: string } => {
      const r = spawnSync(process.execPath, [distBundle('cli.js'), ...args], { cwd: ROOT, encoding: 'utf8' });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    distBundle('cli-replay-log.js');
    const place = `${CRAWLER}:${PARSED}:{url}`;
    for (const args of [
      ['replay', file, '--log', place],
      ['replay', file, '--log', place, '--json'],
      ['replay', `--log=${place}`, file],
      ['replay', file, '--log', place, '--dump-tasks-at-tick', '3'],
      ['replay', file, '--log'],
      ['replay', file, '--log', 'crawler.ts'],
      ['replay', '--log', place],
      ['replay', file, file, '--log', place],
      ['replay', file, '--log', place, '--verbose'],
      ['replay', join(dir, 'missing.corotrace'), '--log', place],
    ]) {
      const [a, b] = [coroscope(args), whole(args)];
      // A hit's time is its tick's in the recording: both lists are the same text.
      assert.deepEqual(a, b, args.join(' '));
    }
  });

  test('a FILE:LINE that is not one: a usage error', () => {
    const r = coroscope(['replay', file, '--log', 'crawler.ts']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--log needs FILE:LINE/);
    // A place no run can pass is said, not listed as no hits.
    const missing = coroscope(['replay', file, '--log', 'no-such-file.ts:3']);
    assert.deepEqual([missing.status, missing.stdout], [2, '']);
    assert.match(missing.stderr, /--log: cannot read .*no-such-file\.ts/);
  });
});

describe('parseLogOption: a --log value', () => {
  const lines = readFileSync(CRAWLER, 'utf8').split('\n').length;

  test('FILE:LINE and a message after it, colons and quotes kept as the shell left them', () => {
    assert.deepEqual(parseLogOption(`${relative(ROOT, CRAWLER)}:${PARSED}`, ROOT), {
      file: CRAWLER,
      line: PARSED,
      logMessage: `crawler.ts:${PARSED}`,
    });
    assert.deepEqual(parseLogOption(`${CRAWLER}:${PARSED}:"at {url}: {depth}"`), {
      file: CRAWLER,
      line: PARSED,
      logMessage: 'at {url}: {depth}',
    });
    assert.equal(parseLogOption(`${CRAWLER}:${lines}:x`).line, lines);
  });

  test('no such file, a line past its end or none: usage errors saying which', () => {
    const refused = (value: string, why: RegExp): void =>
      assert.throws(
        () => parseLogOption(value, ROOT),
        (e: unknown) => e instanceof UsageError && why.test(e.message),
      );
    refused('missing.ts:3', /^--log: cannot read .*missing\.ts: ENOENT/);
    refused(`${CRAWLER}:${lines + 1}`, new RegExp(`has ${lines} lines, not ${lines + 1}$`));
    refused(`${CRAWLER}:0`, /line 0 is not a line number/);
    refused(CRAWLER, /needs FILE:LINE/);
  });
});

// A recording `coroscope crawl --record` made without --inspect has no frame chains: its line replays must
// record as it did (they once recorded frames, since an opened recording is inspected, and every logpoint
// failed with "the replayed run differs from the recorded one at tick 1").
describe('coroscope replay --log of a crawl the CLI recorded (bundle)', { timeout: 300_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-replay-log-cli-'));
  const file = join(dir, 'cli-crawl.corotrace');
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("every page the crawl parsed, once each, in the order of the recording's ticks", () => {
    const crawl = coroscope([
      'crawl',
      '--demo',
      '--instant',
      '--pages',
      '12',
      '--max-tasks',
      '2',
      '--json',
      '--quiet',
      '--record',
      file,
    ]);
    assert.equal(crawl.status, 0, crawl.stderr);
    const report = JSON.parse(crawl.stdout) as { results: { url: string; nextUrl?: string; error?: string }[] };
    // The line runs for each answer that is not a redirect and whose links could be read.
    const parsed = report.results.filter((r) => r.nextUrl === undefined && r.error === undefined).map((r) => r.url);
    assert.ok(parsed.length >= 12, `${parsed.length} pages parsed`);
    const r = coroscope(['replay', file, '--log', `${CRAWLER}:${PARSED}:{url}`, '--json']);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { hits: LogpointHit[] };
    assert.deepEqual(out.hits.map((h) => h.message).sort(), [...parsed].sort());
    const ticks = out.hits.map((h) => h.tick);
    assert.deepEqual(
      ticks,
      [...ticks].sort((a, b) => a - b),
    );
  });
});
