/**
 * The "Coroutines, Step by Step" walkthrough as a test drives it (walkthrough.e2e.ts,
 * line-debugger.e2e.ts): opening it from the palette, a step's header, a step's button.
 */
import type { Locator, Page } from 'playwright-core';
import { pickQuickInputItem, runCommand, until } from './browser';

export const WALKTHROUGH_TITLE = 'Coroutines, Step by Step';
/** The button of a sample's step. */
export const SAMPLE_STEP_BUTTON = 'Open and Run Paused';

/** Opens the walkthrough with "Welcome: Open Walkthrough...". */
export async function openWalkthrough(page: Page): Promise<void> {
  await runCommand(page, 'Welcome: Open Walkthrough...');
  await pickQuickInputItem(page, WALKTHROUGH_TITLE, { filter: 'Coroutines', placeholder: 'Select a walkthrough' });
  await page
    .locator('.gettingStartedContainer h2.category-title', { hasText: WALKTHROUGH_TITLE })
    .waitFor({ state: 'visible', timeout: 30_000 });
}

/** The walkthrough's step (a sample's, or the first) (VS Code qualifies its id: publisher.name#walkthrough#step). */
export function walkthroughStep(page: Page, stepId: string): Locator {
  return page.locator(
    `.gettingStartedContainer button.getting-started-step[data-step-id$="coroscope.tutorial#${stepId}"]`,
  );
}

/** Expands a step of the walkthrough and clicks its button. */
export async function runStepButton(page: Page, stepId: string, button = SAMPLE_STEP_BUTTON): Promise<void> {
  const header = walkthroughStep(page, stepId);
  await header.click();
  await until(`the ${stepId} step to expand`, async () => (await header.getAttribute('aria-expanded')) === 'true');
  await header.getByText(button, { exact: true }).click();
}
