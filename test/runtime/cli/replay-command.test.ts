// `coroscope crawl --record` and `coroscope replay` as a user runs them: the bundled CLI in
// a child process (npm test builds it first). The demo site lives only as long as the
// recording crawl: every replay runs with it stopped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeRecording, encodeRecording, readRecordingFile } from '../../../runtime/record/recording-file';
import { unpackAwaitDetails } from '../../../runtime/record/await-details';

const root = join(__dirname, '..', '..', '..');
const cli = join(root, 'bin', 'coroscope.js');

function coroscope(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const dir = mkdtempSync(join(tmpdir(), 'coroscope-replay-'));
const file = join(dir, 'x.corotrace');
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

test('crawl --demo --record, then replay: the same report, offline', () => {
  const rec = coroscope(['crawl', '--demo', '--pages', '40', '--quiet', '--record', file]);
  assert.equal(rec.status, 0, rec.stderr);
  assert.match(rec.stderr, /Recorded \d+ ticks, \d+ task steps, \d+ sockets to .*x\.corotrace \(\d+ bytes, [\d.]+ per step\)/);
  assert.match(rec.stdout, /Finished \d+ urls in [\d.]+ secs/);
  const rep = coroscope(['replay', file]);
  assert.equal(rep.status, 0, rep.stderr);
  assert.equal(rep.stdout, rec.stdout);
  // What each suspension awaited, in the task table's words, is kept for the timeline.
  const details = unpackAwaitDetails(readRecordingFile(file).meta.awaitDetails);
  assert.ok(details !== null && details.length > 0);
  assert.ok(details.some((d) => /^<Socket fd=\d+ .*raddr=127\.0\.0\.1:\d+>$/.test(d)), details.slice(0, 20).join(' | '));
});

test('replay --dump-tasks-at-tick N [--json]: the tasks, their stacks and locals at that tick', () => {
  const json = coroscope(['replay', file, '--dump-tasks-at-tick', '30', '--json']);
  assert.equal(json.status, 0, json.stderr);
  const dump = JSON.parse(json.stdout) as { tick: number; tasks: Array<{ name: string; frames: Array<{ function: string; file: string | null; locals: Array<{ name: string; value: string }> }> }> };
  assert.equal(dump.tick, 30);
  const worker = dump.tasks.find((t) => t.name.startsWith('worker-') && t.frames.some((f) => f.function === 'fetch'));
  assert.ok(worker, 'a worker is fetching at tick 30');
  const fetch = worker.frames.find((f) => f.function === 'fetch')!;
  assert.match(fetch.file ?? '', /runtime\/crawler\/crawler\.ts$/);
  assert.match(fetch.locals.find((l) => l.name === 'url')?.value ?? '', /^"http:\/\/127\.0\.0\.1:\d+\//);
  const text = coroscope(['replay', file, '--dump-tasks-at-tick', '30']);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^\*\*\* Replayed to tick 30 \*\*\*\nTasks at loop time [\d.]+ s, tick 30 \(paused\)/);
  assert.match(text.stdout, /fetch .*crawler\.ts:\d+\n(.*\n)*?\s+url = "http/);
  const beyond = coroscope(['replay', file, '--dump-tasks-at-tick', '999999']);
  assert.equal(beyond.status, 2);
  assert.match(beyond.stderr, /has \d+ ticks/);
});

test('a corrupted copy, a truncated copy and a copy with a changed source hash are refused with clear errors', () => {
  const bytes = readFileSync(file);
  const flipped = Buffer.from(bytes);
  flipped[Math.floor(bytes.length / 2)]! ^= 0xff;
  writeFileSync(join(dir, 'flipped.corotrace'), flipped);
  const bad = coroscope(['replay', join(dir, 'flipped.corotrace')]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /^coroscope replay: .*flipped\.corotrace is truncated or corrupt/);
  writeFileSync(join(dir, 'cut.corotrace'), bytes.subarray(0, bytes.length - 100));
  const cut = coroscope(['replay', join(dir, 'cut.corotrace')]);
  assert.equal(cut.status, 1);
  assert.match(cut.stderr, /cut\.corotrace is truncated or corrupt/);
  const rec = decodeRecording(bytes, 'x');
  const sources = rec.meta.sources.map((s) => (s.path === 'runtime/crawler/crawler.ts' ? { ...s, sha256: '0'.repeat(64) } : s));
  assert.notDeepEqual(sources, rec.meta.sources, 'the recording lists the crawler\'s source');
  writeFileSync(join(dir, 'changed.corotrace'), encodeRecording({ ...rec, meta: { ...rec.meta, sources } }));
  const changed = coroscope(['replay', join(dir, 'changed.corotrace')]);
  assert.equal(changed.status, 1);
  assert.match(changed.stderr, /changed\.corotrace was recorded from sources that have changed since: runtime\/crawler\/crawler\.ts\b/);
  assert.equal(changed.stdout, '');
});

test('--record is refused for the callback and generator stages; replay needs a file', () => {
  const stage = coroscope(['crawl', '--demo', '--stage', 'callbacks', '--record', join(dir, 'no.corotrace')]);
  assert.equal(stage.status, 2);
  assert.match(stage.stderr, /--record records the coroutines stage/);
  const none = coroscope(['replay']);
  assert.equal(none.status, 2);
  assert.match(none.stderr, /replay needs the \.corotrace file/);
});
