// The test's bundle helper (test/dist-bundles.ts): a missing or stale bundle is told, a current one is not.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DIST, ensureBundles, whyRebuild } from './dist-bundles';

test('a bundle missing, or older than a source, is built again; one built after every source is current', () => {
  ensureBundles();
  assert.equal(whyRebuild(), null);
  const dist = mkdtempSync(join(tmpdir(), 'coroscope-dist-'));
  try {
    assert.equal(whyRebuild(['runtime-host.js'], dist), 'dist/runtime-host.js is missing');
    copyFileSync(join(DIST, 'runtime-host.js'), join(dist, 'runtime-host.js'));
    assert.equal(whyRebuild(['runtime-host.js'], dist), null);
    // Built before the sources were last changed (an edit after `npm run build`).
    utimesSync(join(dist, 'runtime-host.js'), new Date(2020, 0, 1), new Date(2020, 0, 1));
    assert.equal(whyRebuild(['runtime-host.js'], dist), 'dist/runtime-host.js is older than the sources');
  } finally {
    rmSync(dist, { recursive: true, force: true });
  }
});
