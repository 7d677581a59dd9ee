/**
 * Extension tests that run inside VS Code's extension host, with the real `vscode` API: the
 * module whose run() @vscode/test-electron (run.ts, VS Code desktop) or code-server's
 * `payload` (test/e2e/extension-host.e2e.ts) calls. Bundled by esbuild to
 * dist/test/electron-suite.js (`vscode` external) before it is handed to VS Code.
 *
 * It drives the extension through its commands only: a demo crawl paused at entry, a step, the
 * inspector panel as an editor tab, Stop; a tutorial sample; and the settings it declares.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'coroscope.coroscope';

async function until(what: string, probe: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function inspectorTabOpen(): boolean {
  return vscode.window.tabGroups.all.some((g) =>
    g.tabs.some((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('coroscope.inspector')),
  );
}

async function test(name: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
    console.log(`ok - ${name}`);
  } catch (e) {
    console.error(`not ok - ${name}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    throw e;
  }
}

export async function run(): Promise<void> {
  await test('the extension is installed and declares its commands and settings', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext !== undefined, `${EXTENSION_ID} is not installed`);
    // Lazy: nothing of it runs until something needs it.
    assert.equal(ext.isActive, false, 'activated before anything needed it');
    const t0 = Date.now();
    await ext.activate();
    console.log(`coroscope activated in ${Date.now() - t0} ms (as seen from the tests)`);
    const commands = await vscode.commands.getCommands(true);
    for (const id of [
      'coroscope.runCrawl',
      'coroscope.openInspector',
      'coroscope.pause',
      'coroscope.stepTick',
      'coroscope.continue',
      'coroscope.cancelTask',
      'coroscope.showTrace',
      'coroscope.openSample',
      'coroscope.stop',
    ]) {
      assert.ok(commands.includes(id), `command ${id}`);
    }
    const config = vscode.workspace.getConfiguration('coroscope');
    assert.equal(config.get('maxTasks'), 10);
    assert.equal(config.get('snapshotRate'), 4);
  });

  await test('Run Crawl on the demo site opens the inspector; step and stop', async () => {
    const config = vscode.workspace.getConfiguration('coroscope');
    await config.update('stopOnEntry', true, vscode.ConfigurationTarget.Global);
    await config.update('maxTasks', 5, vscode.ConfigurationTarget.Global);
    try {
      await vscode.commands.executeCommand('coroscope.runCrawl', 'demo');
      await until('the inspector tab', inspectorTabOpen);
      await vscode.commands.executeCommand('coroscope.stepTick');
      await vscode.commands.executeCommand('coroscope.continue');
      await vscode.commands.executeCommand('coroscope.stop');
    } finally {
      await config.update('stopOnEntry', undefined, vscode.ConfigurationTarget.Global);
      await config.update('maxTasks', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  await test('Open Tutorial Sample runs a sample by id and opens its source', async () => {
    await vscode.commands.executeCommand('coroscope.openSample', 'generators');
    await until('the sample source', () =>
      vscode.window.visibleTextEditors.some((e) => e.document.uri.path.endsWith('/runtime/samples/generators.ts')),
    );
    await vscode.commands.executeCommand('coroscope.stop');
  });
}
