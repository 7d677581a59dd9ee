/**
 * A new user's first minutes, end to end: a fresh code-server with VS Code's own defaults (no
 * settings file at all, so the Welcome page is open as on a first start), the packaged .vsix
 * installed with --install-extension, and from the UI only: the command palette, "Coroscope:
 * Run Crawl…", Enter (the embedded demo site); the panel shows live tasks suspended on the
 * demo site's network-like latency; Pause; a worker is selected and its coroutine stack shows
 * work → fetch with TypeScript file names and lines.
 *
 * The quick pick must stay open until Enter: with the Welcome page open, VS Code's
 * walkthrough takes the focus back 250 ms after the palette closes (extension/
 * focus-safe-quick-pick.ts says why), which used to hide it at once, so nothing ran.
 *
 * Run: node --import tsx --test test/e2e/first-start.e2e.ts   (after test/e2e/setup/install-code-server.sh)
 * Set E2E_SKIP_PACKAGE=1 to reuse an existing coroscope.vsix.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { runCommand, screenshot, until } from './support/browser';
import {
  inspectorPanel,
  panelPhase,
  RUN_CRAWL_INPUT,
  stackFrameNames,
  taskRows,
  waitForPanelPhase,
} from './support/inspector-panel';
import { useWorkbenchSuite } from './support/workbench-suite';

/**
 * How long the Run Crawl quick pick must stay open, focused, before Enter (the Welcome page's focus comes
 * back within 250 ms).
 */
const STAYS_OPEN_MS = 1500;

describe("a new user's first start: VS Code's defaults, the Welcome page, Run Crawl from the palette (code-server)", {
  timeout: 300_000,
}, () => {
  const suite = useWorkbenchSuite({
    name: 'first-start',
    files: { 'notes.md': "# A new user's workspace\n" },
    installExtension: true,
    noSettingsFile: true,
    viewport: { width: 1600, height: 900 },
  });
  const { page, step } = suite;

  step('starts as a new user finds it: no settings file, the Welcome page open', async () => {
    assert.equal(
      existsSync(join(suite.server().userDataDir, 'User', 'settings.json')),
      false,
      'a settings file was written',
    );
    await page()
      .locator('.tabs-container .tab', { hasText: /Welcome|Walkthrough/ })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    await screenshot(page(), 'first-start-welcome');
  });

  step('palette → "Coroscope: Run Crawl…": its quick pick stays open and focused until Enter', async () => {
    await runCommand(page(), 'Coroscope: Run Crawl…');
    const input = page().locator(RUN_CRAWL_INPUT);
    await input.waitFor({ state: 'visible', timeout: 30_000 });
    // Open and holding the focus for STAYS_OPEN_MS in a row, as a person reads it before pressing Enter.
    let since: number | null = null;
    await until(
      `the Run Crawl quick pick to stay open and focused for ${STAYS_OPEN_MS} ms`,
      async () => {
        const focused =
          (await input.isVisible()) &&
          (await input.evaluate((el) => el === el.ownerDocument.activeElement).catch(() => false));
        if (!focused) {
          since = null;
          return false;
        }
        since ??= Date.now();
        return Date.now() - since >= STAYS_OPEN_MS;
      },
      15_000,
    );
    await page().keyboard.press('Enter');
  });

  step('Enter runs the demo crawl: the panel shows live tasks, most of them suspended', async () => {
    const frame = await inspectorPanel(page());
    await until(
      'the run to be running with its workers',
      async () => {
        const r = await taskRows(frame);
        return (await panelPhase(frame)) === 'running' && r.filter((x) => /^worker-\d+$/.test(x.name)).length >= 10;
      },
      30_000,
    );
    assert.match(await frame.locator('.run-title').innerText(), /Crawl of the demo site/);
    const r = await taskRows(frame);
    assert.ok(
      r.filter((x) => x.state === 'suspended').length >= 5,
      `tasks: ${r.map((x) => `${x.name} ${x.state}`).join(', ')}`,
    );
    await screenshot(page(), 'first-start-running');
  });

  step('Pause holds the crawl mid-way', async () => {
    const frame = await inspectorPanel(page());
    await frame.locator('button[data-action="pause"]').click();
    await waitForPanelPhase(frame, 'paused', 15_000);
    const r = await taskRows(frame);
    assert.ok(
      r.some((x) => /^worker-\d+$/.test(x.name) && x.state === 'suspended'),
      'no suspended worker at the pause',
    );
  });

  step("a selected worker's coroutine stack shows work → fetch with TypeScript lines", async () => {
    const frame = await inspectorPanel(page());
    const workers = (await taskRows(frame)).filter((x) => /^worker-\d+$/.test(x.name) && x.state === 'suspended');
    let shown: string[] = [];
    for (const w of workers) {
      await frame.locator(`.vrows .task-row[data-id="${w.id}"]`).click();
      await frame.locator('.detail-title', { hasText: w.name }).waitFor();
      await until(
        `frames of ${w.name}`,
        async () => (await frame.locator('.stack-section .frame-list .frame .frame-pos').count()) >= 2,
        15_000,
      );
      shown = await stackFrameNames(frame);
      if (shown.includes('fetch')) break;
    }
    assert.ok(
      shown.includes('work') && shown.includes('fetch'),
      `no worker in fetch; last stack: ${shown.join(' › ')}`,
    );
    for (const name of ['work', 'fetch']) {
      const f = frame
        .locator('.stack-section .frame-list .frame', {
          has: frame.locator('.frame-name', { hasText: new RegExp(`^${name}$`) }),
        })
        .first();
      assert.match(
        await f.locator('.frame-pos').innerText(),
        /^crawler\.ts:\d+$/,
        `${name} has no TypeScript position`,
      );
      assert.ok(Number(await f.getAttribute('data-line')) > 0);
    }
    await screenshot(page(), 'first-start-worker-stack');
  });

  suite.leftNoExtensionErrors();
});
