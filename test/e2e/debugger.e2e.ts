/**
 * End-to-end test of the `coroscope` debugger in a real VS Code (code-server 4.100.3, in
 * Debian's Chromium through playwright-core): with the packaged extension installed and a
 * workspace whose launch.json has a `coroscope` configuration (the demo crawl, stopped on
 * entry), "Debug: Start Debugging" shows the tasks as threads in the Call Stack view; a step
 * into the crawl task creates its workers (more threads) and the Variables view shows the
 * locals of its coroutine frames; the Coroutines view groups the tasks; stopping the
 * session ends it.
 *
 * Needs the packaged extension (`npm run package` → coroscope.vsix at the project root, or
 * COROSCOPE_VSIX=path): without it the test is skipped with a message saying so. Needs
 * code-server too (test/e2e/setup/install-code-server.sh), like the smoke test.
 *
 * Run: node --import tsx --test test/e2e/debugger.e2e.ts
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchBrowser, openWorkbench, runCommand, screenshot, type Workbench } from './support/browser';
import { startCodeServer, type CodeServer } from './support/code-server';

const projectRoot = resolve(__dirname, '..', '..');
const VSIX = process.env.COROSCOPE_VSIX ?? join(projectRoot, 'coroscope.vsix');
const MAX_TASKS = 4;
const STEP_TIMEOUT_MS = 30_000;

const LAUNCH_JSON = {
  version: '0.2.0',
  configurations: [{ type: 'coroscope', request: 'launch', name: 'Coroscope: crawl the demo site', crawl: 'demo', maxTasks: MAX_TASKS, stopOnEntry: true }],
};

// Skipped only without the .vsix; without code-server it fails, saying how to install it
// (as the smoke test does).
const missing = existsSync(VSIX) ? null : `the packaged extension is absent (${VSIX}): run \`npm run package\` first (or set COROSCOPE_VSIX)`;
if (missing !== null) console.log(`debugger e2e skipped: ${missing}`);

/** Rows of a debug view (its pane body has the given class), filtered by text. */
function rows(page: Page, paneClass: string, text: string | RegExp): Locator {
  return page.locator(`.${paneClass} .monaco-list-row`).filter({ hasText: text });
}

describe('the coroscope debugger in VS Code (code-server)', { timeout: 240_000, skip: missing ?? false }, () => {
  let workspace = '';
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let workbench: Workbench | undefined;

  before(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'coroscope-e2e-debug-'));
    mkdirSync(join(workspace, '.vscode'));
    writeFileSync(join(workspace, '.vscode', 'launch.json'), `${JSON.stringify(LAUNCH_JSON, null, 2)}\n`);
    writeFileSync(join(workspace, 'README.md'), '# Coroscope debugger e2e workspace\n');
    server = await startCodeServer({
      workspace,
      vsix: [VSIX],
      // Keep the Run and Debug view on screen for every stop.
      settings: { 'debug.openDebug': 'openOnSessionStart', 'debug.toolBarLocation': 'floating' },
    });
    browser = await launchBrowser();
    workbench = await openWorkbench(browser, server.url, { viewport: { width: 1400, height: 1000 } });
  });

  after(async () => {
    await workbench?.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await server?.stop();
    if (workspace !== '') rmSync(workspace, { recursive: true, force: true });
  });

  function page(): Page {
    assert.ok(workbench, 'the workbench did not open');
    return workbench.page;
  }

  function step(name: string, body: () => Promise<void>): void {
    it(name, async () => {
      try {
        await body();
      } catch (error) {
        if (workbench) await screenshot(workbench.page, `debugger-failed-${name}`).catch(() => undefined);
        if (server) console.log(`--- code-server output (tail) ---\n${server.output().slice(-4000)}`);
        throw error;
      }
    });
  }

  step('starting the coroscope configuration stops on entry with the crawl task as a thread', async () => {
    const p = page();
    // As a person does: the Run and Debug view, the configuration in its drop-down (once the
    // extension host knows the debugger and has read launch.json), the green start button.
    await runCommand(p, 'View: Show Run and Debug');
    await p
      .locator(`.part.sidebar .start-debug-action-item select option[value="${LAUNCH_JSON.configurations[0]!.name}"]`)
      .first()
      .waitFor({ state: 'attached', timeout: STEP_TIMEOUT_MS });
    await p.locator('.part.sidebar .start-debug-action-item .codicon-debug-start').first().click();
    await rows(p, 'debug-call-stack', /crawl \[scheduled\]/).first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await rows(p, 'debug-call-stack', /event loop \[paused/).first().waitFor({ state: 'visible' });
    await screenshot(p, 'debugger-entry');
  });

  step('a step into the crawl task shows its workers as threads in the Call Stack view', async () => {
    const p = page();
    await runCommand(p, 'Debug: Step Into');
    // crawl ran its first step: it created maxTasks workers and now awaits the queue's join().
    await rows(p, 'debug-call-stack', /crawl \[suspended: queue\.join\]/).first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    for (const n of [1, MAX_TASKS]) await rows(p, 'debug-call-stack', new RegExp(`worker-${n} \\[`)).first().waitFor({ state: 'visible' });
    // The crawl thread's stack: the await label and the coroutine frames with their files.
    await rows(p, 'debug-call-stack', /awaiting queue\.join/).first().waitFor({ state: 'visible' });
    await rows(p, 'debug-call-stack', /crawler\.ts/).first().waitFor({ state: 'visible' });
    await screenshot(p, 'debugger-threads');
  });

  step('the Variables view shows the locals of the crawl frame', async () => {
    const p = page();
    // Select the crawl frame (its row names the function and crawler.ts).
    const crawlFrame = p.locator('.debug-call-stack .monaco-list-row').filter({ has: p.locator('.stack-frame') }).filter({ hasText: /^\s*crawl\s*crawler\.ts/ });
    // crawl() holds `this` (the Crawler) and the running loop (an EventLoop, whatever the
    // bundle named the local). The call stack re-renders as thread events arrive, so a click
    // can land while a row moves: click again until the crawl frame's locals show.
    const crawlerRow = rows(p, 'debug-variables', /^\s*this\s*[:=]?\s*Crawler/).first();
    for (let attempt = 1; ; attempt++) {
      await crawlFrame.first().click();
      try {
        await crawlerRow.waitFor({ state: 'visible', timeout: 5_000 });
        break;
      } catch (e) {
        if (attempt >= 3) throw e;
      }
    }
    await rows(p, 'debug-variables', /^\s*Locals/).first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await rows(p, 'debug-variables', /^\s*Task\b/).first().waitFor({ state: 'visible' });
    await rows(p, 'debug-variables', /[:=]\s*EventLoop\b/).first().waitFor({ state: 'visible' });
    await screenshot(p, 'debugger-variables');
  });

  step('the Coroutines view groups the tasks by state and what they await', async () => {
    const p = page();
    const pane = p.locator('.pane').filter({ has: p.locator('.pane-header', { hasText: /Coroutines/i }) });
    const header = pane.locator('.pane-header').first();
    await header.waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
    // crawl suspended in join(), its workers scheduled: "<N> live tasks · tick 1 · paused".
    await pane.filter({ hasText: new RegExp(`${MAX_TASKS + 1} live tasks`) }).first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await pane.locator('.monaco-list-row').filter({ hasText: new RegExp(`scheduled \\(${MAX_TASKS}\\)`) }).first().waitFor({ state: 'visible' });
    await pane.locator('.monaco-list-row').filter({ hasText: /worker-1 #\d+/ }).first().waitFor({ state: 'visible' });
    await screenshot(p, 'debugger-coroutines-view');
  });

  step('stopping the session ends it', async () => {
    const p = page();
    await runCommand(p, 'Debug: Stop');
    await rows(p, 'debug-call-stack', /crawl \[/).first().waitFor({ state: 'hidden', timeout: STEP_TIMEOUT_MS });
  });
});
