/**
 * Questions over the past end to end (issue 28), in a real VS Code (code-server, the packaged .vsix)
 * with VS Code's own defaults (no settings file: the Welcome page open) and an empty folder: the demo
 * crawl runs to its end, "Coroscope: Debug This Run" stops at its end; a logpoint printing `{url}` is
 * added on a line of the crawler's fetch through the gutter's context menu ("Add Logpoint..."); the
 * Debug Console lists every hit of that line over the recorded run, in tick order; a Ctrl+click on a
 * hit's link moves the debugger (editor, Call Stack, Variables with that `url`) and the panel (its
 * scrubber) to that moment; "Go to Last Change" on `response` (Variables' context menu) lands on the
 * line after fetch's `response = yield* ...get(...)`, at the tick a second logpoint on that line
 * says the recording ran it for that task and URL; the panel's "Follow This Task" reaches the debug
 * session; the timeline's logpoint marks stay after the session ends, and one goes to its tick.
 *
 * Everything is read from the page (DOM), never from the extension's state; waits are for states.
 * Run: node --import tsx --test test/e2e/past-logpoints.e2e.ts (E2E_SKIP_PACKAGE=1 reuses coroscope.vsix)
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import type { Frame, Locator, Page } from 'playwright-core';
import {
  debugViewRows,
  escapeRegExp,
  findWebviewFrame,
  quickOpen,
  runCommand,
  screenshot,
  until,
} from './support/browser';
import { startDemoCrawl, waitForPanelPhase } from './support/inspector-panel';
import { answerOpenFileDialog } from './support/file-dialog';
import { debugThisRun, editorOf, threadTopFrameTexts, waitForCurrentLine } from './support/line-debugging';
import { useWorkbenchSuite } from './support/workbench-suite';
import { lineOf } from '../source-line';

const ROOT = join(__dirname, '..', '..');
const CRAWLER = join(ROOT, 'runtime', 'crawler', 'crawler.ts');
/** fetch's line after a page's links are parsed: it runs once per page parsed, `url` in scope. */
const PARSED_LINE = lineOf(CRAWLER, 'const { stat, links } = parsed;');
/** fetch's line that sets `response`, and the line after it (where its new value is first seen). */
const GET_LINE = lineOf(CRAWLER, 'response = yield* this.session.get(url, NO_REDIRECTS);');
const AFTER_GET_LINE = GET_LINE + 1;
const TIMEOUT_MS = 90_000;

/** One hit as the Debug Console lists it. */
interface ListedHit {
  readonly tick: number;
  readonly task: string;
  readonly taskId: number;
  readonly url: string;
  readonly hit: number;
}

const HIT_ROW = /⟲ tick (\d+) \+[\d.]+ ms (\S+) #(\d+): (\S+)\s+\S*\/logpoint-hit\?session=[^&\s]+&hit=(\d+)/;

function parseHit(text: string): ListedHit | null {
  const m = HIT_ROW.exec(text.replace(/\s+/g, ' '));
  return m === null ? null : { tick: Number(m[1]), task: m[2]!, taskId: Number(m[3]), url: m[4]!, hit: Number(m[5]) };
}

describe('questions over the past in VS Code (code-server): logpoints, their hits, Go to Last Change', {
  timeout: 600_000,
}, () => {
  const suite = useWorkbenchSuite({
    name: 'past-logpoints',
    files: {},
    installExtension: true,
    noSettingsFile: true,
    viewport: { width: 1600, height: 1000 },
    logServerOnFailure: true,
  });
  const { page, step } = suite;
  let hit: ListedHit | undefined;
  /** What "Go to Last Change" said: the writing line and its tick. */
  let change: { line: number; tick: number; task: string } | undefined;

  const consoleRows = (p: Page, text: string | RegExp): Locator => debugViewRows(p, 'repl', text);

  /** Brings the panel forward from the palette (the floating debug toolbar can cover its tab). */
  async function showInspector(p: Page): Promise<Frame> {
    await runCommand(p, 'Coroscope: Open Inspector');
    return findWebviewFrame(p, '.task-table', TIMEOUT_MS);
  }

  async function shownTick(frame: Frame): Promise<number> {
    return Number(await frame.locator('.scrubber-track').getAttribute('aria-valuenow'));
  }

  /** "File: Open File..." and VS Code's own file dialog answered with `path`. */
  async function openFile(p: Page, path: string): Promise<void> {
    await runCommand(p, 'File: Open File...');
    await answerOpenFileDialog(p, path, TIMEOUT_MS);
  }

  /** Right-clicks the gutter beside `line` of the editor of `fileName` (brought into view by Go to Line). */
  async function gutterContextMenu(p: Page, fileName: string, line: number): Promise<number> {
    // Its tab in front through Quick Open (the panel may be; the floating debug toolbar can cover tabs).
    await quickOpen(p, fileName);
    const editor = editorOf(p, fileName);
    const box = await editor.boundingBox();
    assert.ok(box !== null);
    await p.mouse.click(box.x + box.width * 0.4, box.y + box.height * 0.5);
    await p.keyboard.press('Control+G');
    const input = p.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(`:${line}`);
    await p.keyboard.press('Enter');
    await input.waitFor({ state: 'hidden' });
    const number = editor
      .locator('.margin-view-overlays .line-numbers')
      .filter({ hasText: new RegExp(`^\\s*${line}\\s*$`) })
      .first();
    await number.waitFor({ state: 'visible' });
    const at = await number.boundingBox();
    const margin = await editor.locator('.margin').first().boundingBox();
    assert.ok(at !== null && margin !== null, `line ${line} is not shown`);
    const y = at.y + at.height / 2;
    await p.mouse.click(margin.x + 8, y, { button: 'right' });
    return y;
  }

  /** A logpoint on `line` of crawler.ts printing `message`, as a person adds it: gutter menu, the widget, Enter. */
  async function addLogpoint(p: Page, line: number, message: string): Promise<void> {
    const y = await gutterContextMenu(p, 'crawler.ts', line);
    const item = p.locator('.monaco-menu .action-item', { hasText: /Add Logpoint/ }).first();
    await item.waitFor({ state: 'visible' });
    // As a person does: the pointer on the item a moment before the click (a click at the very moment the
    // menu appears can be taken for the right button's release, and ignored).
    await item.hover();
    await p.waitForTimeout(500);
    await item.click();
    const widget = p.locator('.breakpoint-widget');
    await widget.waitFor({ state: 'visible' });
    // Typed once the widget has the keyboard (it takes it a moment after it shows): before, the keys go to
    // the editor, which then holds `{url}` and a plain breakpoint.
    await until('the logpoint widget to have the focus', () =>
      widget.evaluate((w) => w.contains(w.ownerDocument.activeElement)),
    );
    await p.keyboard.type(message);
    // No suggestion open (Enter would take it instead of the message).
    await widget
      .locator('.suggest-widget.visible')
      .waitFor({ state: 'hidden', timeout: 5_000 })
      .catch(() => undefined);
    if (await widget.locator('.suggest-widget.visible').isVisible()) await p.keyboard.press('Escape');
    await p.keyboard.press('Enter');
    await widget.waitFor({ state: 'hidden' });
    await until(`the logpoint glyph on line ${line}`, async () => {
      const glyphs = await editorOf(p, 'crawler.ts')
        .locator('[class*="codicon-debug-breakpoint"]')
        .evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => [r.top, r.bottom]));
      return glyphs.some(([top, bottom]) => y >= top! && y < bottom!);
    });
  }

  /**
   * A Variables row `name = value` of the Locals scope, expanded first as a person does (VS Code opens only
   * the first scope: a line inside a block shows the block's).
   */
  async function localRow(p: Page, pattern: string): Promise<Locator> {
    const scope = debugViewRows(p, 'debug-variables', /^\s*Locals\s*$/).first();
    await scope.waitFor({ state: 'visible', timeout: TIMEOUT_MS });
    if ((await scope.getAttribute('aria-expanded')) === 'false') await scope.locator('.monaco-tl-twistie').click();
    const row = debugViewRows(p, 'debug-variables', new RegExp(`^\\s*${pattern}`)).first();
    await row.waitFor({ state: 'visible', timeout: TIMEOUT_MS });
    return row;
  }

  /** The Debug Console's filter (its panel's title bar): shows only the rows with `text`. */
  async function filterConsole(p: Page, text: string): Promise<void> {
    const filter = p.locator('.part.panel input[placeholder^="Filter"]').first();
    await filter.waitFor({ state: 'visible' });
    await filter.fill(text);
  }

  step('the demo crawl runs to its end (Run Crawl from the palette, the Welcome page open)', async () => {
    await page()
      .locator('.tabs-container .tab', { hasText: /Welcome|Walkthrough/ })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    const frame = await startDemoCrawl(page(), TIMEOUT_MS);
    await waitForPanelPhase(frame, 'finished', 180_000);
  });

  step('"Coroscope: Debug This Run" stops at its end; crawler.ts opened', async () => {
    const p = page();
    await showInspector(p);
    await debugThisRun(p);
    await debugViewRows(p, 'debug-call-stack', /event loop \[finished\]/)
      .first()
      .waitFor({ timeout: TIMEOUT_MS });
    const dir = suite.server().extensionsDir;
    const installed = readdirSync(dir).find(
      (d) => /coroscope/i.test(d) && existsSync(join(dir, d, 'runtime', 'crawler', 'crawler.ts')),
    );
    assert.ok(installed !== undefined, `the installed extension in ${dir}`);
    await openFile(p, join(dir, installed, 'runtime', 'crawler', 'crawler.ts'));
    await editorOf(p, 'crawler.ts').waitFor({ state: 'visible', timeout: TIMEOUT_MS });
  });

  step(
    "a logpoint printing {url} in fetch (the gutter's Add Logpoint...) lists every hit in the Debug Console",
    async () => {
      const p = page();
      await addLogpoint(p, PARSED_LINE, '{url}');
      const added = Date.now();
      // The list ends the console (it shows its last rows): its header is found through the console's filter.
      await consoleRows(p, /⟲ tick/)
        .first()
        .waitFor({ timeout: TIMEOUT_MS });
      console.log(`--- the hits shown ${Date.now() - added} ms after the logpoint was added`);
      await filterConsole(p, `logpoint at crawler.ts:${PARSED_LINE} ran`);
      const header = consoleRows(
        p,
        new RegExp(
          `logpoint at crawler\\.ts:${PARSED_LINE} ran (\\d+) times in the recorded run \\(ticks 1\\.\\.(\\d+)`,
        ),
      ).first();
      await header.waitFor({ timeout: TIMEOUT_MS });
      console.log(`--- listed: ${(await header.innerText()).replace(/\s+/g, ' ')}`);
      const said = /ran (\d+) times/.exec(await header.innerText());
      const count = Number(said?.[1]);
      // The demo site's pages parsed: about 270 (the default site), each its own URL.
      assert.ok(count >= 100, `ran ${count} times`);
      await filterConsole(p, '');
      const rows = await until(
        'the hits listed',
        async () => {
          const texts = await consoleRows(p, /⟲ tick/).allInnerTexts();
          const hits = texts.map(parseHit).filter((h): h is ListedHit => h !== null);
          return hits.length >= 3 ? hits : undefined;
        },
        TIMEOUT_MS,
      );
      for (const h of rows) {
        assert.match(h.task, /^worker-\d+$/, `a hit of fetch's line is a worker's: ${JSON.stringify(h)}`);
        assert.match(h.url, /^http:\/\/127\.0\.0\.1:\d+\//);
      }
      for (let i = 1; i < rows.length; i++) {
        assert.ok(rows[i]!.hit > rows[i - 1]!.hit && rows[i]!.hit < count, 'listed in order');
        assert.ok(rows[i]!.tick >= rows[i - 1]!.tick, `in tick order: ${rows[i - 1]!.tick}, ${rows[i]!.tick}`);
      }
      // One from the middle of those shown (not the last: the crawl's end is near it).
      hit = rows[Math.floor(rows.length / 2)];
      await screenshot(p, 'past-logpoints-hits');
    },
  );

  step("Ctrl+click on a hit's link: the debugger and the panel at that moment, its url in Variables", async () => {
    const p = page();
    assert.ok(hit !== undefined, 'no hit listed');
    const h = hit;
    const row = consoleRows(p, new RegExp(`hit=${h.hit}(?!\\d)`)).first();
    await row.locator('a', { hasText: /logpoint-hit/ }).click({ modifiers: ['Control'] });
    await waitForCurrentLine(p, 'crawler.ts', PARSED_LINE, TIMEOUT_MS);
    await until(
      `the Call Stack on fetch's line ${PARSED_LINE} in ${h.task}`,
      async () =>
        (await threadTopFrameTexts(p)).some((t) => new RegExp(`fetch\\s*crawler\\.ts\\s*${PARSED_LINE}:`).test(t)) &&
        (await debugViewRows(p, 'debug-call-stack', new RegExp(`${escapeRegExp(h.task)} \\[`)).count()) > 0,
      TIMEOUT_MS,
    );
    await localRow(p, `url\\s*[:=]\\s*['"]?${escapeRegExp(h.url)}['"]?\\s*$`);
    const frame = await showInspector(p);
    await frame
      .locator('.scrubber-label')
      .filter({ hasText: `Viewing in tick ${h.tick} of` })
      .waitFor({ timeout: TIMEOUT_MS });
    assert.equal(await shownTick(frame), h.tick);
    await screenshot(p, 'past-logpoints-at-hit');
  });

  step(
    '"Go to Last Change" on response (Variables menu) lands after its write, where the recording ran it',
    async () => {
      const p = page();
      assert.ok(hit !== undefined, 'no hit gone to');
      const h = hit;
      const response = await localRow(p, 'response\\s*[:=]');
      await response.click({ button: 'right' });
      const item = p.locator('.monaco-menu .action-item', { hasText: /Go to Last Change/ }).first();
      await item.waitFor({ state: 'visible', timeout: TIMEOUT_MS });
      // As a person does: the pointer on the item a moment before the click (a click at the very moment the
      // menu appears can be taken for the right button's release, and ignored).
      await item.hover();
      await p.waitForTimeout(500);
      await item.click();
      const said = consoleRows(p, /Go to Last Change: response was set by/).first();
      await said.waitFor({ timeout: TIMEOUT_MS });
      console.log(`--- ${(await said.innerText()).replace(/\s+/g, ' ')}`);
      const m = /was set by \S*crawler\.ts:(\d+) \(tick (\d+), ([^,;)]+)/.exec(await said.innerText());
      assert.ok(m !== null, await said.innerText());
      change = { line: Number(m[1]), tick: Number(m[2]), task: m[3]! };
      assert.equal(change.line, GET_LINE, 'the line that wrote response');
      assert.equal(change.task, h.task, "the hit's task wrote it");
      assert.ok(change.tick <= h.tick, `set at tick ${change.tick}, before the hit's ${h.tick}`);
      await waitForCurrentLine(p, 'crawler.ts', AFTER_GET_LINE, TIMEOUT_MS);
      await until(
        `the Call Stack on fetch's line ${AFTER_GET_LINE}`,
        async () =>
          (await threadTopFrameTexts(p)).some((t) => new RegExp(`fetch\\s*crawler\\.ts\\s*${AFTER_GET_LINE}:`).test(t)),
        TIMEOUT_MS,
      );
      // The same fetch: its url, its response set.
      await localRow(p, `url\\s*[:=]\\s*['"]?${escapeRegExp(h.url)}['"]?\\s*$`);
      await localRow(p, 'response\\s*[:=]\\s*ClientResponse');
      const frame = await showInspector(p);
      await frame
        .locator('.scrubber-label')
        .filter({ hasText: `Viewing in tick ${change.tick} of` })
        .waitFor({ timeout: TIMEOUT_MS });
      await screenshot(p, 'past-logpoints-last-change');
    },
  );

  step('the recording agrees: a logpoint on the line after the write ran there for that task and url', async () => {
    const p = page();
    assert.ok(hit !== undefined && change !== undefined, 'no change found');
    const h = hit;
    await filterConsole(p, `logpoint at crawler.ts:${AFTER_GET_LINE} ran`);
    await addLogpoint(p, AFTER_GET_LINE, '{url}');
    const header = consoleRows(p, new RegExp(`logpoint at crawler\\.ts:${AFTER_GET_LINE} ran \\d+ times`)).first();
    await header.waitFor({ timeout: TIMEOUT_MS });
    console.log(`--- listed: ${(await header.innerText()).replace(/\s+/g, ' ')}`);
    // Only the rows of that URL: its hit on the parsed line, and its runs of the line after the write.
    await filterConsole(p, h.url);
    const ofUrl = await until(
      `the rows of ${h.url}`,
      async () => {
        const listed = (await consoleRows(p, /⟲ tick/).allInnerTexts())
          .map(parseHit)
          .filter((x): x is ListedHit => x !== null && x.url === h.url);
        return listed.some((x) => x.hit !== h.hit) ? listed : undefined;
      },
      TIMEOUT_MS,
    ).catch(async (e: unknown) => {
      // What the console showed instead: the failure's evidence in CI's log.
      const rows = await consoleRows(p, /./).allInnerTexts();
      console.log(`--- ${rows.length} console rows shown:\n${rows.slice(0, 12).join('\n')}`);
      throw e;
    });
    const written = ofUrl.filter((x) => x.hit !== h.hit && x.taskId === h.taskId && x.tick <= h.tick);
    assert.ok(written.length > 0, `no run of line ${AFTER_GET_LINE} for ${h.url}: ${JSON.stringify(ofUrl)}`);
    assert.equal(change.tick, written.at(-1)!.tick, `the recording ran line ${AFTER_GET_LINE} at that tick`);
    await filterConsole(p, '');
  });

  step('"Follow This Task" in the panel: the debug session follows the task', async () => {
    const p = page();
    assert.ok(hit !== undefined);
    const h = hit;
    await filterConsole(p, '');
    const frame = await showInspector(p);
    await frame.locator('.tab[data-view="tasks"]').click();
    await frame.locator('[data-action="tl-show-stack"], .vrows').first().waitFor();
    await frame.locator(`.vrows .task-row[data-id="${h.taskId}"]`).click();
    await frame.locator('.detail-title', { hasText: h.task }).waitFor();
    await frame.locator('.task-detail [data-action="follow-task"]').click();
    await consoleRows(p, new RegExp(`Coroscope: following ${escapeRegExp(h.task)}`))
      .first()
      .waitFor({ timeout: TIMEOUT_MS });
  });

  step("the timeline's logpoint marks stay once the debug session ended; one goes to its tick", async () => {
    const p = page();
    assert.ok(hit !== undefined);
    const h = hit;
    let frame = await showInspector(p);
    const laneMark = async (): Promise<Locator> => {
      await frame.locator('.tab[data-view="timeline"]').click();
      await frame.locator('.tab.active[data-view="timeline"]').waitFor();
      await frame.locator('.tl-label', { hasText: new RegExp(`^#${h.taskId} `) }).click();
      return frame.locator('.tl-lane-detail [data-action="tl-next-logpoint-hit"]');
    };
    await (await laneMark()).waitFor({ timeout: TIMEOUT_MS });
    await runCommand(p, 'Debug: Disconnect');
    await p.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: TIMEOUT_MS });
    frame = await showInspector(p);
    const mark = await laneMark();
    await mark.waitFor({ timeout: TIMEOUT_MS });
    const label = await mark.innerText();
    const tick = Number(/tick (\d+)/.exec(label)?.[1]);
    assert.ok(tick > 0, label);
    await mark.click();
    await frame
      .locator('.scrubber-label')
      .filter({ hasText: `Viewing tick ${tick} of` })
      .waitFor({ timeout: TIMEOUT_MS });
    await screenshot(p, 'past-logpoints-marks-after-session');
  });

  suite.leftNoExtensionErrors();
});
