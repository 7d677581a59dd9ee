/**
 * VS Code's own file dialog in the browser (a quick input holding a path, listing one folder), answered
 * as a person does: the folder's path first, until the dialog lists that folder, then the file's name
 * typed, then Enter once the dialog holds exactly the path and its list has moved to that file (its row
 * focused, twice in a row). Filling
 * the whole path at once races the dialog's own navigation (it can list a parent folder and ignore the
 * rest); an Enter before the list follows the typing opens the row it still has (the folder's first).
 */
import { dirname, basename } from 'node:path';
import type { Page } from 'playwright-core';
import { until } from './browser';

/** Types `path` (of an existing file) into the open file dialog and accepts it. */
export async function answerOpenFileDialog(page: Page, path: string, timeoutMs: number): Promise<void> {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: timeoutMs });
  await until('the dialog to show its folder', async () => (await input.inputValue()) !== '', timeoutMs);
  const folder = `${dirname(path)}/`;
  const name = basename(path);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first();
  const deadline = Date.now() + timeoutMs;
  while (await input.isVisible()) {
    if (Date.now() > deadline) throw new Error(`the file dialog did not take ${path}`);
    await input.fill(folder);
    // The dialog lists the folder once it has gone there (its rows then include the file).
    const listed = await row.waitFor({ state: 'visible', timeout: 15_000 }).then(
      () => true,
      () => false,
    );
    if (!listed || (await input.inputValue()) !== folder) continue;
    await input.press('End');
    await page.keyboard.type(name);
    const typed = await until('the dialog to hold the path', async () => (await input.inputValue()) === path, 5_000)
      .then(() => true)
      .catch(() => false);
    if (!typed) continue;
    // The list's row under the keyboard is the file typed, and stays so: a list with no row focused yet is
    // one still following the typing (Enter then took the row it had before, the folder's first).
    const focused = page.locator('.quick-input-widget .monaco-list-row.focused');
    const focusedIsFile = async (): Promise<boolean> =>
      (await focused.count()) > 0 && (await focused.first().innerText()).trim().split('\n')[0]?.trim() === name;
    const onFile = await until(
      'the dialog to move to the file typed',
      async () => (await focusedIsFile()) && (await page.waitForTimeout(150).then(focusedIsFile)),
      5_000,
    )
      .then(() => true)
      .catch(() => false);
    if (!onFile) continue;
    await page.keyboard.press('Enter');
    await input.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
  }
}
