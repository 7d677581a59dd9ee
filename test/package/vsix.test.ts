// The packaged extension (.vscodeignore, build-types.mjs), as `npm run package` makes it: it
// stays within 3 MB; it carries the bundled TypeScript transpiler, the runtime's declarations
// and the types they need; unpacked as VS Code installs it (no node_modules), its shipped
// sources type-check with its own tsconfig.json (no "Cannot find name 'Buffer'" when one is
// opened from a frame), and the starter program "New Coroutine Program" writes, in an empty
// folder with the tsconfig it writes, type-checks against those types (the import of
// "coroscope" resolves, with Node's console, require and module).
// Needs the bundles (npm run build); builds the types and packages into a temp folder.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { STARTER_PROGRAM, starterTsconfig } from '../../extension/new-program';
import { ensureBundles } from '../dist-bundles';

const ROOT = join(__dirname, '..', '..');
const MAX_BYTES = 3_000_000;
ensureBundles();

function run(command: string, args: readonly string[], cwd: string): { status: number | null; output: string } {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('the packaged .vsix', { timeout: 600_000 }, () => {
  let dir = '';
  let vsix = '';
  let entries: string[] = [];

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'coroscope-vsix-'));
    vsix = join(dir, 'coroscope.vsix');
    const types = run(process.execPath, ['build-types.mjs'], ROOT);
    assert.equal(types.status, 0, types.output);
    const packaged = run(
      process.execPath,
      [join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '--out', vsix],
      ROOT,
    );
    assert.equal(packaged.status, 0, packaged.output);
    const listed = run('unzip', ['-Z1', vsix], dir);
    assert.equal(listed.status, 0, listed.output);
    entries = listed.output.split('\n').filter((l) => l !== '');
    const unpacked = run('unzip', ['-q', vsix, '-d', join(dir, 'installed')], dir);
    assert.equal(unpacked.status, 0, unpacked.output);
  });
  after(() => {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it(`is at most ${MAX_BYTES} bytes and carries the transpiler and the types`, () => {
    const size = statSync(vsix).size;
    console.log(`coroscope.vsix: ${size} bytes, ${entries.length} entries`);
    assert.ok(size <= MAX_BYTES, `${size} bytes`);
    for (const e of [
      'extension/dist/typescript-transpiler.js',
      // The host's preload: the extension forks its host with it (host-process.ts).
      'extension/dist/runtime-host-preload.js',
      'extension/dist/types/coroscope/runtime/index.d.ts',
      'extension/dist/types/coroscope/runtime/lock.d.ts',
      'extension/dist/types/node_modules/@types/node/index.d.ts',
      'extension/dist/types/node_modules/htmlparser2/package.json',
      'extension/tsconfig.json',
      'extension/runtime/lock.ts',
    ]) {
      assert.ok(entries.includes(e), `${e} is not in the .vsix`);
    }
    assert.ok(!entries.some((e) => e.startsWith('extension/node_modules/')), 'no node_modules at the top');
  });

  it('its shipped sources type-check with its own tsconfig.json, as installed', () => {
    const extension = join(dir, 'installed', 'extension');
    const checked = run(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', join(extension, 'tsconfig.json')],
      extension,
    );
    assert.equal(checked.status, 0, checked.output.slice(0, 4000));
  });

  it('the starter program type-checks in an empty folder with the tsconfig the command writes', () => {
    const folder = join(dir, 'empty-folder');
    mkdirSync(folder);
    writeFileSync(join(folder, 'coroutines.ts'), STARTER_PROGRAM);
    writeFileSync(
      join(folder, 'tsconfig.json'),
      JSON.stringify(starterTsconfig(join(dir, 'installed', 'extension')), null, 2),
    );
    const checked = run(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', join(folder, 'tsconfig.json')],
      folder,
    );
    assert.equal(checked.status, 0, checked.output.slice(0, 4000));
    // And an error is one: the types are real, not `any`.
    writeFileSync(
      join(folder, 'wrong.ts'),
      "import { Lock } from 'coroscope';\nexport const held: string = new Lock().locked();\n",
    );
    const wrong = run(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', join(folder, 'tsconfig.json')],
      folder,
    );
    assert.notEqual(wrong.status, 0);
    assert.match(wrong.output, /wrong\.ts\(2,14\): error TS2322: Type 'boolean' is not assignable to type 'string'/);
  });
});
