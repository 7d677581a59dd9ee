// Runs every *.test.ts under test/ (except the end-to-end suite, which has its own command)
// with node's test runner, TypeScript loaded through tsx. Prints node's pass/fail summary.
// Usage: node test/run-tests.mjs [filter...]  (a filter keeps files whose path contains it)
// First it brings the dist/ bundles up to date when a source is newer (test/dist-bundles.ts), so
// a test never drives a stale build. The tests get a temp folder of their own (TMPDIR, which
// os.tmpdir() answers): a run that leaves files there fails, listing them. A folder of the run's
// own, not the system's, because other runs share the system's and would be blamed here.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);

function collect(dir, out) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name === 'e2e' || name === 'fixtures') continue;
      collect(path, out);
    } else if (name.endsWith('.test.ts')) {
      out.push(relative(root, path));
    }
  }
  return out;
}

const files = collect(join(root, 'test'), [])
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const bundles = spawnSync(process.execPath, ['--import', 'tsx', 'test/dist-bundles.ts'], {
  cwd: root,
  stdio: 'inherit',
});
if (bundles.status !== 0) {
  console.error('the dist/ bundles could not be built (above): no test ran');
  process.exit(1);
}

/** Every file and folder under `dir`, relative to it (a folder with entries is listed by its entries). */
function leftIn(dir, prefix = '') {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (prefix === '' && e.name === tsxCache) return [];
    const path = join(prefix, e.name);
    if (!e.isDirectory()) return [path];
    const inside = leftIn(join(dir, e.name), path);
    return inside.length > 0 ? inside : [`${path}/`];
  });
}

const temp = mkdtempSync(join(tmpdir(), 'coroscope-tests-'));
// tsx keeps its compile cache in the temp folder (tsx-<uid>): the system's one, linked, stays warm and is not listed.
const tsxCache = `tsx-${process.geteuid?.() ?? userInfo().username}`;
mkdirSync(join(tmpdir(), tsxCache), { recursive: true });
symlinkSync(join(tmpdir(), tsxCache), join(temp, tsxCache));
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--enable-source-maps', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files],
  { cwd: root, stdio: 'inherit', env: { ...process.env, TMPDIR: temp } },
);
// The per-user folder of inspect sockets (runtime/cli/inspect-socket-path.ts) stays by design, like
// $XDG_RUNTIME_DIR's: only a socket left in it counts.
const inspectDir = `coroscope-${process.getuid?.() ?? 0}/`;
const left = leftIn(temp).filter((f) => f !== inspectDir);
rmSync(temp, { recursive: true, force: true });
if (left.length > 0) {
  console.error(`the tests left ${left.length} file(s) in the temp folder (${temp}), each test removes its own:`);
  for (const f of left.slice(0, 50)) console.error(`  ${f}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
