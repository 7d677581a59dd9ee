// The scrubber (webview/views/scrubber.ts): shown once the run has a timeline, it says the tick
// shown of how many, and its keys and its "Back to present" ask the extension to show another tick.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { closeDom } from '../dom-env';
import { fullSnapshot } from '../fixtures-tasks';
import { makeTimeline } from '../fixtures-timeline';
import { openPanel, panelInit, runStatus, type OpenPanel } from '../panel-harness';

afterEach(() => closeDom());

async function scrubberPanel(status = runStatus({ phase: 'finished', tick: 70 })): Promise<OpenPanel> {
  return openPanel(panelInit({ status, snapshot: fullSnapshot(3) }), {
    timeline: () => makeTimeline(2, 70),
    // Answered without the moment's id: the seek is settled by its answer, and the next one goes.
    seek: (p) => ({ tick: (p as { tick: number | null }).tick }),
  });
}

function press(panel: OpenPanel, key: string, shiftKey = false): void {
  panel
    .one('.scrubber-track')
    .dispatchEvent(new KeyboardEvent('keydown', { key, shiftKey, bubbles: true, cancelable: true }));
}

/** The ticks the panel asked to show, in order (null: the present). */
function seeks(panel: OpenPanel): Array<number | null> {
  return panel.requests('seek').map((r) => (r.params as { tick: number | null }).tick);
}

describe('the scrubber', () => {
  it('is hidden while the run has no timeline', async () => {
    const panel = await openPanel(panelInit({ snapshot: fullSnapshot(3) }));
    assert.equal(panel.one('.scrubber').hidden, true);
  });

  it('says the tick shown, the last tick and the present on its slider', async () => {
    const panel = await scrubberPanel();
    assert.equal(panel.requests('timeline').length, 1);
    const track = panel.one('.scrubber-track');
    assert.equal(panel.one('.scrubber').hidden, false);
    assert.deepEqual(
      ['aria-valuemin', 'aria-valuemax', 'aria-valuenow', 'aria-valuetext'].map((a) => track.getAttribute(a)),
      ['1', '70', '70', 'tick 70, the present'],
    );
    assert.equal(panel.one('.scrubber-thumb').style.left, '100.000%');
    assert.equal(panel.one('[data-action="back-to-present"]').hidden, true);
  });

  it('asks for the tick before, ten before, the first and the present with its keys', async () => {
    const panel = await scrubberPanel();
    for (const key of ['ArrowLeft', 'Home', 'End', 'Escape']) {
      press(panel, key);
      await panel.settle();
    }
    assert.deepEqual(seeks(panel), [69, 1, 70, null]);
    assert.ok(panel.requests('seek').every((r) => typeof (r.params as { moment?: unknown }).moment === 'string'));
  });

  it('in the past says so, and "Back to present" asks for the present', async () => {
    const panel = await scrubberPanel(runStatus({ phase: 'paused', tick: 70, viewedTick: 20 }));
    const track = panel.one('.scrubber-track');
    assert.equal(track.getAttribute('aria-valuenow'), '20');
    assert.equal(track.getAttribute('aria-valuetext'), 'tick 20 of 70, in the past');
    assert.ok(panel.one('.scrubber').classList.contains('past'));
    const back = panel.one('[data-action="back-to-present"]');
    assert.equal(back.hidden, false);
    back.click();
    assert.deepEqual(seeks(panel), [null]);
  });
});
