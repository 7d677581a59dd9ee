// "Coroscope: New Coroutine Program" (extension/new-program-command.ts) through the stub of the editor's
// API (debug/vscode-stub.ts), writing into temp folders for real: with no folder open it refuses and writes
// nothing; in a folder it writes the starter under a free name, a tsconfig.json only where there is none
// (else says what to add), the launch configuration once (and the version where there is none), then
// opens the program, puts a breakpoint on main's first line and debugs it; a build without the shipped
// types says so; among several folders the one picked (none: refused).
import { StubUri, stubWindow } from './debug/vscode-stub';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import { newCoroutineProgram } from '../../extension/new-program-command';
import {
  programLaunchConfiguration,
  STARTER_FIRST_LINE,
  STARTER_PROGRAM,
  starterTsconfig,
} from '../../extension/new-program';

const root = mkdtempSync(join(tmpdir(), 'coroscope-new-program-'));
after(() => rmSync(root, { recursive: true, force: true }));
let made = 0;

/** A fresh folder under the temp root, holding `files`. */
function folder(files: Record<string, string> = {}): { uri: StubUri; name: string; index: number } {
  const dir = join(root, `f${++made}`);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { uri: StubUri.file(dir), name: `f${made}`, index: 0 };
}

/** An extension folder, with the shipped types or without (a development build). */
function extension(withTypes: boolean): string {
  const dir = join(root, `ext${++made}`);
  const types = join(dir, 'dist', 'types', 'coroscope', 'runtime');
  mkdirSync(withTypes ? types : dir, { recursive: true });
  if (withTypes) writeFileSync(join(types, 'index.d.ts'), 'export {};\n');
  return dir;
}

const NO_FOLDER = {
  kind: 'error',
  text: 'Coroscope: open a folder first (File > Open Folder…): the new program, its tsconfig.json and its launch configuration are written into it.',
};

beforeEach(() => stubWindow.reset());

describe('New Coroutine Program', () => {
  it('no folder open: refused, nothing written', async () => {
    await newCoroutineProgram(extension(true));
    assert.deepEqual(stubWindow.shown, [NO_FOLDER]);
    assert.deepEqual(stubWindow.startedDebugging, []);
  });

  it('an empty folder: the starter, its tsconfig, its launch configuration; opened, broken on, debugged', async () => {
    const ext = extension(true);
    const f = folder();
    stubWindow.folders = [f];
    await newCoroutineProgram(ext);
    const dir = f.uri.fsPath;
    assert.deepEqual(readdirSync(dir).sort(), ['coroutines.ts', 'tsconfig.json']);
    assert.equal(readFileSync(join(dir, 'coroutines.ts'), 'utf8'), STARTER_PROGRAM);
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8')), starterTsconfig(ext));
    const config = programLaunchConfiguration('coroutines.ts');
    assert.deepEqual(stubWindow.launchUpdates, [
      { key: 'version', value: '0.2.0', target: 3 },
      { key: 'configurations', value: [config], target: 3 },
    ]);
    assert.deepEqual(stubWindow.opened, [{ file: join(dir, 'coroutines.ts'), viewColumn: undefined, line: null }]);
    assert.deepEqual(stubWindow.breakpoints, [{ file: join(dir, 'coroutines.ts'), line: STARTER_FIRST_LINE - 1 }]);
    assert.deepEqual(stubWindow.startedDebugging, [config]);
    assert.deepEqual(stubWindow.shown, []);
  });

  it("a folder's own files kept: a free name, its tsconfig left (what to add said), its launch list added to", async () => {
    const f = folder({ 'coroutines.ts': 'mine', 'tsconfig.json': '{"mine":true}' });
    stubWindow.folders = [f];
    const other = { type: 'node', request: 'launch', name: 'Mine', program: 'x.js' };
    stubWindow.launch.set('version', '0.2.0');
    stubWindow.launch.set('configurations', [other]);
    const ext = extension(true);
    await newCoroutineProgram(ext);
    const dir = f.uri.fsPath;
    assert.deepEqual(
      [readFileSync(join(dir, 'coroutines.ts'), 'utf8'), readFileSync(join(dir, 'tsconfig.json'), 'utf8')],
      ['mine', '{"mine":true}'],
    );
    assert.equal(readFileSync(join(dir, 'coroutines-2.ts'), 'utf8'), STARTER_PROGRAM);
    assert.deepEqual(stubWindow.launchUpdates, [
      { key: 'configurations', value: [other, programLaunchConfiguration('coroutines-2.ts')], target: 3 },
    ]);
    const options = starterTsconfig(ext).compilerOptions as Record<string, unknown>;
    assert.deepEqual(stubWindow.shown, [
      {
        kind: 'info',
        text: `Coroscope: this folder has its own tsconfig.json, left as it is. For the types of "coroscope", add to its compilerOptions: "paths": ${JSON.stringify(options.paths)}, and "typeRoots": ${JSON.stringify(options.typeRoots)} if it has no @types/node.`,
      },
    ]);
  });

  it('its launch configuration there already: not added again; a jsconfig.json counts as a tsconfig', async () => {
    const f = folder({ 'jsconfig.json': '{}' });
    stubWindow.folders = [f];
    stubWindow.launch.set('configurations', [programLaunchConfiguration('coroutines.ts')]);
    await newCoroutineProgram(extension(true));
    assert.deepEqual(stubWindow.launchUpdates, []);
    assert.equal(existsSync(join(f.uri.fsPath, 'tsconfig.json')), false);
    assert.deepEqual(
      stubWindow.shown.map((m) => m.kind),
      ['info'],
    );
  });

  it('a build without the shipped types says so, and goes on', async () => {
    const ext = extension(false);
    stubWindow.folders = [folder()];
    await newCoroutineProgram(ext);
    assert.deepEqual(stubWindow.shown, [
      {
        kind: 'warning',
        text: `Coroscope: this build of the extension has no types in ${join(ext, 'dist', 'types')}: run npm run build:types there for "coroscope" to resolve in the editor.`,
      },
    ]);
    assert.equal(stubWindow.startedDebugging.length, 1);
  });

  it('several folders: the one picked; none picked: refused', async () => {
    const a = folder();
    const b = folder();
    stubWindow.folders = [a, b, { uri: new StubUri('vscode-vfs', '/remote'), name: 'remote', index: 2 }];
    stubWindow.folderPick = b;
    await newCoroutineProgram(extension(true));
    assert.deepEqual(
      [readdirSync(a.uri.fsPath), readdirSync(b.uri.fsPath).sort()],
      [[], ['coroutines.ts', 'tsconfig.json']],
    );
    stubWindow.folderPick = undefined;
    await newCoroutineProgram(extension(true));
    assert.deepEqual(stubWindow.shown, [NO_FOLDER]);
  });

  it('a folder that is not a local one is not offered: only the local one is used', async () => {
    const local = folder();
    stubWindow.folders = [{ uri: new StubUri('vscode-vfs', '/remote'), name: 'remote', index: 0 }, local];
    await newCoroutineProgram(extension(true));
    assert.deepEqual(readdirSync(local.uri.fsPath).sort(), ['coroutines.ts', 'tsconfig.json']);
  });
});
