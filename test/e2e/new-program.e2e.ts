/**
 * Issue 27, a new user's own program from an empty folder: a fresh code-server with VS Code's
 * defaults, the packaged .vsix installed, an empty workspace; the palette's "Coroscope: New
 * Coroutine Program" opens coroutines.ts and debugs it stopped on main's first line; the
 * import of "coroscope" has IntelliSense (the hover of Queue is the runtime's constructor) and the
 * Problems are none; Stop, then F5 (the launch configuration the command wrote) stops on that
 * line again.
 *
 * Run: node --import tsx --test test/e2e/new-program.e2e.ts   (after test/e2e/setup/install-code-server.sh)
 * Set E2E_SKIP_PACKAGE=1 to reuse an existing coroscope.vsix.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { STARTER_FIRST_LINE } from '../../extension/new-program';
import { runCommand, screenshot, until } from './support/browser';
import { editorOf, focusEditor, waitForCurrentLine } from './support/line-debugging';
import { useWorkbenchSuite } from './support/workbench-suite';

const PROGRAM = 'coroutines.ts';

describe('New Coroutine Program from an empty folder (code-server)', { timeout: 300_000 }, () => {
  const suite = useWorkbenchSuite({ name: 'new-program', files: {}, installExtension: true, noSettingsFile: true, viewport: { width: 1600, height: 900 } });
  const { page, step } = suite;

  step('the palette\'s "Coroscope: New Coroutine Program" opens the program, debugged, stopped on main\'s first line', async () => {
    // As a person starts: once the workbench has opened its Welcome page.
    await page().locator('.tabs-container .tab', { hasText: /Welcome|Walkthrough/ }).first().waitFor({ state: 'visible', timeout: 30_000 });
    const started = Date.now();
    await runCommand(page(), 'Coroscope: New Coroutine Program');
    await page().locator(`.tabs-container .tab[data-resource-name="${PROGRAM}"]`).first().waitFor({ state: 'visible', timeout: 30_000 });
    await waitForCurrentLine(page(), PROGRAM, STARTER_FIRST_LINE, 60_000);
    console.log(`New Coroutine Program to the first stop: ${Date.now() - started} ms`);
    const workspace = suite.server().workspace;
    for (const f of [PROGRAM, 'tsconfig.json', join('.vscode', 'launch.json')]) assert.ok(existsSync(join(workspace, f)), `${f} was not written`);
    assert.match(readFileSync(join(workspace, '.vscode', 'launch.json'), 'utf8'), /"program": "\$\{workspaceFolder\}\/coroutines\.ts"/);
    await screenshot(page(), 'new-program-stopped');
  });

  step('"coroscope" resolves: the hover of Queue is the runtime\'s constructor, and there are no Problems', async () => {
    await focusEditor(page(), PROGRAM);
    await page().keyboard.press('Control+G');
    const input = page().locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(`:${STARTER_FIRST_LINE}:22`);
    await page().keyboard.press('Enter');
    await input.waitFor({ state: 'hidden' });
    await until('the hover of Queue to show the runtime\'s constructor', async () => {
      await page().keyboard.press('Control+K');
      await page().keyboard.press('Control+I');
      const hover = page().locator('.monaco-hover:visible');
      const text = (await hover.count()) > 0 ? await hover.first().innerText() : '';
      // TypeScript's hover of the constructor: the runtime's signature, not `any`.
      return /new Queue<string \| null>\(maxsize\?: number\): Queue<string \| null>/.test(text) ? text : false;
    }, 60_000);
    await page().keyboard.press('Escape');
    const problems = page().locator('[id="status.problems"]').first();
    const label = await problems.getAttribute('aria-label');
    assert.match(label ?? '', /No Problems/, `the Problems: ${label ?? '(none shown)'}`);
    assert.equal(await editorOf(page(), PROGRAM).locator('.squiggly-error').count(), 0, 'an error is underlined');
  });

  step('Stop, then F5 runs the launch configuration it wrote: stopped on that line again', async () => {
    await page().keyboard.press('Shift+F5');
    await page().locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 30_000 });
    await focusEditor(page(), PROGRAM);
    await page().keyboard.press('F5');
    await waitForCurrentLine(page(), PROGRAM, STARTER_FIRST_LINE, 60_000);
    await screenshot(page(), 'new-program-f5');
    await page().keyboard.press('Shift+F5');
  });

  suite.leftNoExtensionErrors();
});
