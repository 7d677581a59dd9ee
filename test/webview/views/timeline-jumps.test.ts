// The jumps from a task to its moments (webview/views/timeline-jumps.ts), as the task detail
// shows them: "Who woke this?" and "Created here" each ask the extension to show their tick.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { wakerText } from '../../../webview/views/timeline-jumps';
import { closeDom } from '../dom-env';
import { fullSnapshot } from '../fixtures-tasks';
import { makeTimeline } from '../fixtures-timeline';
import { openPanel, panelInit, runStatus, type OpenPanel } from '../panel-harness';

afterEach(() => closeDom());

async function detailOfTask(taskId: number, viewedTick: number): Promise<OpenPanel> {
  const panel = await openPanel(
    panelInit({ status: runStatus({ phase: 'paused', tick: 70, viewedTick }), snapshot: fullSnapshot(4) }),
    { timeline: () => makeTimeline(2, 70), seek: (p) => ({ tick: (p as { tick: number | null }).tick }) },
  );
  panel.app.dispatch({ type: 'selectTask', id: taskId });
  await panel.settle();
  return panel;
}

describe('the timeline jumps', () => {
  it('offer the tick that woke a suspended task and the tick it was created, and seek there when pressed', async () => {
    const panel = await detailOfTask(2, 4);
    const woken = panel.one('.timeline-jumps [data-action="jump-woken"]');
    const created = panel.one('.timeline-jumps [data-action="jump-created"]');
    const wokeAt = panel.app.timeline.jumps(panel.app.timeline.lane(2)!, 4).woken!.tick;
    assert.equal(woken.dataset.tick, String(wokeAt));
    assert.equal(created.dataset.tick, '1');
    woken.click();
    await panel.settle();
    created.click();
    assert.deepEqual(
      panel.requests('seek').map((r) => (r.params as { tick: number }).tick),
      [wokeAt, 1],
    );
  });

  it('are not offered for a task the timeline does not know', async () => {
    const panel = await detailOfTask(4, 4);
    assert.equal(panel.all('.timeline-jumps').length, 0);
    assert.equal(panel.one('.detail-title').textContent, '#4 worker-3');
  });

  it('name who woke a task in words', () => {
    assert.deepEqual(
      [wakerText(3), wakerText('io'), wakerText('timer'), wakerText(null)],
      ['task #3', 'I/O (a socket became ready)', 'a timer', 'something the recording did not name'],
    );
  });
});
