/**
 * The inspector panel's webview bundle (dist/webview/main.js + main.css) alone in Debian's
 * Chromium, fed by a stand-in for the extension (acquireVsCodeApi answering the panel's
 * requests over window messages, as VS Code delivers them): how long 10,000 tasks take to
 * render, whether scrolling them stays smooth, how long snapshot deltas take while a crawl
 * updates the table, and that strings with markup (task names, page titles) show as text.
 *
 * Measured inside the page: from the moment the panel receives the data to the end of the
 * frame that shows it (the panel's own clock, document.body.dataset.renderMs), and frame
 * times while scrolling. Results are printed and written to .test-artifacts/e2e/render.json.
 *
 * Run: node --import tsx --test test/e2e/webview-render.e2e.ts   (after `npm run build`)
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS_DIR, launchBrowser } from './support/browser';
import { writeWebviewHarness, type WebviewHarness } from './support/webview-harness';

const TASKS = 10_000;
const MARKUP = '<img src=x onerror=alert(1)> & "quotes"';

/** The stand-in for VS Code and the extension, installed before the bundle runs. */
function stubScript(taskCount: number, markup: string): string {
  return `(() => {
  const states = ['suspended','suspended','suspended','scheduled','done','failed','cancelled','running'];
  const tasks = [];
  for (let id = 1; id <= ${taskCount}; id++) {
    const state = states[id % states.length];
    tasks.push({ id, name: id === 7 ? ${JSON.stringify(markup)} : 'worker-' + id, state, steps: (id * 7) % 50, busyMs: ((id * 13) % 1000) / 10,
      sinceResumedMs: state === 'suspended' ? 5 : null, createdBy: id === 1 ? null : 1,
      awaiting: state === 'suspended' ? { kind: id % 2 ? 'socket.read' : 'queue.get', detail: '<Queue size=' + (id % 9) + '>', resourceId: 'resource:queue:1' } : null,
      awaitedBy: [], frames: ['work', 'fetch', 'get'] });
  }
  const counts = { scheduled: 0, running: 0, suspended: 0, done: 0, cancelled: 0, failed: 0 };
  for (const t of tasks) counts[t.state]++;
  const progress = { done: 120, queued: 30, inFlight: 10, errors: 1, seen: 161, excluded: 2, seconds: 1.5, rate: 80, errorsByKind: { UnknownCharsetError: 1 } };
  window.__tasks = tasks;
  window.__init = { protocolVersion: 1,
    status: { phase: 'running', runId: 1, title: 'Crawl of the demo site', detail: 'Running', tick: 42 },
    snapshot: { version: 1, full: true, tick: 42, paused: false, tasks, removed: [], counts, progress },
    progress: [0.25, 0.5, 0.75, 1, 1.25, 1.5].map((t, i) => ({ t, done: i * 20, rate: 60 + i * 5, queued: 30, inFlight: 10 })),
    exceptions: [], lints: [],
    pages: [{ url: 'http://127.0.0.1:1/titles/markup/', status: 200, title: ${JSON.stringify(markup)} }, { url: 'http://127.0.0.1:1/page/1/', status: 200, title: 'Page 1' }],
    lastProgress: progress };
  let state;
  const reply = (id, result) => window.postMessage({ kind: 'response', id, ok: true, result }, '*');
  window.acquireVsCodeApi = () => ({
    postMessage: (m) => {
      if (!m || m.kind !== 'request') return;
      if (m.method === 'ready') reply(m.id, window.__init);
      else if (m.method === 'taskDetail') { const t = tasks[m.params.taskId - 1]; reply(m.id, { task: t, frames: [], awaitChain: [], createdAt: null, traceback: null }); }
      else window.postMessage({ kind: 'response', id: m.id, ok: false, error: { message: 'not in this harness', code: 'x' } }, '*');
    },
    getState: () => state,
    setState: (s) => { state = s; },
  });
  window.__event = (event, body) => window.postMessage({ kind: 'event', event, body }, '*');
})();`;
}

describe('inspector webview: 10,000 tasks', { timeout: 120_000 }, () => {
  let browser: Browser | undefined;
  let page: Page | undefined;
  let harness: WebviewHarness | undefined;
  const results: Record<string, number> = {};

  before(async () => {
    harness = writeWebviewHarness(stubScript(TASKS, MARKUP));
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.on('dialog', (d) => {
      results.dialogs = (results.dialogs ?? 0) + 1;
      void d.dismiss();
    });
  });

  after(async () => {
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    writeFileSync(join(ARTIFACTS_DIR, 'render.json'), JSON.stringify(results, null, 2) + '\n');
    console.log(`webview render results: ${JSON.stringify(results)}`);
    await browser?.close();
    harness?.dispose();
  });

  function p(): Page {
    assert.ok(page);
    return page;
  }

  it(`renders ${TASKS} tasks in ≤ 200 ms (from receiving them to the frame that shows them)`, async () => {
    await p().goto(harness!.url);
    await p().waitForFunction(`document.body.dataset.tasks === '${TASKS}'`);
    const ms = Number(await p().evaluate('document.body.dataset.renderMs'));
    results.initialRenderMs = ms;
    assert.match(await p().locator('.count-label').innerText(), /10,000 tasks/);
    const rows = await p().locator('.vrows .task-row:not([hidden])').count();
    results.rowsInDom = rows;
    assert.ok(rows < 80, `only the rows in view are in the DOM (${rows})`);
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    await p().screenshot({ path: join(ARTIFACTS_DIR, 'webview-10k-tasks.png') });
    assert.ok(ms <= 200, `rendering ${TASKS} tasks took ${ms} ms`);
  });

  it('scrolls through them smoothly (frame time while scrolling)', async () => {
    // In-page code as a string: the page has no TypeScript helpers (and the DOM types are not in this
    // project's Node tsconfig).
    const scrollDown = `(async () => {
      const body = document.querySelector('.vbody');
      body.scrollTop = 0;
      const frame = () => new Promise((r) => requestAnimationFrame(r));
      await frame();
      const times = [];
      let last = await frame();
      for (let i = 0; i < 120; i++) {
        body.scrollTop += 1800; // about 80 rows per frame: far faster than a wheel
        const now = await frame();
        times.push(now - last);
        last = now;
      }
      times.sort((a, b) => a - b);
      return { median: times[Math.floor(times.length / 2)], p95: times[Math.floor(times.length * 0.95)], last: body.scrollTop };
    })()`;
    // Frame times are wall time: other processes taking the CPU only ever add to them, while a
    // panel too slow to scroll is slow on every pass. So the budget is checked against the
    // best of up to three passes (a pass within it ends the measuring).
    type ScrollStats = { median: number; p95: number; last: number };
    const passes: ScrollStats[] = [];
    for (let pass = 0; pass < 3 && !passes.some((s) => s.p95 < 50); pass++)
      passes.push((await p().evaluate(scrollDown)) as ScrollStats);
    const stats = passes.reduce((best, s) => (s.p95 < best.p95 ? s : best));
    results.scrollFrameMedianMs = stats.median;
    results.scrollFrameP95Ms = stats.p95;
    results.scrollPasses = passes.length;
    assert.ok(stats.last > 100_000, 'it scrolled far');
    assert.ok(
      stats.p95 < 50,
      `frames while scrolling: p95 ${passes.map((s) => s.p95).join(', ')} ms in ${passes.length} passes`,
    );
    const ids = await p().locator('.vrows .task-row:not([hidden]) .c-id').allInnerTexts();
    assert.ok(
      ids.some((id) => Number(id.slice(1)) > 4000),
      `rows shown after scrolling: ${ids.slice(0, 3).join(', ')}`,
    );
  });

  it('applies snapshot deltas while a crawl updates the table and stays responsive', async () => {
    // One pass: 40 deltas of 500 tasks, each a snapshot version after the last pass's.
    const deltas = (from: number): string => `(async () => {
      const frame = () => new Promise((r) => requestAnimationFrame(r));
      const renders = [];
      const frames = [];
      let last = await frame();
      for (let round = ${from}; round < ${from + 40}; round++) {
        const changed = [];
        for (let k = 0; k < 500; k++) {
          const t = window.__tasks[(round * 500 + k) % window.__tasks.length];
          changed.push({ ...t, steps: t.steps + round + 1 });
        }
        const before = document.body.dataset.renderMs;
        window.__event('snapshot', { version: 2 + round, full: false, tick: 43 + round, paused: false, tasks: changed, removed: [], counts: { scheduled: 1250, running: 1250, suspended: 3750, done: 1250, cancelled: 1250, failed: 1250 }, progress: null });
        window.__event('progress', { point: { t: 1.5 + round * 0.25, done: 120 + round * 10, rate: 40, queued: 30, inFlight: 10 }, progress: { done: 120 + round * 10, queued: 30, inFlight: 10, errors: 1, seen: 200, excluded: 2, seconds: 1.5 + round * 0.25, rate: 80, errorsByKind: {} } });
        const now = await frame();
        frames.push(now - last);
        last = now;
        if (document.body.dataset.renderMs !== before || round === ${from}) renders.push(Number(document.body.dataset.renderMs));
      }
      renders.sort((a, b) => a - b);
      frames.sort((a, b) => a - b);
      return { maxRender: renders[renders.length - 1], medianRender: renders[Math.floor(renders.length / 2)], p95Frame: frames[Math.floor(frames.length * 0.95)] };
    })()`;
    // Render times are wall time too: as for scrolling, the best of up to three passes is held
    // to the budget (a pass within it ends the measuring).
    type DeltaStats = { maxRender: number; medianRender: number; p95Frame: number };
    const passes: DeltaStats[] = [];
    for (let pass = 0; pass < 3 && !passes.some((s) => s.maxRender < 100); pass++)
      passes.push((await p().evaluate(deltas(pass * 40))) as DeltaStats);
    const stats = passes.reduce((best, s) => (s.maxRender < best.maxRender ? s : best));
    results.deltaRenderMedianMs = stats.medianRender;
    results.deltaRenderMaxMs = stats.maxRender;
    results.deltaFrameP95Ms = stats.p95Frame;
    results.deltaPasses = passes.length;
    assert.ok(
      stats.maxRender < 100,
      `a delta of 500 tasks took up to ${passes.map((s) => s.maxRender).join(', ')} ms in ${passes.length} passes`,
    );
    // A click still lands during the updates.
    await p().locator('.vrows .task-row:not([hidden])').first().click();
    await p().locator('.detail-title').waitFor();
  });

  it('shows markup from the runtime and from crawled pages as text', async () => {
    await p().locator('input.search').fill('#7');
    await p().locator('.vrows .task-row[data-id="7"]').waitFor();
    assert.equal(await p().locator('.vrows .task-row[data-id="7"] .c-name').innerText(), MARKUP);
    await p().locator('.vrows .task-row[data-id="7"]').click();
    await p().locator('.detail-title', { hasText: 'onerror' }).waitFor();
    await p().locator('.tab[data-view="dashboard"]').click();
    const title = p()
      .locator('.pages-table tr', { has: p().locator('.page-url', { hasText: '/titles/markup/' }) })
      .locator('.page-title');
    assert.equal(await title.innerText(), MARKUP);
    assert.equal(await p().locator('img').count(), 0, 'no element was made from the markup');
    assert.equal(results.dialogs ?? 0, 0, 'no script ran from it');
  });
});
