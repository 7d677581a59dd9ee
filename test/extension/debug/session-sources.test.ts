// extension/debug/session-sources.ts through the session's loadedSources request (in process, no run): the
// TypeScript files of the host bundle's source map, read next to the host script, its sourceRoot applied
// (absolute, or relative to the map): each existing .ts file once, in the map's order, named by its base
// name; node_modules, other extensions and missing files left out; no map or a bad one lists none.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import { initialize } from './adapter-harness';
import { DapClient } from './dap-client';
import { FakeRun, FakeRuns } from './fake-debug-host';

const ROOT = join(__dirname, '..', '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'coroscope-session-sources-'));
after(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'beside.ts'), 'export {};\n');

/** The sources the session lists for a host script whose map is `map` (none written: undefined). */
async function listed(name: string, map: string | undefined): Promise<Array<{ name?: string; path?: string }>> {
  const hostScript = join(dir, `${name}.js`);
  if (map !== undefined) writeFileSync(`${hostScript}.map`, map);
  const dap = DapClient.inProcess(
    new CoroscopeSession<FakeRun>({ hostScript, runs: new FakeRuns(new FakeRun('paused')) }),
  );
  try {
    await initialize(dap);
    const body = await dap.request<{ sources: DebugProtocol.Source[] }>('loadedSources', {});
    return body.sources.map((s) => ({ name: s.name, path: s.path }));
  } finally {
    await dap.close();
  }
}

describe('the loaded sources: the TypeScript files of the host bundle', () => {
  it('an absolute sourceRoot: the existing .ts files once, in order; node_modules, .js and missing ones left out', async () => {
    const map = JSON.stringify({
      version: 3,
      sourceRoot: ROOT,
      sources: [
        'runtime/task.ts',
        // Both exist: left out for where they are and what they are.
        'node_modules/@vscode/debugprotocol/lib/debugProtocol.d.ts',
        'runtime/loop.ts',
        'test/run-tests.mjs',
        'runtime/not-a-file.ts',
        'runtime/task.ts',
      ],
      mappings: '',
    });
    assert.deepEqual(await listed('absolute', map), [
      { name: 'task.ts', path: join(ROOT, 'runtime', 'task.ts') },
      { name: 'loop.ts', path: join(ROOT, 'runtime', 'loop.ts') },
    ]);
  });

  it("no sourceRoot: the sources are relative to the map's folder", async () => {
    const map = JSON.stringify({ version: 3, sources: ['beside.ts', '../elsewhere.ts'], mappings: '' });
    assert.deepEqual(await listed('relative', map), [{ name: 'beside.ts', path: join(dir, 'beside.ts') }]);
  });

  it('no map, or one that is not JSON or has no sources: none listed', async () => {
    assert.deepEqual(
      [await listed('none', undefined), await listed('bad', '{not json'), await listed('empty', '{"version":3}')],
      [[], [], []],
    );
  });
});
