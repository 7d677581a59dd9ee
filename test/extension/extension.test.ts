// Activation (extension/extension.ts) through the stub of the editor's API (debug/vscode-stub.ts):
// every command id registered, and the panel's serializer, with nothing created (no output channel,
// status bar item, decoration, no commands.ts loaded); the debugger registered only when package.json
// declares it (debugger-declared.ts), its failure not failing activation; all of it
// disposed with the context; deactivate() ends cleanly with no run started.
import { stubDebug, stubWindow, StubUri } from './debug/vscode-stub';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type * as vscode from 'vscode';
import { COMMANDS, PANEL_VIEW_TYPE } from '../../extension/command-ids';
import { PICK_RUN_COMMAND } from '../../extension/debug/debug-configurations';
import { debuggerDeclared } from '../../extension/debugger-declared';
import { activate, activationMs, deactivate } from '../../extension/extension';

/** An extension context as activate() reads it, its package.json declaring the debugger or not. */
function contextOf(declaresDebugger: boolean): { subscriptions: Array<{ dispose(): void }> } & Record<string, unknown> {
  return {
    subscriptions: [],
    extensionUri: StubUri.file('/ext'),
    extension: { packageJSON: { contributes: declaresDebugger ? { debuggers: [{ type: 'coroscope' }] } : {} } },
  };
}

let context: ReturnType<typeof contextOf> | null = null;

function activated(declaresDebugger: boolean): ReturnType<typeof contextOf> {
  context = contextOf(declaresDebugger);
  activate(context as unknown as vscode.ExtensionContext);
  return context;
}

/** Whether a module of the extension has been loaded in this process. */
const loaded = (file: string): boolean => Object.keys(require.cache).some((k) => k.endsWith(`/extension/${file}`));

beforeEach(() => stubWindow.reset());
afterEach(async () => {
  for (const d of context?.subscriptions ?? []) d.dispose();
  context = null;
  await deactivate();
});

describe('debuggerDeclared', () => {
  it('only an object whose contributes holds a debuggers array declares it', () => {
    assert.deepEqual(
      [
        { contributes: { debuggers: [] } },
        { contributes: { debuggers: [{ type: 'coroscope' }] } },
        { contributes: { debuggers: {} } },
        { contributes: {} },
        { contributes: null },
        { contributes: 'debuggers' },
        {},
        null,
        undefined,
        'package.json',
      ].map(debuggerDeclared),
      [true, true, false, false, false, false, false, false, false, false],
    );
  });
});

describe('activation', () => {
  it('registers every command id and the serializer, and creates nothing', () => {
    const ctx = activated(false);
    assert.deepEqual([...stubWindow.commands.keys()].sort(), Object.values(COMMANDS).sort());
    assert.deepEqual([...stubWindow.serializers.keys()], [PANEL_VIEW_TYPE]);
    assert.equal(stubDebug.adapterFactories.size, 0, 'no debugger without its declaration');
    assert.deepEqual(
      [stubWindow.channels.length, stubWindow.statusItems.length, stubWindow.decorationTypes.length],
      [0, 0, 0],
    );
    assert.deepEqual([loaded('extension.ts'), loaded('commands.ts')], [true, false], 'the commands load on first call');
    assert.ok(activationMs >= 0);
    for (const d of ctx.subscriptions) d.dispose();
    context = null;
    assert.deepEqual([stubWindow.commands.size, stubWindow.serializers.size], [0, 0]);
  });

  it('registers the debugger when package.json declares it', () => {
    activated(true);
    assert.deepEqual([...stubDebug.adapterFactories.keys()], ['coroscope']);
    assert.ok(stubWindow.commands.has(PICK_RUN_COMMAND));
    assert.ok(
      Object.values(COMMANDS).every((id) => stubWindow.commands.has(id)),
      'the commands as without the debugger',
    );
  });

  it('a debugger that fails to register does not fail activation; the commands stay', () => {
    stubWindow.commands.set(PICK_RUN_COMMAND, () => undefined);
    activated(true);
    // What registerDebugger made before it failed is not in the context: the stub's registries are cleared here.
    stubDebug.adapterFactories.clear();
    stubDebug.configurationProviders.length = 0;
    assert.ok(Object.values(COMMANDS).every((id) => stubWindow.commands.has(id)));
  });
});
