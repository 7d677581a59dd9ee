import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  builtSourcesPath,
  bundleSources,
  checkSources,
  fileSources,
  programSources,
} from '../../../runtime/record/source-hashes';
import { RecordingSourceMismatchError } from '../../../runtime/record/recording-errors';
import { distBundle } from '../../dist-bundles';

test('fileSources hashes files by relative path; checkSources names every changed and removed file and the recording, and lets a file the run never ran be', () => {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-src-'));
  try {
    writeFileSync(join(dir, 'a.ts'), 'one');
    writeFileSync(join(dir, 'b.ts'), 'two');
    const before = fileSources([join(dir, 'b.ts'), join(dir, 'a.ts')], dir);
    assert.deepEqual(
      before.map((s) => s.path),
      ['a.ts', 'b.ts'],
    );
    checkSources(before, fileSources([join(dir, 'a.ts'), join(dir, 'b.ts')], dir), 'run.corotrace');
    writeFileSync(join(dir, 'a.ts'), 'one, edited');
    writeFileSync(join(dir, 'c.ts'), 'three');
    const after = fileSources([join(dir, 'a.ts'), join(dir, 'c.ts')], dir);
    assert.throws(
      () => checkSources(before, after, 'run.corotrace'),
      (e: unknown) =>
        e instanceof RecordingSourceMismatchError &&
        /^run\.corotrace was recorded from sources that have changed since: a\.ts, b\.ts \(removed\)\. /.test(
          e.message,
        ) &&
        e.changed.length === 2,
    );
    // A file the recording never ran (c.ts) is no change: the host's bundle holds more than the CLI's.
    checkSources(
      fileSources([join(dir, 'b.ts')], dir),
      fileSources([join(dir, 'b.ts'), join(dir, 'c.ts')], dir),
      'run.corotrace',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the program's sources (run from TypeScript: the runtime's files) leave out the tools that only watch a run and the demo site", () => {
  const sources = programSources();
  const paths = sources.map((s) => s.path);
  assert.ok(paths.includes('runtime/loop.ts'), paths.slice(0, 5).join(', '));
  assert.ok(paths.includes('runtime/crawler/crawler.ts'));
  assert.ok(!paths.some((p) => /runtime\/(cli|inspect|host|record|demo-site)\/|^protocol\//.test(p)));
  assert.ok(sources.every((s) => /^[0-9a-f]{64}$/.test(s.sha256)));
});

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

test("a bundle's sources come from the hashes its build wrote beside it, when they are of that very bundle; else (none, another build's, garbled) from its source map", () => {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-src-'));
  try {
    const bundle = join(dir, 'host.js');
    writeFileSync(bundle, 'console.log(1);\n//# sourceMappingURL=host.js.map\n');
    writeFileSync(
      `${bundle}.map`,
      JSON.stringify({
        version: 3,
        sources: ['../runtime/loop.ts', '../runtime/host/run.ts'],
        sourcesContent: ['loop', 'run'],
        mappings: '',
      }),
    );
    const fromMap = [{ path: 'runtime/loop.ts', sha256: sha('loop') }];
    assert.deepEqual(bundleSources(bundle), fromMap);
    // Hashes the map does not give: which of the two was read shows.
    const built = (bundleSha256: string): string =>
      JSON.stringify({
        bundleSha256,
        sources: [
          { path: '../runtime/loop.ts', sha256: sha('as built') },
          { path: '../runtime/host/run.ts', sha256: sha('run') },
        ],
      });
    writeFileSync(builtSourcesPath(bundle), built(sha('console.log(1);\n//# sourceMappingURL=host.js.map\n')));
    assert.deepEqual(bundleSources(bundle), [{ path: 'runtime/loop.ts', sha256: sha('as built') }]);
    // The bundle built again (without its hashes written again): they are another build's.
    writeFileSync(bundle, 'console.log(2);\n//# sourceMappingURL=host.js.map\n');
    assert.deepEqual(bundleSources(bundle), fromMap);
    for (const garbled of [
      '{"bundleSha256":',
      'null',
      '[]',
      JSON.stringify({
        bundleSha256: sha('console.log(2);\n//# sourceMappingURL=host.js.map\n'),
        sources: [{ path: '../runtime/loop.ts', sha256: 'not a hash' }],
      }),
    ]) {
      writeFileSync(builtSourcesPath(bundle), garbled);
      assert.deepEqual(bundleSources(bundle), fromMap, garbled);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const HOST_BUNDLE = distBundle('runtime-host.js');
const ROOT = join(__dirname, '..', '..', '..');

test("the build's hashes of the host bundle's sources (esbuild.mjs) are those of the files its map names", () => {
  // Written by the same build as the bundle (esbuild.mjs writes both): the hash it holds is the bundle's.
  const built = (JSON.parse(readFileSync(builtSourcesPath(HOST_BUNDLE), 'utf8')) as { bundleSha256?: unknown })
    .bundleSha256;
  assert.equal(built, createHash('sha256').update(readFileSync(HOST_BUNDLE)).digest('hex'));
  const listed = bundleSources(HOST_BUNDLE);
  assert.ok(listed !== null && listed.some((s) => s.path === 'runtime/crawler/crawler.ts'));
  for (const s of listed) assert.equal(s.sha256, sha(readFileSync(join(ROOT, s.path), 'utf8')), s.path);
  // The map keeps no sources' text (the .vsix ships the sources): without the build's file, nothing is known.
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-src-'));
  try {
    const copy = join(dir, 'runtime-host.js');
    copyFileSync(HOST_BUNDLE, copy);
    copyFileSync(`${HOST_BUNDLE}.map`, `${copy}.map`);
    assert.equal(bundleSources(copy), null);
    copyFileSync(builtSourcesPath(HOST_BUNDLE), builtSourcesPath(copy));
    assert.deepEqual(bundleSources(copy), listed);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
