// The panel's application (webview/app.ts): the header says the run and its moment, the loop
// controls send the control the user pressed (only those that apply now), the tabs switch the
// view shown, and a host that died is said in a banner.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { closeDom } from './dom-env';
import { fullSnapshot } from './fixtures-tasks';
import { makeTimeline } from './fixtures-timeline';
import { openPanel, panelInit, runStatus, type OpenPanel } from './panel-harness';

afterEach(() => closeDom());

function detailFacts(panel: OpenPanel): string[] {
  return (panel.one('.run-detail').textContent ?? '').split(' · ');
}

function enabledControls(panel: OpenPanel): string[] {
  return ['pause', 'stepTick', 'stepTask', 'continue', 'stop', 'debugRun'].filter(
    (a) => !panel.one<HTMLButtonElement>(`.loop-controls [data-action="${a}"]`).disabled,
  );
}

describe('the panel application', () => {
  it('asks the extension for the run when it boots, and shows its title, phase and tick', async () => {
    const panel = await openPanel(
      panelInit({ status: runStatus({ phase: 'paused', tick: 42 }), snapshot: fullSnapshot(5) }),
    );
    assert.equal(panel.requests('ready').length, 1);
    assert.equal(panel.one('.run-title').textContent, 'Crawl of the demo site');
    assert.equal(panel.one('.phase-badge').dataset.phase, 'paused');
    assert.deepEqual(detailFacts(panel), ['Running', 'tick 42', '3 live tasks']);
  });

  it('says in the header when the views show a past tick', async () => {
    const panel = await openPanel(
      panelInit({ status: runStatus({ phase: 'paused', tick: 70, viewedTick: 20 }), snapshot: fullSnapshot(5) }),
      { timeline: () => makeTimeline(2, 70) },
    );
    const facts = detailFacts(panel);
    assert.ok(facts[1]?.startsWith('viewing tick 20'), facts.join(' | '));
    assert.deepEqual(enabledControls(panel), ['stop', 'debugRun'], 'the loop controls wait for the present');
  });

  it("follows the status events: the header's phase and tick", async () => {
    const panel = await openPanel(panelInit({ snapshot: fullSnapshot(5) }));
    panel.event('status', runStatus({ phase: 'paused', tick: 57 }));
    await panel.settle();
    assert.equal(panel.one('.phase-badge').dataset.phase, 'paused');
    assert.ok(detailFacts(panel).includes('tick 57'), detailFacts(panel).join(' | '));
  });

  it('offers the loop controls that apply: Pause while running; Step, Continue while paused', async () => {
    const running = await openPanel(panelInit({ snapshot: fullSnapshot(5) }));
    assert.deepEqual(enabledControls(running), ['pause', 'stop', 'debugRun']);
    const paused = await openPanel(panelInit({ status: runStatus({ phase: 'paused' }), snapshot: fullSnapshot(5) }));
    assert.deepEqual(enabledControls(paused), ['stepTick', 'continue', 'stop', 'debugRun']);
    paused.app.dispatch({ type: 'selectTask', id: 2 });
    await paused.settle();
    assert.deepEqual(enabledControls(paused), ['stepTick', 'stepTask', 'continue', 'stop', 'debugRun']);
  });

  it('sends the control pressed, Step Task with the selected task', async () => {
    const panel = await openPanel(panelInit({ status: runStatus({ phase: 'paused' }), snapshot: fullSnapshot(5) }), {
      control: () => ({}),
    });
    panel.app.dispatch({ type: 'selectTask', id: 2 });
    await panel.settle();
    panel.one('.loop-controls [data-action="stepTick"]').click();
    panel.one('.loop-controls [data-action="stepTask"]').click();
    panel.one('.loop-controls [data-action="continue"]').click();
    panel.one('.loop-controls [data-action="run-crawl"]').click();
    assert.deepEqual(
      panel.requests('control').map((r) => r.params),
      [{ action: 'stepTick' }, { action: 'stepTask', taskId: 2 }, { action: 'continue' }],
    );
    assert.deepEqual(
      panel.requests('command').map((r) => r.params),
      [{ command: 'runCrawl' }],
    );
  });

  it('shows one view at a time, the tab pressed, and keeps the choice with setState', async () => {
    const panel = await openPanel(panelInit({ snapshot: fullSnapshot(5) }));
    assert.equal(panel.one('#view-tasks').hidden, false);
    panel.one('.tab[data-view="lints"]').click();
    await panel.settle();
    assert.deepEqual(
      panel
        .all('main.views > [role="tabpanel"]')
        .filter((v) => !v.hidden)
        .map((v) => v.id),
      ['view-lints'],
    );
    assert.equal(panel.one('.tab[data-view="lints"]').getAttribute('aria-selected'), 'true');
    assert.equal(panel.one('.tab[data-view="tasks"]').getAttribute('aria-selected'), 'false');
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((panel.page.savedState as { view?: unknown }).view, 'lints');
  });

  it('says a host that died in a banner, with its last lines as text', async () => {
    const panel = await openPanel(
      panelInit({
        status: runStatus({
          phase: 'hostDied',
          detail: 'The runtime host exited (code 1).',
          lastLines: ['<b>boom</b>', 'at x'],
        }),
        snapshot: fullSnapshot(5),
      }),
    );
    const banner = panel.one('.banner');
    assert.equal(banner.hidden, false);
    assert.equal(banner.querySelector('strong')?.textContent, 'The runtime host exited (code 1).');
    assert.equal(banner.querySelector('.last-lines')?.textContent, '<b>boom</b>\nat x');
    assert.equal(banner.querySelector('b'), null);
    assert.deepEqual(enabledControls(panel), []);
  });

  it('shows the view and the task the extension asks it to reveal', async () => {
    const panel = await openPanel(panelInit({ snapshot: fullSnapshot(5) }));
    panel.event('reveal', { view: 'tasks', taskId: 4 });
    await panel.settle();
    assert.equal(panel.app.ui().selectedTask, 4);
    assert.equal(panel.one('.task-row.selected').dataset.id, '4');
  });
});
