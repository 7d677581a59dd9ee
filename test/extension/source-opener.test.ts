// Opening a position the host reported (extension/source-opener.ts) through the stub of the editor's API
// (debug/vscode-stub.ts): an absolute path of a file that exists, or a file: URI, opens in the column asked
// (the first by default) with its 1-based line selected (0-based to the editor, never below 0); `node:`
// frames, relative paths and missing files open nothing and say so.
import { stubWindow } from './debug/vscode-stub';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { isOpenablePath, openSourcePosition } from '../../extension/source-opener';

const HERE = __filename;

beforeEach(() => stubWindow.reset());

describe('openSourcePosition', () => {
  it('an existing absolute path or a file: URI opens at its line, in the column asked or the first', async () => {
    const opened = [
      await openSourcePosition({ file: HERE, line: 12, column: 3 }, 2),
      await openSourcePosition({ file: `file://${HERE}`, line: 1, column: 1 }),
      await openSourcePosition({ file: HERE, line: 0, column: 0 }),
    ];
    assert.deepEqual(opened, [true, true, true]);
    assert.deepEqual(stubWindow.opened, [
      { file: HERE, viewColumn: 2, line: 11 },
      { file: HERE, viewColumn: 1, line: 0 },
      { file: HERE, viewColumn: 1, line: 0 },
    ]);
    assert.deepEqual(stubWindow.shown, []);
  });

  it('node: frames, relative paths and missing files: nothing opened, said', async () => {
    const files = ['node:internal/timers', 'runtime/loop.ts', '/no/such/file.ts'];
    const opened = [];
    for (const file of files) opened.push(await openSourcePosition({ file, line: 3, column: 1 }));
    assert.deepEqual(opened, [false, false, false]);
    assert.deepEqual(stubWindow.opened, []);
    assert.deepEqual(
      stubWindow.shown,
      files.map((file) => ({ kind: 'warning', text: `Coroscope: no source file to open for ${file}` })),
    );
  });

  it('isOpenablePath: absolute, not node:, existing', () => {
    assert.deepEqual([HERE, 'node:fs', 'test/x.ts', '/no/such/file.ts'].map(isOpenablePath), [
      true,
      false,
      false,
      false,
    ]);
  });
});
