// Tests of .dependency-cruiser.cjs, the layer rules `npm test` enforces (npm run lint:layers):
// the repository passes them, and fixtures that break a rule (a runtime core importing the inspector; a
// host worker importing the main thread, and so on) fail
// them with the rule's name (so the check can fail, and CI with it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..');
const config = join(root, '.dependency-cruiser.cjs');
const depcruise = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

function cruise(cwd: string, ...dirs: string[]): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, [depcruise, '--config', config, '--output-type', 'err', ...dirs], {
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

test('the repository keeps its layer rules', () => {
  const r = cruise(root, 'runtime', 'protocol', 'extension', 'webview');
  assert.equal(r.status, 0, r.output);
});

test('a runtime core file importing the inspector breaks core-stays-at-the-bottom', () => {
  const r = cruise(join(root, 'test', 'fixtures', 'layer-violation'), 'runtime');
  assert.notEqual(r.status, 0);
  assert.match(r.output, /core-stays-at-the-bottom: runtime\/lock\.ts → runtime\/inspect\/probe\.ts/);
});

test("the runtime host's places of execution: worker code importing the main thread, the main thread importing replay-host code, shared code importing the host's entry, break their rules", () => {
  const r = cruise(join(root, 'test', 'fixtures', 'host-place-violation'), 'runtime');
  assert.notEqual(r.status, 0);
  assert.match(
    r.output,
    /host-worker-not-into-the-main-thread: runtime\/host\/worker\/line-stop\.ts → runtime\/host\/main-thread\/run\.ts/,
  );
  assert.match(
    r.output,
    /host-main-thread-not-into-the-worker: runtime\/host\/main-thread\/seek\.ts → runtime\/host\/replay-host\/walk\.ts/,
  );
  assert.match(
    r.output,
    /host-replay-only-through-the-worker-entry: runtime\/host\/main-thread\/seek\.ts → runtime\/host\/replay-host\/walk\.ts/,
  );
  assert.match(
    r.output,
    /host-shared-belongs-to-no-thread: runtime\/host\/shared\/control\.ts → runtime\/host\/main-thread\/main\.ts/,
  );
  assert.match(
    r.output,
    /host-entries-are-not-imported: runtime\/host\/shared\/control\.ts → runtime\/host\/main-thread\/main\.ts/,
  );
});
