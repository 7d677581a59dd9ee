/**
 * The Coroscope inspector panel as end-to-end tests read and drive it: its webview frame, the
 * run's phase badge, the task table's rows, selecting a task, and starting the demo crawl from
 * the command palette as a person does.
 *
 * Invariants:
 * - Everything is read from what the panel renders (data attributes and text), never from the
 *   extension's state; every wait is for a state, with a timeout, never a fixed sleep.
 * - The selectors here are the panel's (webview/); a change of its markup is followed here once.
 */
import type { Frame, Page } from 'playwright-core';
import { acceptQuickInput, escapeRegExp, findWebviewFrame, runCommand, until } from './browser';

/** The element that tells the panel's frame from other webviews. */
export const PANEL_SELECTOR = '.task-table';
/** The input of the Run Crawl quick pick (its placeholder names the demo site, Enter's choice). */
export const RUN_CRAWL_INPUT = '.quick-input-widget input[placeholder*="embedded demo site"]';

export interface TaskRow {
  readonly id: string;
  readonly name: string;
  readonly state: string;
}

/** The panel's webview frame, once the panel is open. */
export function inspectorPanel(page: Page, timeoutMs = 30_000): Promise<Frame> {
  return findWebviewFrame(page, PANEL_SELECTOR, timeoutMs);
}

/** The run's phase as the badge says it (running, paused, finished, idle, hostDied…). */
export async function panelPhase(frame: Frame): Promise<string> {
  return (await frame.locator('.phase-badge').getAttribute('data-phase')) ?? '';
}

/** Waits for the phase badge to say `wanted` (exactly, or matching the RegExp). */
export async function waitForPanelPhase(frame: Frame, wanted: string | RegExp, timeoutMs = 30_000): Promise<void> {
  await until(
    `the panel to say ${String(wanted)}`,
    async () => {
      const phase = await panelPhase(frame);
      return typeof wanted === 'string' ? phase === wanted : wanted.test(phase);
    },
    timeoutMs,
  );
}

/** The run's detail line ("… · tick N · …"). */
export function runDetail(frame: Frame): Promise<string> {
  return frame.locator('.run-detail').innerText();
}

/** Step Tick in the panel's loop controls, then waits for the tick shown to move. */
export async function stepTick(frame: Frame): Promise<void> {
  const before = await runDetail(frame);
  await frame.locator('.loop-controls button[data-action="stepTick"]').click();
  await until('the tick to advance', async () => (await runDetail(frame)) !== before);
}

/** Steps tick by tick (at most `maxTicks`) until the task named `name` is suspended. */
export async function stepUntilSuspended(frame: Frame, name: string, maxTicks = 16): Promise<void> {
  for (let i = 0; i < maxTicks && (await taskState(frame, name)) !== 'suspended'; i++) await stepTick(frame);
  await until(`${name} suspended`, async () => (await taskState(frame, name)) === 'suspended');
}

/** The task table's rows shown now (the table is virtualised: the rows in view). */
export function taskRows(frame: Frame): Promise<TaskRow[]> {
  return frame.locator('.vrows .task-row[data-id]:not([hidden])').evaluateAll((els) =>
    els.map((el) => ({
      id: el.getAttribute('data-id') ?? '',
      name: el.querySelector('.c-name')?.textContent ?? '',
      state: el.getAttribute('data-state') ?? '',
    })),
  );
}

/** The state of the task row named `name`, or null when no such row is shown. */
export async function taskState(frame: Frame, name: string): Promise<string | null> {
  return (await taskRows(frame)).find((row) => row.name === name)?.state ?? null;
}

/** Clicks the task row named exactly `name` and waits for its detail. */
export async function selectTask(frame: Frame, name: string): Promise<void> {
  await frame
    .locator('.vrows .task-row', { has: frame.locator('.c-name', { hasText: new RegExp(`^${escapeRegExp(name)}$`) }) })
    .click();
  await frame.locator('.detail-title', { hasText: name }).waitFor();
}

/** The selected task's coroutine stack: the function name of each frame, outermost first. */
export function stackFrameNames(frame: Frame): Promise<string[]> {
  return frame.locator('.stack-section .frame-list .frame .frame-name').allInnerTexts();
}

/** Enter on the open Run Crawl quick pick, nothing typed (the demo site), checked taken (acceptQuickInput). */
export async function acceptRunCrawlPick(page: Page, timeoutMs = 30_000): Promise<void> {
  const runCrawlInput = page.locator(RUN_CRAWL_INPUT);
  await runCrawlInput.waitFor({ state: 'visible', timeout: timeoutMs });
  await acceptQuickInput(page, 'Run Crawl', { value: '', ready: () => runCrawlInput.isVisible(), timeoutMs });
}

/** "Coroscope: Run Crawl…" from the palette, Enter on its quick pick (the demo site); the panel's frame. */
export async function startDemoCrawl(page: Page, timeoutMs = 30_000): Promise<Frame> {
  await runCommand(page, 'Coroscope: Run Crawl…');
  await acceptRunCrawlPick(page, timeoutMs);
  return inspectorPanel(page, timeoutMs);
}
