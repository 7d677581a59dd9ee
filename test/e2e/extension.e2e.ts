/**
 * The Coroscope extension end to end, as a user meets it: the packaged .vsix installed into a
 * real VS Code (code-server 4.100.3) driven in Debian's Chromium through playwright-core.
 *
 * It builds and packages the extension (`npm run package`), installs the .vsix, and then, from
 * the command palette and the inspector panel only: runs "Coroscope: Run Crawl…" against the
 * embedded demo site (paused at entry by a setting), steps the loop and sees the table change,
 * opens a task's coroutine stack, clicks a frame and lands in the TypeScript source at that
 * line (a file of the installed extension), continues to the end of the crawl, reads the
 * coroutine traceback beside the callback trace, checks that strings from crawled pages are
 * shown as text, kills the runtime host and sees the panel and a notification say so, runs
 * again on a fresh host, and reloads the window to find the panel as it was left.
 * Screenshots of the panel in the dark and the light theme go to .test-artifacts/e2e/.
 *
 * Run: node --import tsx --test test/e2e/extension.e2e.ts   (after test/e2e/setup/install-code-server.sh)
 * Set E2E_SKIP_PACKAGE=1 to reuse an existing coroscope.vsix.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { describe } from 'node:test';
import type { Frame } from 'playwright-core';
import {
  clearNotifications,
  runCommand,
  screenshot,
  setColorTheme,
  waitForNotification,
  waitForWorkbench,
  until,
} from './support/browser';
import { runtimeHostPids } from './support/code-server';
import {
  inspectorPanel,
  selectTask,
  startDemoCrawl,
  stepUntilSuspended,
  waitForPanelPhase,
} from './support/inspector-panel';
import { useWorkbenchSuite } from './support/workbench-suite';

/** The demo site's /titles/markup/ title (runtime/demo-site/site-model.ts MARKUP_TITLE_TEXT). */
const MARKUP_TITLE_TEXT = '<img src=x onerror=alert(1)> & "quotes"';

describe('Coroscope extension in VS Code (code-server)', { timeout: 420_000 }, () => {
  const suite = useWorkbenchSuite({
    name: 'extension',
    files: { 'notes.md': '# Coroscope end-to-end workspace\n' },
    installExtension: true,
    settings: {
      'workbench.colorTheme': 'Default Dark Modern',
      'coroscope.stopOnEntry': true,
      'coroscope.maxTasks': 10,
      'coroscope.snapshotRate': 10,
      'workbench.editor.enablePreview': false,
    },
    viewport: { width: 1600, height: 900 },
    // Room for the panel: no side bar.
    hideSideBar: true,
  });
  const { page, step } = suite;

  function extensionsDir(): string {
    return suite.server().extensionsDir;
  }
  function panel(): Promise<Frame> {
    return inspectorPanel(page());
  }
  function waitPhase(frame: Frame, wanted: string | RegExp, timeoutMs = 30_000): Promise<void> {
    return waitForPanelPhase(frame, wanted, timeoutMs);
  }
  function hideToasts(): Promise<void> {
    return clearNotifications(page());
  }
  async function rowCount(frame: Frame): Promise<number> {
    return frame.locator('.vrows .task-row:not([hidden])').count();
  }
  /** The workers start at the crawl task's first step and run to their first await. */
  async function stepUntilWorkerSuspended(frame: Frame): Promise<void> {
    await stepUntilSuspended(frame, 'worker-1');
  }
  async function selectWorker1(frame: Frame): Promise<void> {
    await selectTask(frame, 'worker-1');
    await until(
      'frames of worker-1',
      async () => (await frame.locator('.stack-section .frame-list .frame').count()) >= 2,
    );
  }
  function runCrawl(): Promise<Frame> {
    return startDemoCrawl(page());
  }

  step('is installed and lazy: no runtime host before the first command', async () => {
    assert.deepEqual(runtimeHostPids(extensionsDir()), []);
  });

  step('runs "Coroscope: Run Crawl…" on the demo site and lists its tasks (paused at entry)', async () => {
    const frame = await runCrawl();
    await waitPhase(frame, 'paused');
    await until('the first task row', async () => (await rowCount(frame)) >= 1);
    assert.match(await frame.locator('.run-title').innerText(), /Crawl of the demo site/);
    assert.equal(runtimeHostPids(extensionsDir()).length, 1, 'one runtime host runs');
    // The crawl's progress notification (with its Cancel button) and the status bar item.
    await page()
      .locator('.notifications-toasts .notification-toast', { hasText: 'Coroscope: Crawl of the demo site' })
      .waitFor();
    await page()
      .locator('.statusbar-item', { hasText: /tasks? · paused/ })
      .waitFor();
    await screenshot(page(), 'extension-dark-started');
  });

  step('activation is light: ≤ 100 ms (its own clock, in the output channel)', async () => {
    // VS Code's own figure first (it includes waiting for the extension host while the other
    // extensions start, so it is logged, not asserted).
    await runCommand(page(), 'Developer: Show Running Extensions');
    const row = page().locator('.runtime-extensions-editor .monaco-list-row', { hasText: 'Coroscope' });
    await row.waitFor({ timeout: 15_000 });
    const vscodeText = (await row.innerText()).replace(/\s+/g, ' ');
    await page().locator('.tabs-container .tab.active .action-label.codicon-close').click();
    await (await panel()).locator('.phase-badge[data-phase="paused"]').waitFor();
    // The extension's own clock: its modules evaluating, then activate().
    await runCommand(page(), 'Coroscope: Show Log');
    const lines = page().locator('.part.panel .monaco-editor .view-lines');
    await lines.filter({ hasText: 'activated in' }).waitFor({ timeout: 15_000 });
    const text = (await lines.innerText()).replace(/\u00a0/g, ' ');
    const m = /activated in ([\d.]+) ms \(modules ([\d.]+) ms, activate\(\) ([\d.]+) ms\)/.exec(text);
    assert.ok(m !== null, `no activation line in: ${text}`);
    console.log(`activation of Coroscope: ${m[0]}; VS Code's Running Extensions says: ${vscodeText}`);
    await runCommand(page(), 'View: Toggle Panel Visibility');
    await page().locator('.part.panel').waitFor({ state: 'hidden' });
    assert.ok(Number(m[1]) <= 100, `activation took ${m[1]} ms`);
  });

  step('step tick changes what the panel shows', async () => {
    const frame = await panel();
    const before = await rowCount(frame);
    const tick0 = await frame.locator('.run-detail').innerText();
    await stepUntilWorkerSuspended(frame);
    assert.notEqual(await frame.locator('.run-detail').innerText(), tick0);
    assert.ok((await rowCount(frame)) > before, 'the workers appeared in the table');
  });

  step("shows a task's coroutine stack and locals", async () => {
    const frame = await panel();
    await selectWorker1(frame);
    const names = await frame.locator('.stack-section .frame-list .frame .frame-name').allInnerTexts();
    assert.ok(names.includes('work'), `frames: ${names.join(', ')}`);
    await frame.locator('.locals-section .var-row').first().waitFor();
  });

  step('step task runs the selected task until it suspends again', async () => {
    const frame = await panel();
    const steps = async (): Promise<string> => frame.locator('.vrows .task-row.selected .c-steps').innerText();
    const s0 = await steps();
    await frame.locator('.loop-controls button[data-action="stepTask"]').click();
    await until('the steps of worker-1 to change', async () => (await steps()) !== s0);
  });

  step('clicking a frame opens the TypeScript source of the installed extension at that line', async () => {
    const frame = await panel();
    const work = frame.locator('.stack-section .frame-list .frame', {
      has: frame.locator('.frame-name', { hasText: /^work$/ }),
    });
    const line = Number(await work.getAttribute('data-line'));
    assert.ok(line > 0);
    await work.click();
    const tab = page().locator('.tabs-container .tab.active[data-resource-name="crawler.ts"]');
    await tab.waitFor({ state: 'visible' });
    const selection = page().locator('[id="status.editor.selection"]');
    await until(`the cursor on line ${line}`, async () => new RegExp(`Ln ${line},`).test(await selection.innerText()));
    // The file opened is the one inside the installed extension (its breadcrumbs show the path).
    const crumbs = (await page().locator('.editor-group-container.active .breadcrumbs-control').innerText()).replace(
      /\s+/g,
      ' ',
    );
    assert.match(crumbs, /coroscope\.coroscope-[\d.]+ runtime crawler crawler\.ts/);
    // The line where tasks are suspended now is marked: its hover counts them.
    const suspendedLine = page().locator('.editor-group-container.active .monaco-editor .view-line', {
      hasText: 'yield* this.fetch(',
    });
    let attempt = 0;
    await until(
      'the suspension hover',
      async () => {
        // Move the mouse a little each time: a hover only comes with a mouse move.
        await page().mouse.move(0, 0);
        await suspendedLine.hover({ position: { x: 60 + (attempt++ % 4) * 25, y: 6 } });
        // VS Code shows a hover some time after the mouse stops (editor.hover.delay); a loaded machine takes longer.
        return page()
          .locator('.monaco-hover', { hasText: /tasks? suspended at this line/ })
          .first()
          .waitFor({ state: 'visible', timeout: 5_000 })
          .then(
            () => true,
            () => false,
          );
      },
      30_000,
    );
    await page().keyboard.press('Escape');
  });

  step('F10 steps one tick (a keybinding while the loop is paused)', async () => {
    const frame = await panel();
    const tick = async (): Promise<number> =>
      Number(/tick (\d+)/.exec(await frame.locator('.run-detail').innerText())?.[1] ?? -1);
    const before = await tick();
    await page().locator('.editor-group-container.active .monaco-editor .view-lines').click();
    await page().keyboard.press('F10');
    await until('the tick to advance', async () => (await tick()) > before);
  });

  step('dark theme: screenshots of the paused crawl (tasks beside the source, await graph)', async () => {
    const frame = await panel();
    await frame.locator('.stack-section .frame-list .frame').first().waitFor();
    const path = await screenshot(page(), 'extension-dark-tasks');
    assert.ok(statSync(path).size > 20_000);
    // The next ones without the crawl's progress notification: "Do Not Disturb" keeps only
    // errors (a dying host still shows).
    await runCommand(page(), 'Notifications: Toggle Do Not Disturb Mode');
    await hideToasts();
    await frame.locator('.tab[data-view="graph"]').click();
    await frame.locator('.graph-canvas svg .node-task').first().waitFor();
    assert.ok((await frame.locator('.graph-canvas svg .node-task').count()) >= 10, 'the graph draws the tasks');
    await hideToasts();
    await screenshot(page(), 'extension-dark-graph');
    await frame.locator('.tab[data-view="tasks"]').click();
  });

  let dashboardErrors = -1;
  step('continue runs the crawl to its end; the dashboard shows it', async () => {
    const frame = await panel();
    await frame.locator('button[data-action="continue"]').click();
    await waitPhase(frame, 'finished', 90_000);
    await frame.locator('.tab[data-view="dashboard"]').click();
    await frame.locator('.dashboard .card-done .card-value').waitFor();
    const done = Number((await frame.locator('.dashboard .card-done .card-value').innerText()).replace(/,/g, ''));
    assert.ok(done > 10, `pages done: ${done}`);
    dashboardErrors = Number(
      await frame
        .locator('.dashboard .card', { has: frame.locator('.card-label', { hasText: /^errors$/ }) })
        .locator('.card-value')
        .innerText(),
    );
    await frame.locator('.dashboard svg.chart path.chart-line').waitFor({ state: 'attached' });
    await hideToasts();
    await screenshot(page(), 'extension-dark-dashboard');
  });

  step('the exception view shows the coroutine traceback and the callback trace side by side', async () => {
    const frame = await panel();
    await frame.locator('.tab[data-view="exceptions"]').click();
    const coroutine = frame.locator('.trace-pair .trace-column[data-trace="coroutine"]');
    const callback = frame.locator('.trace-pair .trace-column[data-trace="callback"]');
    await coroutine.waitFor({ timeout: 30_000 });
    await callback.waitFor();
    assert.ok((await coroutine.locator('.trace-frame').count()) >= 2);
    assert.ok((await callback.locator('.trace-frame').count()) >= 1);
    assert.match(await coroutine.locator('.trace-error').innerText(), /\w+Error/);
    // The frames each trace lacks are marked.
    assert.ok(
      (await coroutine.locator('.trace-frame.only-here').count()) >= 1,
      'coroutine frames missing from the callback trace are marked',
    );
    await frame.locator('.exception-list-host .section-title').first().waitFor();
    // This run's own failure, on its own demo site, and as many failed URLs as the dashboard counted.
    assert.match(
      await frame.locator('.trace-intro').innerText(),
      /^The failure of this run at http:\/\/127\.0\.0\.1:\d+\/broken\//,
    );
    assert.ok(dashboardErrors >= 1, `the dashboard counted ${dashboardErrors} errors`);
    assert.equal(
      await frame.locator('.failed-urls-title').textContent(),
      `URLs that failed in this run (${dashboardErrors})`,
    );
    assert.equal(await frame.locator('.failed-url-list .failed-url').count(), dashboardErrors);
    await hideToasts();
    await screenshot(page(), 'extension-dark-exceptions');
  });

  step("strings from crawled pages show as text (the demo site's title with markup)", async () => {
    const frame = await panel();
    // Nothing from a page became markup in the panel: no image, no dialog.
    assert.equal(await frame.locator('img').count(), 0);
    assert.deepEqual(suite.workbench().dialogs, []);
    await frame.locator('.tab[data-view="dashboard"]').click();
    // The crawled pages (CrawlProgress.recent) list /titles/markup/; its title is shown as text.
    const row = frame.locator('.pages-table tr', {
      has: frame.locator('.page-url', { hasText: /\/titles\/markup\/$/ }),
    });
    await row.waitFor({ timeout: 15_000 });
    const title = await row.locator('.page-title').innerText();
    assert.equal(await row.locator('.page-title *').count(), 0, 'the title cell holds text only');
    assert.equal(title, MARKUP_TITLE_TEXT);
  });

  step('light theme: screenshots of a paused crawl', async () => {
    await setColorTheme(page(), 'Default Light Modern', 'light');
    const frame = await runCrawl();
    await waitPhase(frame, 'paused');
    await frame.locator('.tab[data-view="tasks"]').click();
    await stepUntilWorkerSuspended(frame);
    await selectWorker1(frame);
    await hideToasts();
    await screenshot(page(), 'extension-light-tasks');
    // Cancel Task from the detail: the task ends (the crawler's worker catches the
    // CancelledError and returns, as the chapter's does, so it ends done rather than cancelled).
    await selectTask(frame, 'worker-2');
    await frame.locator('.detail-actions button[data-action="cancel-task"]').click();
    await frame.locator('.loop-controls button[data-action="stepTick"]').click();
    await until('worker-2 to end', async () =>
      ['Cancelled', 'Done'].includes(await frame.locator('.detail-header .badge').innerText()),
    );
    // The detail says who cancelled it: the inspector, not an unknown caller.
    await frame.locator('.facts .cancel-origin.origin-inspector', { hasText: 'the inspector' }).waitFor();
    await selectWorker1(frame);
    await frame.locator('.tab[data-view="graph"]').click();
    await frame.locator('.graph-canvas svg .node-task').first().waitFor();
    await hideToasts();
    await screenshot(page(), 'extension-light-graph');
    await frame.locator('.tab[data-view="exceptions"]').click();
    // This run, paused early, has no failure yet: the view says so and offers the demonstration as a button,
    // never by itself.
    await frame
      .locator('.exceptions-view .demo-button', { hasText: 'Show the demonstration' })
      .waitFor({ timeout: 30_000 });
    assert.equal(await frame.locator('.exceptions-view .trace-pair').count(), 0, 'no demonstration shown unasked');
    await hideToasts();
    await screenshot(page(), 'extension-light-exceptions');
    await frame.locator('.tab[data-view="tasks"]').click();
  });

  step('high contrast: screenshot of the paused crawl', async () => {
    await setColorTheme(page(), 'Dark High Contrast', 'high-contrast-dark');
    const frame = await panel();
    await frame.locator('.tab[data-view="tasks"]').click();
    await frame.locator('.stack-section .frame-list .frame').first().waitFor();
    await hideToasts();
    await screenshot(page(), 'extension-hc-tasks');
    await setColorTheme(page(), 'Default Light Modern', 'light');
  });

  step('a killed runtime host: the panel and a notification say so; the next command starts a fresh one', async () => {
    let frame = await panel();
    await waitPhase(frame, 'paused');
    const pids = runtimeHostPids(extensionsDir());
    assert.equal(pids.length, 1);
    process.kill(pids[0]!, 'SIGKILL');
    await waitForNotification(page(), /runtime host was killed \(SIGKILL\)/, 15_000);
    frame = await panel();
    await waitPhase(frame, 'hostDied');
    await frame.locator('.banner', { hasText: 'The runtime host was killed (SIGKILL)' }).waitFor();
    await hideToasts();
    await screenshot(page(), 'extension-light-host-died');
    frame = await runCrawl();
    await waitPhase(frame, 'paused');
    const fresh = runtimeHostPids(extensionsDir());
    assert.equal(fresh.length, 1);
    assert.notEqual(fresh[0], pids[0]);
  });

  step('the panel keeps its state across a window reload (serializer)', async () => {
    let frame = await panel();
    await frame.locator('.tab[data-view="tasks"]').click();
    await frame.locator('input.search').fill('crawl');
    // The state is saved after a short debounce: wait until the panel says it is.
    await frame.locator('body[data-ui-state="saved"]').waitFor({ state: 'attached', timeout: 15_000 });
    // As a user reloads: VS Code saves its state (the webview's with it) before it goes.
    // The load awaited from before the command: runCommand returns once the palette took it, by then the new
    // page may have loaded.
    const reloaded = page().waitForEvent('load', { timeout: 30_000 });
    await runCommand(page(), 'Developer: Reload Window');
    await reloaded;
    await waitForWorkbench(page());
    frame = await panel();
    await until('the search to come back', async () => (await frame.locator('input.search').inputValue()) === 'crawl');
    assert.equal(await frame.locator('.tab.active').getAttribute('data-view'), 'tasks');
  });

  step('"Coroscope: Stop" ends the runtime host', async () => {
    const frame = await runCrawl();
    await waitPhase(frame, 'paused');
    await until('one runtime host', () => runtimeHostPids(extensionsDir()).length === 1);
    await runCommand(page(), 'Coroscope: Stop');
    await until('the runtime host to exit', () => runtimeHostPids(extensionsDir()).length === 0, 15_000);
  });

  // (The notification of the host killed on purpose is logged as an error too.)
  suite.leftNoExtensionErrors(/runtime host was killed/);
});
