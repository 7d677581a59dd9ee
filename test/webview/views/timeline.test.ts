// The Timeline view (webview/views/timeline.ts): a lane per task of the recorded run, each labelled
// with what its task does at the tick shown; its filter, its keys (seek, lane selection), the lane's
// detail and its jumps. The lanes' bars are drawn on a canvas, not read here: the labels and the
// detail are the elements a user (and a screen reader) reads.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { LogpointMark } from '../../../protocol/webview-protocol';
import { closeDom } from '../dom-env';
import { fullSnapshot } from '../fixtures-tasks';
import { makeTimeline } from '../fixtures-timeline';
import { openPanel, panelInit, runStatus, type OpenPanel } from '../panel-harness';

afterEach(() => closeDom());

const HIT: LogpointMark = {
  hit: 7,
  tick: 30,
  taskId: 2,
  task: 'worker-1',
  time: 58,
  message: 'got <b>page</b>',
  file: '/src/crawl.ts',
  line: 71,
};

async function timelinePanel(
  viewedTick?: number,
  timeline: () => unknown = () => makeTimeline(2, 70),
): Promise<OpenPanel> {
  const status = runStatus({ phase: 'paused', tick: 70, ...(viewedTick !== undefined ? { viewedTick } : {}) });
  const panel = await openPanel(panelInit({ status, snapshot: fullSnapshot(3), logpointHits: [HIT] }), {
    timeline,
    seek: (p) => ({ tick: (p as { tick: number | null }).tick }),
    goToLogpointHit: () => ({}),
  });
  panel.one('.tab[data-view="timeline"]').click();
  await panel.settle();
  return panel;
}

function labels(panel: OpenPanel): Array<string | null> {
  return panel
    .all('.tl-labels .tl-label')
    .filter((l) => !l.hidden)
    .map((l) => l.getAttribute('aria-label'));
}

function press(panel: OpenPanel, key: string): void {
  panel.one('.tl-scroll').dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
}

describe('the timeline view', () => {
  it('says why there is no timeline: no run, or a run not recorded', async () => {
    const none = await openPanel(panelInit({ status: runStatus({ phase: 'idle', runId: null }) }));
    none.one('.tab[data-view="timeline"]').click();
    await none.settle();
    assert.equal(
      none.one('.timeline-view .empty-note').textContent,
      'Run a crawl or a sample (or open a recording) to see its timeline.',
    );
    const unrecorded = await timelinePanel(undefined, () => {
      throw new Error('not recorded');
    });
    assert.equal(
      unrecorded.one('.timeline-view .empty-note').textContent,
      'This run is not recorded: turn on the coroscope.record setting and run it again to see its timeline.',
    );
    assert.equal(labels(unrecorded).length, 0);
    // Recording was on, and the host said why it did not record the run: that reason, not the setting.
    const why = 'sample callbacks runs a loop of its own, which is not recorded: its past cannot be replayed';
    const own = await openPanel(
      panelInit({ status: runStatus({ phase: 'finished', notRecorded: why }), snapshot: fullSnapshot(1) }),
      {
        timeline: () => {
          throw new Error(`timeline: run 1 was not recorded: ${why}`);
        },
      },
    );
    own.one('.tab[data-view="timeline"]').click();
    await own.settle();
    assert.equal(own.one('.timeline-view .empty-note').textContent, `This run is not recorded: ${why}.`);
  });

  it('labels a lane per task with what it does at the tick shown, and counts lanes and ticks', async () => {
    const panel = await timelinePanel(4);
    assert.equal(panel.one('.tl-count').textContent, '3 lanes · 70 ticks');
    assert.deepEqual(labels(panel), [
      'Task #1 crawl, at tick 4: suspended, awaiting queue.join',
      'Task #2 worker-1, at tick 4: suspended, awaiting socket.read (woken at tick 5 by I/O (a socket became ready))',
      'Task #3 worker-2, at tick 4: suspended, awaiting socket.read (woken at tick 10 by I/O (a socket became ready))',
    ]);
  });

  it('keeps the lanes whose task matches the filter typed', async () => {
    const panel = await timelinePanel();
    const filter = panel.one<HTMLInputElement>('.tl-filter');
    filter.value = 'worker-2';
    filter.dispatchEvent(new Event('input', { bubbles: true }));
    await panel.settle();
    assert.equal(panel.one('.tl-count').textContent, '1 lane · 70 ticks');
    assert.deepEqual(
      panel
        .all('.tl-labels .tl-label')
        .filter((l) => !l.hidden)
        .map((l) => l.textContent),
      ['#3 worker-2'],
    );
  });

  it("selects a lane on a click and details it; Show stack shows the task's stack", async () => {
    const panel = await timelinePanel(10);
    panel.all('.tl-labels .tl-label')[2]!.click();
    await panel.settle();
    assert.equal(panel.app.ui().selectedTask, 3);
    assert.equal(panel.one('.tl-label.selected').dataset.task, '3');
    assert.equal(panel.one('.tl-detail-task').textContent, '#3 worker-2');
    assert.ok(panel.one('.tl-detail-what').textContent?.startsWith(' at tick 10: '));
    panel.one('[data-action="tl-show-stack"]').click();
    await panel.settle();
    assert.equal(panel.app.ui().view, 'tasks');
    assert.equal(panel.app.ui().selectedTask, 3);
  });

  it('moves the tick shown with the left and right arrows and the lane selected with up and down', async () => {
    const panel = await timelinePanel(10);
    press(panel, 'ArrowLeft');
    await panel.settle();
    press(panel, 'ArrowRight');
    await panel.settle();
    assert.deepEqual(
      panel.requests('seek').map((r) => (r.params as { tick: number }).tick),
      [9, 11],
    );
    press(panel, 'ArrowDown');
    assert.equal(panel.app.ui().selectedTask, 1);
    press(panel, 'ArrowDown');
    assert.equal(panel.app.ui().selectedTask, 2);
    press(panel, 'ArrowUp');
    assert.equal(panel.app.ui().selectedTask, 1);
  });

  it("offers the lane's next logpoint hit and asks the debugger to go there", async () => {
    const panel = await timelinePanel(10);
    panel.all('.tl-labels .tl-label')[1]!.click();
    await panel.settle();
    const next = panel.one('[data-action="tl-next-logpoint-hit"]');
    assert.equal(next.querySelector('.button-text')?.textContent, 'Logpoint hit at tick 30');
    assert.equal(panel.all('.tl-lane-detail b').length, 0, "the logpoint's message never becomes markup");
    next.click();
    assert.deepEqual(
      panel.requests('goToLogpointHit').map((r) => r.params),
      [{ hit: 7 }],
    );
  });
});
