// Runs every *.test.ts under test/ (except the end-to-end suite, which has its own command)
// with node's test runner, TypeScript loaded through tsx. Prints node's pass/fail summary.
// Usage: node test/run-tests.mjs [filter...]  (a filter keeps files whose path contains it)
import { readdirSync, statSync } from 'node:fs';
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
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--enable-source-maps', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files],
  { cwd: root, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
