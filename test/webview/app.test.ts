// The panel's application (webview/app.ts): the header says the run and its moment, the loop
// controls send the control the user pressed, and the tabs switch the view shown.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { closeDom } from './dom-env';
import { fullSnapshot } from './fixtures-tasks';
import { openPanel, panelInit, runStatus } from './panel-harness';

afterEach(() => closeDom());

describe('the panel application', () => {
  it('asks the extension for the run when it boots, and shows its title, phase and tick', async () => {
    const panel = await openPanel(
      panelInit({ status: runStatus({ phase: 'paused', tick: 42 }), snapshot: fullSnapshot(5) }),
    );
    assert.equal(panel.requests('ready').length, 1);
    assert.equal(panel.one('.run-title').textContent, 'Crawl of the demo site');
    assert.equal(panel.one('.phase-badge').dataset.phase, 'paused');
    assert.ok(panel.one('.run-detail').textContent?.split(' · ').includes('tick 42'));
  });
});
