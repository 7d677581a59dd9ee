import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSources, fileSources, programSources } from '../../../runtime/record/source-hashes';
import { RecordingSourceMismatchError } from '../../../runtime/record/recording-errors';

test('fileSources hashes files by relative path; checkSources names every changed and removed file and the recording, and lets a file the run never ran be', () => {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-src-'));
  try {
    writeFileSync(join(dir, 'a.ts'), 'one');
    writeFileSync(join(dir, 'b.ts'), 'two');
    const before = fileSources([join(dir, 'b.ts'), join(dir, 'a.ts')], dir);
    assert.deepEqual(before.map((s) => s.path), ['a.ts', 'b.ts']);
    checkSources(before, fileSources([join(dir, 'a.ts'), join(dir, 'b.ts')], dir), 'run.corotrace');
    writeFileSync(join(dir, 'a.ts'), 'one, edited');
    writeFileSync(join(dir, 'c.ts'), 'three');
    const after = fileSources([join(dir, 'a.ts'), join(dir, 'c.ts')], dir);
    assert.throws(
      () => checkSources(before, after, 'run.corotrace'),
      (e: unknown) => e instanceof RecordingSourceMismatchError && /^run\.corotrace was recorded from sources that have changed since: a\.ts, b\.ts \(removed\)\. /.test(e.message) && e.changed.length === 2,
    );
    // A file the recording never ran (c.ts) is no change: the host's bundle holds more than the CLI's.
    checkSources(fileSources([join(dir, 'b.ts')], dir), fileSources([join(dir, 'b.ts'), join(dir, 'c.ts')], dir), 'run.corotrace');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the program\'s sources (run from TypeScript: the runtime\'s files) leave out the tools that only watch a run and the demo site', () => {
  const sources = programSources();
  const paths = sources.map((s) => s.path);
  assert.ok(paths.includes('runtime/loop.ts'), paths.slice(0, 5).join(', '));
  assert.ok(paths.includes('runtime/crawler/crawler.ts'));
  assert.ok(!paths.some((p) => /runtime\/(cli|inspect|host|record|demo-site)\/|^protocol\//.test(p)));
  assert.ok(sources.every((s) => /^[0-9a-f]{64}$/.test(s.sha256)));
});
