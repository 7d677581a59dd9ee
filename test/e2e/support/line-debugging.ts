/**
 * Line debugging in a VS Code editor as a person does it (line-debugger.e2e.ts): the editor
 * showing a file, its line brought into view ("Go to Line"), a click in the gutter (the glyph
 * margin) that toggles a breakpoint there, the line the debugger stopped on (the editor's
 * top-stack-frame line highlight), and the debug keys pressed with the
 * editor focused.
 */
import type { Locator, Page } from 'playwright-core';
import { runCommand, until } from './browser';

/** The editor (Monaco) of the editor group whose active tab shows `fileName`. */
export function editorOf(page: Page, fileName: string): Locator {
  return page
    .locator('.editor-group-container', {
      has: page.locator(`.tabs-container .tab.active[data-resource-name="${fileName}"]`),
    })
    .locator('.monaco-editor')
    .first();
}

/** Each element's [top, bottom] on the page, read in one go (the editor re-renders: elements come and go). */
function spans(elements: Locator): Promise<Array<[number, number, string]>> {
  return elements.evaluateAll((els) =>
    els.map((e): [number, number, string] => {
      const r = e.getBoundingClientRect();
      return [r.top, r.bottom, e.textContent ?? ''];
    }),
  );
}

/** The 1-based line of the line number shown at height `y` (null: none there). */
async function lineAt(editor: Locator, y: number): Promise<number | null> {
  const at = (await spans(editor.locator('.margin-view-overlays .line-numbers'))).find(
    ([top, bottom]) => y >= top && y < bottom,
  );
  const n = at === undefined ? NaN : Number(at[2].trim());
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** The line-number element of `line`, brought into view with "Go to Line" (Ctrl+G). */
async function lineNumber(page: Page, fileName: string, line: number): Promise<Locator> {
  const editor = await focusEditor(page, fileName);
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`:${line}`);
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden' });
  const el = editor
    .locator('.margin-view-overlays .line-numbers')
    .filter({ hasText: new RegExp(`^\\s*${line}\\s*$`) })
    .first();
  await el.waitFor({ state: 'visible' });
  return el;
}

/** Clicks the gutter (glyph margin) beside `line`, and waits for the breakpoint glyph to show or go. */
export async function toggleBreakpointInGutter(
  page: Page,
  fileName: string,
  line: number,
  expect: 'set' | 'removed',
): Promise<void> {
  const number = await lineNumber(page, fileName, line);
  const editor = editorOf(page, fileName);
  const box = await number.boundingBox();
  const margin = await editor.locator('.margin').first().boundingBox();
  if (box === null || margin === null) throw new Error(`line ${line} is not shown`);
  const y = box.y + box.height / 2;
  await page.mouse.click(margin.x + 8, y);
  await until(`the breakpoint on line ${line} to be ${expect}`, async () => {
    // Any breakpoint glyph (verified or not, or drawn with the current line's arrow).
    const found = (await spans(editor.locator('[class*="codicon-debug-breakpoint"]'))).some(
      ([top, bottom]) => y >= top && y < bottom,
    );
    return expect === 'set' ? found : !found;
  });
}

/** The line the debugger shows as the current one in `editor` (its top-stack-frame line highlight), null when none. */
export async function currentLine(editor: Locator): Promise<number | null> {
  const highlight = (await spans(editor.locator('.view-overlays .debug-top-stack-frame-line')))[0];
  return highlight === undefined ? null : lineAt(editor, (highlight[0] + highlight[1]) / 2);
}

/**
 * Where the editor of `fileName` shows the debugger's current position: "line:x", the line of
 * its top-frame highlight and the left edge (px) of the column marker VS Code puts at the
 * frame's column, so two statements of one line are told apart. Null while none shows. Read
 * from the editor, not the Call Stack: the Call Stack is a virtualized list, and the stopped
 * thread's frames may be scrolled out of it (an eleventh worker's), or another thread's shown
 * first.
 */
export async function editorPosition(page: Page, fileName: string): Promise<string | null> {
  const editor = editorOf(page, fileName);
  const line = await currentLine(editor);
  if (line === null) return null;
  const marks = await editor.locator('.debug-top-stack-frame-column').evaluateAll((els) =>
    els.map((e): [number, number] => {
      const r = e.getBoundingClientRect();
      return [Math.round(r.left), (r.top + r.bottom) / 2];
    }),
  );
  // Both drawn, on the same line: between two stops the editor is redrawn piecemeal (the old
  // line's highlight without its marker, for one), and a half-drawn position is no stop.
  const mark = marks[0];
  if (mark === undefined || (await lineAt(editor, mark[1])) !== line) return null;
  return `${line}:${mark[0]}`;
}

/**
 * The top frame of each thread expanded in the Call Stack view (VS Code expands the thread that
 * stops): the row's text, with the file and the line:column the adapter gave. Read by the
 * tree's own structure (a thread's first child row: aria-posinset 1), not as the list's first
 * frame row, which may be another thread's, nor as the selected row: VS Code selects the
 * focused frame, and a stop of the loop's thread that keeps the focus (a past tick's) replaces
 * the frames the focus was on, so no row may be selected. Only the rows drawn are read (a
 * virtualized list): fit for a Call Stack of a few threads.
 */
export async function threadTopFrameTexts(page: Page): Promise<string[]> {
  return page
    .locator('.debug-call-stack .monaco-list-row[aria-posinset="1"]')
    .evaluateAll((els) =>
      els
        .filter((e) => e.querySelector('.stack-frame') !== null)
        .map((e) => (e.textContent ?? '').replace(/\s+/g, ' ').trim()),
    );
}

/** Waits until the debugger's current line in the editor of `fileName` is `line`. */
export async function waitForCurrentLine(
  page: Page,
  fileName: string,
  line: number | ((n: number) => boolean),
  timeoutMs = 30_000,
): Promise<number> {
  const ok = typeof line === 'number' ? (n: number) => n === line : line;
  return until(
    `the current line of ${fileName} to be ${typeof line === 'number' ? line : 'as expected'}`,
    async () => {
      const n = await currentLine(editorOf(page, fileName));
      return n !== null && ok(n) ? n : false;
    },
    timeoutMs,
  );
}

/** Clicks in the text of the editor of `fileName` (showing its tab first), as a person does before a key. */
export async function focusEditor(page: Page, fileName: string): Promise<Locator> {
  const tab = page.locator(`.tabs-container .tab[data-resource-name="${fileName}"]`).first();
  if ((await tab.getAttribute('aria-selected')) !== 'true') await tab.click();
  const editor = editorOf(page, fileName);
  const box = await editor.boundingBox();
  if (box === null) throw new Error(`no editor shows ${fileName}`);
  // In the text, away from the gutter and the minimap.
  await page.mouse.click(box.x + box.width * 0.4, box.y + box.height * 0.5);
  return editor;
}

/** Presses a debug key (F10, F11, Shift+F11) with the editor of `fileName` focused. */
export async function debugKey(page: Page, fileName: string, key: string): Promise<void> {
  await focusEditor(page, fileName);
  await page.keyboard.press(key);
}

/**
 * "Coroscope: Debug This Run" from the palette (runCommand returns once the palette took it), then
 * waits for its debug session (the debug toolbar shows) or its refusal (a Coroscope message, which
 * fails with its words). Asked once: a command the palette took and that started nothing is a bug to
 * see, and asking again could start a second session. A minute: what an attach on a loaded machine (CI's
 * CPU is shared) may need.
 */
export async function debugThisRun(page: Page, waitMs = 60_000): Promise<void> {
  // Its refusals (not a crawl's progress, also a Coroscope notification).
  const said = page
    .locator('.notifications-toasts .notification-toast')
    .filter({ hasText: /Coroscope: (no run to debug|Debug This Run)/ });
  await runCommand(page, 'Coroscope: Debug This Run');
  const seen = await until(
    'a debug session or a message after Debug This Run',
    async () =>
      (await page.locator('.debug-toolbar').isVisible()) ? 'session' : (await said.count()) > 0 ? 'message' : undefined,
    waitMs,
  );
  if (seen === 'message') throw new Error(`Debug This Run said: ${await said.first().innerText()}`);
}
