/**
 * Line-by-line debugging end to end (issue 14), in a real VS Code (code-server 4.100.3) with
 * the packaged extension installed, driven as a learner does it, from the walkthrough:
 *
 * - the walkthrough's first step runs the demo crawl and opens runtime/crawler/crawler.ts
 *   beside it: a click in the gutter on an ordinary line of fetch, "Coroscope: Debug This Run",
 *   and the running crawl stops there; the Variables view shows fetch's locals, the panel
 *   shows the other workers at that same moment; F10 goes down fetch's lines, Step Back goes to
 *   the line before (replayed from the recording; the panel's scrubber follows to that moment)
 *   and F10 forward again (the panel at the present again); Step Back and Continue come back to
 *   the live stop (no breakpoint between: held there, not run on), F11 into the
 *   `yield*`'s generator (client-session.ts), Shift+F11 back out to fetch;
 * - the walkthrough's callbacks step opens its sample held at entry: a breakpoint on the line
 *   that starts the callback crawl, Debug This Run, Continue stops there; F11 enters
 *   crawlWithCallbacks, F10 steps its lines, Shift+F11 comes back (after the awaited crawl);
 *   a breakpoint in a callback
 *   (connected) stops inside the hand-made select loop, and the panel shows that loop's
 *   sockets with their callbacks.
 *
 * The breakpoints are set in the installed extension's own sources, the files the walkthrough
 * opens (and a frame of the Call Stack or the panel opens): that is where a user of the
 * extension reads the runtime, and where the bundle's source map points. A clone of the
 * repository opened as a workspace would be other files, not the code that runs.
 *
 * Run: node --import tsx --test test/e2e/line-debugger.e2e.ts (E2E_SKIP_PACKAGE=1 reuses coroscope.vsix)
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { clearNotifications, debugViewRows, escapeRegExp, runCommand, screenshot, until } from './support/browser';
import { inspectorPanel, taskRows, waitForPanelPhase } from './support/inspector-panel';
import {
  debugKey,
  debugThisRun,
  editorOf,
  editorPosition,
  toggleBreakpointInGutter,
  waitForCurrentLine,
} from './support/line-debugging';
import { CRAWL_STEP_ID } from '../../extension/walkthrough';
import { openWalkthrough, runStepButton } from './support/walkthrough';
import { useWorkbenchSuite } from './support/workbench-suite';

const ROOT = join(__dirname, '..', '..');
const STOP_TIMEOUT_MS = 60_000;

/**
 * The 1-based line of `file` (a path in this repository, the same text as the installed copy) holding
 * `needle`, after line `from`.
 */
function lineOf(file: string, needle: string, from = 0): number {
  const i = readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .findIndex((l, n) => n >= from && l.includes(needle));
  assert.ok(i >= 0, `${file} has no line with ${needle}`);
  return i + 1;
}

const FETCH_LINE = lineOf('runtime/crawler/crawler.ts', 'let response: ClientResponse | null = null;');
const GET_LINE = lineOf('runtime/crawler/crawler.ts', 'response = yield* this.session.get(url, NO_REDIRECTS);');
const START_CRAWL_LINE = lineOf(
  'runtime/samples/callbacks.ts',
  'const crawl = await crawlWithCallbacks([ctx.siteUrl], { maxPages: CRAWL_PAGES });',
);
const CONNECTED_LINE = lineOf(
  'runtime/crawler/callback-fetcher.ts',
  'const sock = this.sock!;',
  lineOf('runtime/crawler/callback-fetcher.ts', 'connected(key: SelectorKey'),
);

describe('line-by-line debugging in VS Code (code-server)', { timeout: 400_000 }, () => {
  const { page, step, leftNoExtensionErrors } = useWorkbenchSuite({
    name: 'line-debugger',
    files: { 'notes.md': '# Coroscope line debugging workspace\n' },
    installExtension: true,
    settings: {
      'coroscope.stopOnEntry': false,
      'coroscope.snapshotRate': 10,
      'workbench.editor.enablePreview': false,
      'debug.openDebug': 'openOnSessionStart',
      'debug.toolBarLocation': 'floating',
    },
    viewport: { width: 1800, height: 1000 },
    logServerOnFailure: true,
  });

  /**
   * The Call Stack shows a frame `name` in `file` (at `line`, when given). The list is virtualized: a
   * stopped eleventh worker's frames can sit below its fold, so the pane is scrolled through as a person
   * would, a few rows at a time, until the frame's row is drawn.
   */
  async function frameShown(name: string, file: string, line?: number): Promise<void> {
    const p = page();
    const where = line === undefined ? '\\d+' : String(line);
    const row = debugViewRows(
      p,
      'debug-call-stack',
      new RegExp(`^\\s*(\\S+\\.)?${name}\\s*${escapeRegExp(file)}\\s*${where}:`),
    ).first();
    const list = p.locator('.debug-call-stack .monaco-list').first();
    let scrolls = 0;
    await until(
      `the Call Stack's ${name} frame in ${file}`,
      async () => {
        if (await row.isVisible()) return true;
        const box = await list.boundingBox();
        if (box !== null) {
          await p.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
          // Down a few rows at a time; back to the top now and then (a row above the fold is drawn again).
          await p.mouse.wheel(0, ++scrolls % 10 === 0 ? -5_000 : 60);
        }
        return false;
      },
      STOP_TIMEOUT_MS,
    );
  }

  step(
    'crawler.ts: a gutter breakpoint on an ordinary line of fetch stops the running crawl once the debugger attaches',
    async () => {
      const p = page();
      await openWalkthrough(p);
      await runStepButton(p, CRAWL_STEP_ID, 'Run the Demo Crawl');
      const panel = await inspectorPanel(p);
      await until(
        'the demo crawl running with its workers',
        async () => (await taskRows(panel)).filter((r) => /^worker-\d+$/.test(r.name)).length >= 10,
        60_000,
      );
      const crawler = editorOf(p, 'crawler.ts');
      await crawler.waitFor({ state: 'visible' });
      await toggleBreakpointInGutter(p, 'crawler.ts', FETCH_LINE, 'set');
      await debugThisRun(p);
      await waitForCurrentLine(p, 'crawler.ts', FETCH_LINE, STOP_TIMEOUT_MS);
      await frameShown('fetch', 'crawler.ts', FETCH_LINE);
      await screenshot(p, 'line-debugger-crawler-stop');
      // Off again, so that the steps below follow this worker (another worker's fetch would stop on it).
      await toggleBreakpointInGutter(p, 'crawler.ts', FETCH_LINE, 'removed');
    },
  );

  step(
    "crawler.ts: Variables shows fetch's locals; the panel shows the other workers at that same moment",
    async () => {
      const p = page();
      await debugViewRows(p, 'debug-variables', /^\s*url\s*[:=]\s*"http:\/\/127\.0\.0\.1:\d+\//)
        .first()
        .waitFor({ state: 'visible', timeout: STOP_TIMEOUT_MS });
      // `let response` has not run: in its dead zone, uninitialized (not undefined).
      await debugViewRows(p, 'debug-variables', /^\s*response\s*[:=]\s*<uninitialized>/)
        .first()
        .waitFor({ state: 'visible' });
      const panel = await inspectorPanel(p);
      await waitForPanelPhase(panel, 'paused');
      const rows = await until('the panel to list the stopped worker running and the others suspended', async () => {
        const r = (await taskRows(panel)).filter((t) => /^worker-\d+$/.test(t.name));
        return r.some((t) => t.state === 'running') && r.filter((t) => t.state === 'suspended').length >= 2 ? r : false;
      });
      assert.equal(rows.filter((t) => t.state === 'running').length, 1, JSON.stringify(rows));
      await screenshot(p, 'line-debugger-crawler-variables-panel');
    },
  );

  /**
   * Presses `key` in the editor of `file`, waits for the next stop (the current position
   * moves), and again while the line there does not satisfy `lands` (a step may stop on a
   * second statement of the same line first), at most `presses` times.
   */
  async function stepTo(file: string, key: string, lands: (line: number) => boolean, presses = 3): Promise<number> {
    for (let i = 1; ; i++) {
      const before = await editorPosition(page(), file);
      await debugKey(page(), file, key);
      const now = await until(
        `a stop after ${key} in ${file}`,
        async () => {
          const at = await editorPosition(page(), file);
          return at !== null && at !== before ? at : false;
        },
        STOP_TIMEOUT_MS,
      );
      const line = Number(now.split(':')[0]);
      if (lands(line)) return line;
      if (i >= presses)
        throw new Error(`${key} ${presses} times from ${file} stopped at line ${line} (${now}), not where expected`);
    }
  }

  step(
    "crawler.ts: F10 goes down fetch's lines, F11 into the yield*'s generator, Shift+F11 back out to fetch",
    async () => {
      const p = page();
      // Down fetch's lines to the line with the yield* (the retry loop's head may be passed at once).
      let at = await stepTo('crawler.ts', 'F10', (n) => n > FETCH_LINE && n <= GET_LINE);
      for (let i = 0; i < 3 && at !== GET_LINE; i++) {
        const from = at;
        at = await stepTo('crawler.ts', 'F10', (n) => n > from && n <= GET_LINE);
      }
      assert.equal(at, GET_LINE);
      // Step Back goes to the line fetch ran before (replayed from the recording), and F10 comes forward to
      // the stop again.
      // (The toolbar's button: VS Code lists no Step Back in the palette.)
      await p.locator('.debug-toolbar .action-item .codicon-debug-step-back').first().click();
      const back = await waitForCurrentLine(p, 'crawler.ts', (n) => n >= FETCH_LINE && n < GET_LINE, STOP_TIMEOUT_MS);
      // Every view follows the debugger there: the panel's scrubber shows that moment (replayed), and the
      // present again with the live stop.
      const panel = await inspectorPanel(p);
      // A moment within a tick (on a line, past), as the debugger stands there.
      const label = panel
        .locator('.scrubber-label')
        .filter({ hasText: /Viewing in tick \d+ of \d+ \(past, on a line\)/ });
      await label.waitFor({ timeout: STOP_TIMEOUT_MS });
      // A past line of the live stop's own tick: that tick counts among the run's (it said "tick N of N-1").
      const [, viewed, of] = /Viewing in tick (\d+) of (\d+)/.exec(await label.innerText())!;
      assert.ok(Number(viewed) <= Number(of), await label.innerText());
      await screenshot(p, 'line-debugger-crawler-step-back');
      await stepTo('crawler.ts', 'F10', (n) => n > back && n <= GET_LINE);
      await waitForCurrentLine(p, 'crawler.ts', GET_LINE, STOP_TIMEOUT_MS);
      await panel
        .locator('.scrubber-label')
        .filter({ hasText: /the present/ })
        .waitFor({ timeout: STOP_TIMEOUT_MS });
      // Step Back again, then Continue: no breakpoint is hit between that past line and the live stop, so the
      // live stop again (held, not run on: the GET line, the present).
      await p.locator('.debug-toolbar .action-item .codicon-debug-step-back').first().click();
      await waitForCurrentLine(p, 'crawler.ts', (n) => n >= FETCH_LINE && n < GET_LINE, STOP_TIMEOUT_MS);
      await label.waitFor({ timeout: STOP_TIMEOUT_MS });
      await runCommand(p, 'Debug: Continue');
      await waitForCurrentLine(p, 'crawler.ts', GET_LINE, STOP_TIMEOUT_MS);
      await panel
        .locator('.scrubber-label')
        .filter({ hasText: /the present/ })
        .waitFor({ timeout: STOP_TIMEOUT_MS });
      await debugKey(p, 'crawler.ts', 'F11');
      await editorOf(p, 'client-session.ts').waitFor({ state: 'visible', timeout: STOP_TIMEOUT_MS });
      await frameShown('get', 'client-session.ts');
      await debugKey(p, 'client-session.ts', 'Shift+F11');
      await waitForCurrentLine(p, 'crawler.ts', (n) => n >= GET_LINE, STOP_TIMEOUT_MS);
      await frameShown('fetch', 'crawler.ts');
      await screenshot(p, 'line-debugger-crawler-stepped');
    },
  );

  step('crawler.ts: Stop ends the run', async () => {
    const p = page();
    await runCommand(p, 'Debug: Stop');
    await debugViewRows(p, 'debug-call-stack', /worker-\d+ \[/)
      .first()
      .waitFor({ state: 'hidden', timeout: STOP_TIMEOUT_MS });
  });

  step(
    "callbacks: the walkthrough's step opens the sample held at entry; a gutter breakpoint, Debug This Run and Continue stop on its line",
    async () => {
      const p = page();
      await openWalkthrough(p);
      await runStepButton(p, 'callbacks');
      const panel = await inspectorPanel(p);
      await until(
        'the callbacks sample',
        async () => /Sample callbacks/.test(await panel.locator('.run-title').innerText()),
        30_000,
      );
      await waitForPanelPhase(panel, 'paused');
      const callbacks = editorOf(p, 'callbacks.ts');
      await callbacks.waitFor({ state: 'visible' });
      await toggleBreakpointInGutter(p, 'callbacks.ts', START_CRAWL_LINE, 'set');
      await debugThisRun(p);
      await debugViewRows(p, 'debug-call-stack', /event loop|Paused/i)
        .first()
        .waitFor({ state: 'visible', timeout: STOP_TIMEOUT_MS });
      await runCommand(p, 'Debug: Continue');
      await waitForCurrentLine(p, 'callbacks.ts', START_CRAWL_LINE, STOP_TIMEOUT_MS);
      await frameShown('run', 'callbacks.ts', START_CRAWL_LINE);
      await debugViewRows(p, 'debug-variables', /^\s*t\s*[:=]\s*Transcript/)
        .first()
        .waitFor({ state: 'visible', timeout: STOP_TIMEOUT_MS });
      await clearNotifications(p);
      await screenshot(p, 'line-debugger-callbacks-stop');
    },
  );

  step(
    'callbacks: F11 enters crawlWithCallbacks, F10 steps its lines, Shift+F11 comes back to the sample once the crawl is done',
    async () => {
      const p = page();
      await debugKey(p, 'callbacks.ts', 'F11');
      await frameShown('crawlWithCallbacks', 'callback-fetcher.ts');
      const first = await waitForCurrentLine(p, 'callback-fetcher.ts', () => true, STOP_TIMEOUT_MS);
      await stepTo('callback-fetcher.ts', 'F10', (n) => n > first);
      await frameShown('crawlWithCallbacks', 'callback-fetcher.ts');
      // Out of crawlWithCallbacks: its promise is awaited, so run comes back once the callback
      // crawl is done, on the next line, with `crawl` set.
      await debugKey(p, 'callback-fetcher.ts', 'Shift+F11');
      await waitForCurrentLine(p, 'callbacks.ts', START_CRAWL_LINE + 1, STOP_TIMEOUT_MS);
      await frameShown('run', 'callbacks.ts', START_CRAWL_LINE + 1);
      await debugViewRows(p, 'debug-variables', /^\s*crawl\s*[:=]\s*Object/)
        .first()
        .waitFor({ state: 'visible', timeout: STOP_TIMEOUT_MS });
    },
  );

  // The sample's second callback crawl (of the page that fails) goes through connected too.
  step(
    'callbacks: a breakpoint in a callback stops inside the hand-made select loop; the panel shows its sockets and callbacks',
    async () => {
      const p = page();
      await toggleBreakpointInGutter(p, 'callbacks.ts', START_CRAWL_LINE, 'removed');
      await toggleBreakpointInGutter(p, 'callback-fetcher.ts', CONNECTED_LINE, 'set');
      await runCommand(p, 'Debug: Continue');
      await waitForCurrentLine(p, 'callback-fetcher.ts', CONNECTED_LINE, STOP_TIMEOUT_MS);
      await frameShown('connected', 'callback-fetcher.ts', CONNECTED_LINE);
      await debugViewRows(p, 'debug-variables', /^\s*mask\s*[:=]\s*2\b/)
        .first()
        .waitFor({ state: 'visible', timeout: STOP_TIMEOUT_MS });
      await debugViewRows(p, 'debug-variables', /Program loop: the callback crawl's select loop/)
        .first()
        .waitFor({ state: 'visible' });
      const panel = await inspectorPanel(p);
      const loop = panel.locator('.program-loops .program-loop', { hasText: "the callback crawl's select loop" });
      await loop.waitFor({ state: 'visible', timeout: STOP_TIMEOUT_MS });
      await loop
        .locator('li', { hasText: /^fd \d+ write → bound connected: <Socket fd=\d+ / })
        .first()
        .waitFor({ state: 'visible' });
      await loop.getByText(/^Running: fd \d+ writable: bound connected$/).waitFor({ state: 'visible' });
      await screenshot(p, 'line-debugger-callbacks-loop');
    },
  );

  step('callbacks: without breakpoints, Continue runs the sample to its end', async () => {
    const p = page();
    await toggleBreakpointInGutter(p, 'callback-fetcher.ts', CONNECTED_LINE, 'removed');
    await runCommand(p, 'Debug: Continue');
    await waitForPanelPhase(await inspectorPanel(p), 'finished', STOP_TIMEOUT_MS);
  });

  leftNoExtensionErrors();
});
