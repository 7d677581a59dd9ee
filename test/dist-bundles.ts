// The dist/ bundles a test runs, never missing and never older than the sources: distBundle(name)
// builds them all (`node esbuild.mjs`, as `npm run build` does) when one is missing or older than
// any source file, and throws, naming the build's output, when that build fails. A test never
// skips for a missing bundle, nor drives a stale one.
//
// Invariants: test files run two at a time, so one build at a time: a lock directory under dist/
// (mkdir is atomic); a process that finds it waits, then looks again. A lock older than
// LOCK_STALE_MS is of a build that died and is taken over. Run as a script (`node --import tsx
// test/dist-bundles.ts`) it brings every bundle up to date (test/run-tests.mjs does, once per run).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const PROJECT_ROOT = resolve(__dirname, '..');
export const DIST = join(PROJECT_ROOT, 'dist');
/** What esbuild.mjs reads (its .ts, .css and .mjs files): the folders of its entries, and itself. */
const SOURCES = ['runtime', 'protocol', 'extension', 'webview', 'bench', 'esbuild.mjs'];
/** Every bundle esbuild.mjs writes that the tests run; checked together (one build writes them all). */
export const ALL_BUNDLES = [
  'runtime/index.js',
  'cli.js',
  'cli-replay-log.js',
  'runtime-host.js',
  'runtime-host.js.map',
  'runtime-host.js.sources.json',
  'runtime-host-preload.js',
  'cli.js.sources.json',
  'line-debug-worker.js',
  'line-debug-worker.js.map',
  'typescript-transpiler.js',
  'extension.js',
  'debugAdapter.js',
  'webview/main.js',
];
const LOCK = join(DIST, '.build-lock');
const LOCK_STALE_MS = 180_000;

function newestSource(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return /\.(ts|css|mjs)$/.test(path) ? s.mtimeMs : 0;
  let newest = 0;
  for (const name of readdirSync(path)) {
    if (name === 'node_modules') continue;
    newest = Math.max(newest, newestSource(join(path, name)));
  }
  return newest;
}

/** Why the bundles must be built again (a missing one, or one older than a source), or null: they are current. */
export function whyRebuild(names: readonly string[] = ALL_BUNDLES, dist = DIST): string | null {
  const sources = Math.max(...SOURCES.map((s) => newestSource(join(PROJECT_ROOT, s))));
  for (const name of names) {
    const path = join(dist, name);
    if (!existsSync(path)) return `dist/${name} is missing`;
    if (statSync(path).mtimeMs < sources) return `dist/${name} is older than the sources`;
  }
  return null;
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function takeLock(): boolean {
  mkdirSync(DIST, { recursive: true });
  try {
    mkdirSync(LOCK);
    return true;
  } catch {
    try {
      if (Date.now() - statSync(LOCK).mtimeMs > LOCK_STALE_MS) rmdirSync(LOCK);
    } catch {
      // Released meanwhile.
    }
    return false;
  }
}

/** Builds every bundle when `names` are missing or stale (one build at a time); throws when the build fails. */
export function ensureBundles(names: readonly string[] = ALL_BUNDLES): void {
  // A source saved while the build ran leaves a bundle older than it: built again, a few times at most.
  for (let builds = 0; ; ) {
    const why = whyRebuild(names);
    if (why === null) return;
    if (!takeLock()) {
      sleep(250);
      continue;
    }
    try {
      // Looked at again under the lock: another process may have built them meanwhile.
      const still = whyRebuild(names);
      if (still === null) return;
      const r = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
      if (r.status !== 0)
        throw new Error(`${still}, and \`node esbuild.mjs\` failed (status ${r.status}):\n${r.stdout}${r.stderr}`);
      const after = whyRebuild(names);
      if (after === null) return;
      if (++builds === 3) throw new Error(`\`node esbuild.mjs\` ran ${builds} times, yet ${after}`);
    } finally {
      rmdirSync(LOCK);
    }
  }
}

/** The path of dist bundle `name` (as 'runtime-host.js'), built first when it or any bundle is missing or stale. */
export function distBundle(name: string): string {
  ensureBundles();
  return join(DIST, name);
}

if (require.main === module) {
  const why = whyRebuild();
  ensureBundles();
  if (why !== null) console.log(`dist/ built again: ${why}`);
}
