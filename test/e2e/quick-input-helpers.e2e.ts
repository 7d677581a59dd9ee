/**
 * The support code's palette and quick-input helpers (support/browser.ts runCommand and
 * acceptQuickInput) against a stand-in of VS Code's quick input, in Chromium, without code-server:
 * the ways an Enter is lost under load, made to happen every time, and the rule that nothing is
 * accepted twice.
 *
 * The stand-in: a `.monaco-workbench` page whose F1 opens a `.quick-input-widget` (the markup the
 * helpers read: input box, title, rows with `.label-name`, the first row `.focused`); Enter in its
 * input takes the focused row, which closes it and records the command. Options make it
 * misbehave as the workbench does under load (its options, URL-encoded): `steal` moves the keyboard to an editor once, right
 * after the first typing (a debug stop opening its source); `ignoreFirstEnter` drops the first
 * Enter that reaches the input; `slowAcceptMs` keeps the pick open that long after an accepted
 * Enter (an extension's pick, closed by the extension host's answer).
 *
 * Run: node --import tsx --test test/e2e/quick-input-helpers.e2e.ts   (needs /usr/bin/chromium only)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { acceptQuickInput, launchBrowser, runCommand } from './support/browser';

const STAND_IN = `<!doctype html>
<html><body>
<div class="monaco-workbench">
  <textarea id="editor"></textarea>
  <div class="quick-input-widget" style="display: none">
    <div class="quick-input-title"></div>
    <div class="quick-input-box"><input placeholder="Type the name of a command"></div>
    <div class="quick-input-list"></div>
  </div>
</div>
<script>
  const options = new URLSearchParams('MISBEHAVIOUR');
  const commands = ['Debug: Step Over', 'Debug: Step Into', 'Developer: Reload Window'];
  const widget = document.querySelector('.quick-input-widget');
  const input = widget.querySelector('input');
  const list = widget.querySelector('.quick-input-list');
  const editor = document.getElementById('editor');
  window.ran = [];
  window.accepted = 0;
  let stolen = false;
  let ignored = false;
  function render() {
    list.replaceChildren();
    const filter = input.value.replace(/^>/, '').toLowerCase();
    commands.filter((c) => c.toLowerCase().includes(filter)).forEach((c, i) => {
      const row = document.createElement('div');
      row.className = i === 0 ? 'monaco-list-row focused' : 'monaco-list-row';
      const name = document.createElement('span');
      name.className = 'label-name';
      name.textContent = c;
      row.append(name);
      list.append(row);
    });
  }
  function show() {
    widget.style.display = '';
    input.value = '>';
    render();
    input.focus();
  }
  document.addEventListener('keydown', (e) => {
    if (e.key === 'F1') { e.preventDefault(); show(); }
  });
  input.addEventListener('input', () => {
    render();
    if (options.has('steal') && !stolen) { stolen = true; setTimeout(() => editor.focus(), 0); }
  });
  input.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    if (options.has('ignoreFirstEnter') && !ignored) { ignored = true; return; }
    const row = list.querySelector('.focused .label-name');
    if (row === null) return;
    window.accepted++;
    if (row.textContent === 'Developer: Reload Window') { location.reload(); return; }
    const close = () => { widget.style.display = 'none'; window.ran.push(row.textContent); };
    const slow = Number(options.get('slowAcceptMs') ?? 0);
    if (slow > 0) setTimeout(close, slow); else close();
  });
</script>
</body></html>`;

describe('palette and quick-input helpers (a stand-in quick input in Chromium)', { timeout: 60_000 }, () => {
  let browser: Browser | undefined;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  /** Loads of the stand-in page, per page (a reload is one more). */
  const loads = new WeakMap<Page, number>();
  async function standIn(misbehaviour: string): Promise<Page> {
    assert.ok(browser, 'the browser did not start');
    const page = await browser.newPage();
    // Served from a URL of its own, so that a reload loads it again.
    await page.route('http://stand-in.test/', (route) => {
      loads.set(page, (loads.get(page) ?? 0) + 1);
      return route.fulfill({ contentType: 'text/html', body: STAND_IN.replace('MISBEHAVIOUR', misbehaviour) });
    });
    await page.goto('http://stand-in.test/');
    return page;
  }
  async function ran(page: Page): Promise<string[]> {
    return (await page.evaluate('window.ran')) as string[];
  }
  async function accepted(page: Page): Promise<number> {
    return (await page.evaluate('window.accepted')) as number;
  }

  it('runs the command once when the keyboard leaves the palette right after the typing', async () => {
    const page = await standIn('steal');
    await runCommand(page, 'Debug: Step Over');
    assert.deepEqual(await ran(page), ['Debug: Step Over']);
    await page.close();
  });

  it('presses Enter again when the palette stays open after it, and runs the command once', async () => {
    const page = await standIn('ignoreFirstEnter');
    await runCommand(page, 'Debug: Step Over');
    assert.deepEqual(await ran(page), ['Debug: Step Over']);
    await page.close();
  });

  it('takes a command that reloads the window as run (its Enter went into the page it left), once', async () => {
    const page = await standIn('');
    await runCommand(page, 'Developer: Reload Window');
    await page.locator('.monaco-workbench').waitFor();
    assert.equal(loads.get(page), 2, 'the page loaded, then reloaded once');
    await page.close();
  });

  it('waits for a pick that closes a while after its Enter, without a second Enter', async () => {
    const page = await standIn('slowAcceptMs=1500');
    await page.keyboard.press('F1');
    await page.locator('.quick-input-widget input').fill('>Debug: Step Into');
    await acceptQuickInput(page, 'a slow pick', { value: '>Debug: Step Into' });
    // Returned once the pick had closed.
    assert.deepEqual(await ran(page), ['Debug: Step Into']);
    assert.equal(await accepted(page), 1, 'one Enter reached the pick');
    await page.close();
  });
});
