/**
 * The inspector's timeline and scrubber (webview/views/timeline.ts, scrubber.ts) alone in
 * Debian's Chromium, on the webview harness (support/webview-harness.ts): a run of 2,001
 * tasks over 30,000 ticks (far more segments than a 2,000-page crawl of the demo site), with
 * a stand-in for the extension that answers `timeline` and `seek` and reports the viewed tick
 * back in the status, as the extension does.
 *
 * Measured in the page: the time one draw of the lanes takes (document.body.dataset
 * .timelineDrawMs, the view's own clock), at first and while scrolling the lanes. Checked:
 * a click on a lane seeks the tick under the pointer and selects the task; the scrubber's
 * keys; "Who woke this?" seeks the tick its wait was completed; Back to present; markup in
 * task names shows as text; the light and high-contrast themes give the canvas their colours.
 * Results go to .test-artifacts/e2e/timeline-render.json.
 *
 * Run: node --import tsx --test test/e2e/timeline-render.e2e.ts   (after `npm run build`)
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS_DIR, launchBrowser, until } from './support/browser';
import { writeWebviewHarness, type HarnessTheme, type WebviewHarness } from './support/webview-harness';

const WORKERS = 2000;
const TICKS = 30_000;
const MARKUP = '<img src=x onerror=alert(1)>';

/**
 * The stand-in: a finished recorded crawl, generated in the page (3 million segments would not travel well as
 * JSON).
 */
function stubScript(): string {
  return `(() => {
  const W = ${WORKERS}, T = ${TICKS};
  const lanes = [{ taskId: 1, name: 'crawl', parentId: null, createdTick: 0, segmentsFrom: 0, endTick: null, endState: null, segments: [{ fromTick: 1, toTick: 1, state: 'running' }, { fromTick: 1, toTick: T, state: 'suspended', awaiting: 'queue.join' }] }];
  for (let w = 0; w < W; w++) {
    const segs = [];
    let io = true;
    const created = 1 + Math.floor((w * T) / W / 2);
    let t = created + 1 + (w % 7);
    segs.push({ fromTick: created, toTick: t - 1, state: 'scheduled' });
    const end = Math.min(T, created + 2000 + ((w * 37) % 5000));
    while (t < end - 2) {
      const woken = Math.min(end - 1, t + 1 + ((w * 3 + t) % 14));
      segs.push({ fromTick: t, toTick: t, state: 'running' });
      segs.push({ fromTick: t, toTick: woken, state: 'suspended', awaiting: io ? 'socket.read' : 'queue.get', wokenTick: woken, wokenBy: io ? 'io' : 1 });
      t = woken + 1;
      io = !io;
    }
    segs.push({ fromTick: end, toTick: end, state: 'running' });
    const cancelled = w % 50 === 0;
    lanes.push({ taskId: w + 2, name: w === 5 ? ${JSON.stringify(MARKUP)} : 'worker-' + (w + 1), parentId: 1, createdTick: created, segmentsFrom: 0, endTick: end, endState: cancelled ? 'cancelled' : 'done',
      ...(cancelled ? { cancelledTick: end - 1, cancelledBy: { kind: 'task', taskId: 1 } } : {}), segments: segs });
  }
  const marks = [];
  for (let t = 1; t <= T; t += 3) marks.push({ tick: t, kind: t % 2 ? 'io' : 'timer', taskId: 2 + (t % W), detail: 'data 300 bytes' });
  const timeline = { runId: 1, ticks: T, sinceTick: 0, live: false, lanes, marks, tickTimes: Array.from({ length: T }, (_, i) => i * 0.7) };
  const status = { phase: 'finished', runId: 1, title: 'Crawl of the demo site', detail: 'Finished', tick: T, recorded: true };
  window.__seeks = [];
  const reply = (id, result) => window.postMessage({ kind: 'response', id, ok: true, result }, '*');
  let state;
  window.acquireVsCodeApi = () => ({
    postMessage: (m) => {
      if (!m || m.kind !== 'request') return;
      if (m.method === 'ready') reply(m.id, { protocolVersion: 1, status, snapshot: null, progress: [], exceptions: [], lints: [], pages: [], lastProgress: null });
      else if (m.method === 'timeline') { window.__timelineSent = performance.now(); reply(m.id, timeline); }
      else if (m.method === 'seek') {
        window.__seeks.push(m.params.tick);
        const s = { ...status };
        if (m.params.tick !== null) s.viewedTick = m.params.tick;
        reply(m.id, { tick: m.params.tick });
        window.postMessage({ kind: 'event', event: 'status', body: s }, '*');
      } else window.postMessage({ kind: 'response', id: m.id, ok: false, error: { message: 'not in this harness', code: 'x' } }, '*');
    },
    getState: () => state,
    setState: (s) => { state = s; },
  });
})();`;
}

describe(`inspector webview: the timeline of ${WORKERS + 1} tasks over ${TICKS.toLocaleString('en-US')} ticks`, {
  timeout: 180_000,
}, () => {
  let browser: Browser | undefined;
  let page: Page | undefined;
  const harnesses: WebviewHarness[] = [];
  const results: Record<string, number | string> = {};

  async function open(theme: HarnessTheme): Promise<Page> {
    const h = writeWebviewHarness(stubScript(), theme);
    harnesses.push(h);
    assert.ok(browser);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await context.newPage();
    p.on('dialog', (d) => {
      results.dialogs = Number(results.dialogs ?? 0) + 1;
      void d.dismiss();
    });
    await p.goto(h.url);
    await p.locator('.tab[data-view="timeline"]').click();
    await p.waitForFunction(`document.body.dataset.timelineLanes === '${WORKERS + 1}'`);
    return p;
  }

  before(async () => {
    browser = await launchBrowser();
    page = await open('dark');
  });

  after(async () => {
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    writeFileSync(join(ARTIFACTS_DIR, 'timeline-render.json'), JSON.stringify(results, null, 2) + '\n');
    console.log(`timeline render results: ${JSON.stringify(results)}`);
    await browser?.close();
    for (const h of harnesses) h.dispose();
  });

  function p(): Page {
    assert.ok(page);
    return page;
  }

  it('draws the whole run in ≤ 200 ms, and only the lanes in view', async () => {
    const ms = Number(await p().evaluate('document.body.dataset.timelineDrawMs'));
    results.firstDrawMs = ms;
    const labels = await p().locator('.tl-label:not([hidden])').count();
    results.labelsInDom = labels;
    assert.ok(labels < 60, `only the lanes in view have a label (${labels})`);
    assert.match(await p().locator('.tl-toolbar .tl-count').innerText(), /2,001 lanes · 30,000 ticks/);
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    await p().screenshot({ path: join(ARTIFACTS_DIR, 'timeline-2k-dark.png') });
    assert.ok(ms <= 200, `a draw took ${ms} ms`);
  });

  it('scrolls the lanes with draws of ≤ 100 ms (p95)', async () => {
    const stats = JSON.parse(
      String(
        await p().evaluate(`(async () => {
      const s = document.querySelector('.tl-scroll');
      const frame = () => new Promise((r) => requestAnimationFrame(r));
      const draws = [];
      for (let i = 0; i < 80; i++) { s.scrollTop += 450; await frame(); draws.push(Number(document.body.dataset.timelineDrawMs)); }
      draws.sort((a, b) => a - b);
      return JSON.stringify({ median: draws[40], p95: draws[76], top: s.scrollTop });
    })()`),
      ),
    ) as { median: number; p95: number; top: number };
    results.scrollDrawMedianMs = stats.median;
    results.scrollDrawP95Ms = stats.p95;
    assert.ok(stats.top > 30_000, 'it scrolled far');
    assert.ok(stats.p95 <= 100, `draws while scrolling: p95 ${stats.p95} ms`);
    await p().evaluate(`document.querySelector('.tl-scroll').scrollTop = 0`);
  });

  it('a click on a lane seeks the tick under the pointer and selects its task; every view says it is the past', async () => {
    const box = await p().locator('.tl-canvas').boundingBox();
    assert.ok(box);
    // The fourth lane (worker-3), at 3% of the run: a tick of its life.
    await p().mouse.click(box.x + box.width * 0.03, box.y + 3 * 18 + 9);
    await p().waitForFunction('window.__seeks.length === 1');
    const tick = Number(await p().evaluate('window.__seeks[0]'));
    assert.ok(tick > 700 && tick < 1100, `seeked tick ${tick}`);
    await p()
      .locator('.scrubber-label', { hasText: `Viewing tick ${tick} of 30000 (past)` })
      .waitFor();
    await p()
      .locator('.run-detail', { hasText: `viewing tick ${tick} of 30000 (past)` })
      .waitFor();
    await p().locator('.tl-label.selected[data-task="4"]').waitFor();
    const detail = await until(
      'the lane detail of the tick',
      async () => {
        const text = (await p().locator('.tl-lane-detail').innerText()).replace(/\s+/g, ' ');
        return text.includes(`#4 worker-3 at tick ${tick}`) ? text : undefined;
      },
      10_000,
    ).catch(async (e: unknown) => {
      throw new Error(`${String(e)}; the lane detail is: ${await p().locator('.tl-lane-detail').innerHTML()}`);
    });
    assert.match(detail, /Created here/);
    assert.equal(await p().locator('.scrubber-track').getAttribute('aria-valuenow'), String(tick));
  });

  it('"Who woke this?" seeks the tick the awaited future was completed', async () => {
    // Step the viewed tick until worker-3 is suspended at it (every other tick of its life).
    for (let i = 0; i < 20 && (await p().locator('.tl-lane-detail [data-action="jump-woken"]').count()) === 0; i++) {
      await p().locator('.tl-scroll').focus();
      await p().keyboard.press('ArrowRight');
      await p().waitForFunction(`window.__seeks.length === ${i + 2}`);
    }
    const jump = p().locator('.tl-lane-detail [data-action="jump-woken"]');
    const woken = Number(await jump.getAttribute('data-tick'));
    const n = Number(await p().evaluate('window.__seeks.length'));
    await jump.click();
    await p().waitForFunction(`window.__seeks.length === ${n + 1}`);
    assert.equal(Number(await p().evaluate(`window.__seeks[${n}]`)), woken);
    await p()
      .locator('.scrubber-label', { hasText: `Viewing tick ${woken} of 30000 (past)` })
      .waitFor();
  });

  it('the scrubber: keys move the viewed tick; Back to present asks for the present', async () => {
    const track = p().locator('.scrubber-track');
    await track.focus();
    const before = Number(await track.getAttribute('aria-valuenow'));
    await track.press('Shift+ArrowLeft');
    await p()
      .locator(`.scrubber-track[aria-valuenow="${before - 10}"]`)
      .waitFor();
    await track.press('Home');
    await p().locator('.scrubber-track[aria-valuenow="1"]').waitFor();
    await p().locator('[data-action="back-to-present"]').click();
    await p().waitForFunction('window.__seeks[window.__seeks.length - 1] === null');
    await p().locator('.scrubber-label', { hasText: 'Tick 30000 · the present' }).waitFor();
    assert.equal(await p().locator('[data-action="back-to-present"]').isVisible(), false);
  });

  it('shows markup in task names as text', async () => {
    await p().locator('.tl-toolbar input.tl-filter').fill('#7');
    await p().locator('.tl-label[data-task="7"]').waitFor();
    assert.equal(await p().locator('.tl-label[data-task="7"]').innerText(), `#7 ${MARKUP}`);
    assert.equal(await p().locator('img').count(), 0, 'no element was made from the markup');
    assert.equal(results.dialogs ?? 0, 0, 'no script ran from it');
    await p().locator('.tl-toolbar input.tl-filter').fill('');
  });

  for (const theme of ['light', 'high-contrast'] as const) {
    it(`draws with the ${theme} theme's colours`, async () => {
      const q = await open(theme);
      const colours = String(
        await q.evaluate(
          `['--tl-running', '--tl-io', '--tl-sync', '--tl-cursor'].map((v) => getComputedStyle(document.querySelector('.timeline-view')).getPropertyValue(v).trim()).join(' ')`,
        ),
      );
      results[`${theme}Colours`] = colours;
      assert.doesNotMatch(colours, /var\(|^\s*$/);
      await q.screenshot({ path: join(ARTIFACTS_DIR, `timeline-2k-${theme}.png`) });
      await q.context().close();
    });
  }
});
