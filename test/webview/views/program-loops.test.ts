// The program's own loops (webview/views/program-loops.ts): shown above the tabs only while the
// program runs a loop of its own, with what runs, what is ready, its sockets and its timers.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { ProgramLoopState } from '../../../protocol/host-protocol';
import { closeDom } from '../dom-env';
import { openPanel, panelInit } from '../panel-harness';

afterEach(() => closeDom());

const SELECTOR_LOOP: ProgramLoopState = {
  kind: 'selector',
  title: 'select() loop',
  running: 'onConnected',
  ready: ['readResponse', 'onConnected'],
  sockets: [{ fd: 7, events: 'read', callback: 'readResponse', socket: '127.0.0.1:8080' }],
  timers: [{ dueInMs: 99.6, callback: 'tick' }],
  workers: [],
  notes: [],
};

function parts(root: HTMLElement): Record<string, string[]> {
  return Object.fromEntries(
    [...root.querySelectorAll('.program-loop-part')].map((p) => [
      p.querySelector('.program-loop-part-title')?.textContent,
      [...p.querySelectorAll('li')].map((li) => li.textContent ?? ''),
    ]),
  );
}

describe("the program's own loops", () => {
  it('are hidden while the program runs none', async () => {
    const panel = await openPanel(panelInit());
    assert.equal(panel.one('.program-loops').hidden, true);
  });

  it("show a selector loop's ready callbacks, sockets and timers, and follow the event that changes them", async () => {
    const panel = await openPanel(panelInit({ programLoops: [SELECTOR_LOOP] }));
    assert.equal(panel.one('.program-loops').hidden, false);
    assert.equal(panel.one('.program-loop-running').textContent, 'Running: onConnected');
    assert.deepEqual(parts(panel.root), {
      'Ready (2)': ['readResponse', 'onConnected'],
      'Sockets (1)': ['fd 7 read → readResponse: 127.0.0.1:8080'],
      'Timers (1)': ['in 100 ms → tick'],
    });
    panel.event('programLoops', { loops: [] });
    await panel.settle();
    assert.equal(panel.one('.program-loops').hidden, true);
  });
});
