/**
 * "Coroscope: Compare Approaches…" end to end: the packaged .vsix in a real VS Code
 * (code-server 4.100.3) driven in Debian's Chromium. From the command palette, picks 10 pages,
 * and reads the chart the inspector panel's dashboard draws: a bar of seconds per approach in
 * the article's order, and a bar of memory per concurrent fetch for the pools and the
 * event-loop approaches. Screenshot: .test-artifacts/e2e/compare-dashboard.png.
 *
 * Run: node --import tsx --test test/e2e/compare.e2e.ts   (after test/e2e/setup/install-code-server.sh)
 * Set E2E_SKIP_PACKAGE=1 to reuse an existing coroscope.vsix.
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { APPROACHES } from '../../runtime/samples/index';
import { findWebviewFrame, pickQuickInputItem, runCommand, screenshot } from './support/browser';
import { useWorkbenchSuite } from './support/workbench-suite';

describe('"Coroscope: Compare Approaches…" in VS Code (code-server)', { timeout: 240_000 }, () => {
  const { page, step, leftNoExtensionErrors } = useWorkbenchSuite({
    name: 'compare',
    files: { 'notes.md': '# Coroscope comparison workspace\n' },
    installExtension: true,
    settings: { 'workbench.colorTheme': 'Default Dark Modern' },
    viewport: { width: 1400, height: 900 },
    hideSideBar: true,
  });

  step('draws seconds and memory per concurrent fetch for each approach on the dashboard', async () => {
    await runCommand(page(), 'Coroscope: Compare Approaches…');
    await pickQuickInputItem(page(), '10 pages', { filter: '10 pages', placeholder: 'how many demo-site pages' });
    const frame = await findWebviewFrame(page(), '.comparison-box', 30_000);
    await frame.locator('.comparison-box[data-state="done"]').waitFor({ timeout: 120_000 });
    const seconds = frame.locator('.comparison-bars[data-chart="seconds"] .bar-row');
    assert.deepEqual(await seconds.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-approach'))), [
      ...APPROACHES,
    ]);
    const memory = await frame
      .locator('.comparison-bars[data-chart="memory"] .bar-row')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-approach')));
    for (const a of ['processes', 'threads', 'callbacks', 'generators', 'runtime'])
      assert.ok(memory.includes(a), `memory bar for ${a}: ${memory.join(', ')}`);
    // The article's ordering: the blocking bar is longer than every event-loop approach's.
    const secondsOf = async (a: string): Promise<number> =>
      Number.parseFloat(
        await frame
          .locator(`.comparison-bars[data-chart="seconds"] .bar-row[data-approach="${a}"] .bar-count`)
          .innerText(),
      );
    const blocking = await secondsOf('blocking');
    for (const a of ['callbacks', 'generators', 'runtime'])
      assert.ok((await secondsOf(a)) < blocking, `${a} faster than blocking`);
    await screenshot(page(), 'compare-dashboard');
  });

  leftNoExtensionErrors();
});
