// Tests of the focus-safe quick pick (extension/focus-safe-quick-pick.ts) on a virtual clock and a fake pick
// driven by a script of what the user (or the Welcome page's focus grab) does at each show: a hide within
// STOLEN_FOCUS_MS of showing, untouched, shows the pick again once, its first item active; a second such
// hide, a hide at or after STOLEN_FOCUS_MS, or one after typing or a selection dismisses it; an Enter is
// never lost (accepted with no active item, the typed text kept); the pick is disposed once, at the end.
import { stubWindow } from './debug/vscode-stub';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type * as vscode from 'vscode';
import { pickFocusSafe, STOLEN_FOCUS_MS, showQuickPickFocusSafe } from '../../extension/focus-safe-quick-pick';
import { StubEventEmitter } from './debug/vscode-stub';

interface Item extends vscode.QuickPickItem {
  id: string;
}
const A: Item = { label: 'a', id: 'a' };
const B: Item = { label: 'b', id: 'b' };

/** What happens at one show, after `afterMs` of the virtual clock. */
type Action =
  | { afterMs: number; do: 'hide' }
  | { afterMs: number; do: 'accept'; select?: Item; typed?: string }
  | { afterMs: number; do: 'type'; value: string; then: 'hide' | 'accept' }
  | { afterMs: number; do: 'select'; item: Item; then: 'hide' };

interface Driven {
  qp: vscode.QuickPick<Item>;
  now: () => number;
  /** The active items at each show, then 'disposed': the order of what the pick saw. */
  log: string[];
}

function driven(script: Action[], initialValue = ''): Driven {
  let clock = 0;
  const log: string[] = [];
  const value = new StubEventEmitter<string>();
  const selection = new StubEventEmitter<readonly Item[]>();
  const accept = new StubEventEmitter<void>();
  const hide = new StubEventEmitter<void>();
  const qp = {
    items: [A, B] as readonly Item[],
    activeItems: [] as readonly Item[],
    selectedItems: [] as readonly Item[],
    value: initialValue,
    onDidChangeValue: value.event,
    onDidChangeSelection: selection.event,
    onDidAccept: accept.event,
    onDidHide: hide.event,
    show(): void {
      log.push(`show active=[${qp.activeItems.map((i) => i.label).join(',')}]`);
      // Past the script: a late hide (dismissed), so an outcome the script did not foresee still ends.
      const action = script.shift() ?? { afterMs: STOLEN_FOCUS_MS, do: 'hide' };
      clock += action.afterMs;
      switch (action.do) {
        case 'hide':
          hide.fire();
          return;
        case 'accept':
          if (action.select !== undefined) qp.selectedItems = [action.select];
          if (action.typed !== undefined) qp.value = action.typed;
          accept.fire();
          return;
        case 'type':
          qp.value = action.value;
          value.fire(action.value);
          if (action.then === 'hide') hide.fire();
          else accept.fire();
          return;
        case 'select':
          qp.selectedItems = [action.item];
          selection.fire([action.item]);
          hide.fire();
          return;
      }
    },
    dispose(): void {
      log.push('disposed');
    },
  };
  return { qp: qp as unknown as vscode.QuickPick<Item>, now: () => clock, log };
}

describe('pickFocusSafe', () => {
  test('an item accepted at once: that item, the pick shown once and disposed', async () => {
    const d = driven([{ afterMs: 5000, do: 'accept', select: B }]);
    assert.deepEqual(await pickFocusSafe(d.qp, d.now), { accepted: true, item: B, value: '' });
    assert.deepEqual(d.log, ['show active=[]', 'disposed']);
  });

  test('a hide just after showing is a stolen focus: shown again, its first item active, Enter takes it', async () => {
    const d = driven([
      { afterMs: 250, do: 'hide' },
      { afterMs: 3000, do: 'accept' },
    ]);
    assert.deepEqual(await pickFocusSafe(d.qp, d.now), { accepted: true, item: A, value: '' });
    assert.deepEqual(d.log, ['show active=[]', 'show active=[a]', 'disposed']);
  });

  test('shown again once only: a second quick hide dismisses', async () => {
    const d = driven([
      { afterMs: 250, do: 'hide' },
      { afterMs: 250, do: 'hide' },
    ]);
    assert.deepEqual(await pickFocusSafe(d.qp, d.now), { accepted: false, item: undefined, value: '' });
    assert.deepEqual(d.log, ['show active=[]', 'show active=[a]', 'disposed']);
  });

  test('the window is STOLEN_FOCUS_MS after the show, the bound excluded', async () => {
    const inside = driven([
      { afterMs: STOLEN_FOCUS_MS - 1, do: 'hide' },
      { afterMs: STOLEN_FOCUS_MS, do: 'hide' },
    ]);
    assert.equal((await pickFocusSafe(inside.qp, inside.now)).accepted, false);
    assert.deepEqual(inside.log, ['show active=[]', 'show active=[a]', 'disposed']);
    const at = driven([{ afterMs: STOLEN_FOCUS_MS, do: 'hide' }]);
    assert.equal((await pickFocusSafe(at.qp, at.now)).accepted, false);
    assert.deepEqual(at.log, ['show active=[]', 'disposed']);
  });

  test('a hide after typing or a selection is the user leaving: dismissed at once', async () => {
    const typed = driven([{ afterMs: 10, do: 'type', value: 'x', then: 'hide' }]);
    const selected = driven([{ afterMs: 10, do: 'select', item: B, then: 'hide' }]);
    // The value set back to what it was when shown is no typing.
    const same = driven(
      [
        { afterMs: 10, do: 'type', value: 'start', then: 'hide' },
        { afterMs: 10, do: 'hide' },
      ],
      'start',
    );
    const outcomes = [typed, selected, same].map((d) => pickFocusSafe(d.qp, d.now));
    assert.deepEqual(
      (await Promise.all(outcomes)).map((o) => o.accepted),
      [false, false, false],
    );
    assert.deepEqual(
      [typed.log, selected.log, same.log],
      [
        ['show active=[]', 'disposed'],
        ['show active=[]', 'disposed'],
        ['show active=[]', 'show active=[a]', 'disposed'],
      ],
    );
  });

  test('Enter with text typed and no item active: accepted, no item, the text kept', async () => {
    const d = driven([{ afterMs: 10, do: 'type', value: 'http://x', then: 'accept' }]);
    assert.deepEqual(await pickFocusSafe(d.qp, d.now), { accepted: true, item: undefined, value: 'http://x' });
  });
});

test('showQuickPickFocusSafe: the items offered, the item accepted', async () => {
  stubWindow.reset();
  let seen: object | undefined;
  stubWindow.quickPick = (items) => {
    seen = items;
    return items[1];
  };
  const picked = await showQuickPickFocusSafe([A, B], { title: 'T', placeHolder: 'P', matchOnDetail: true });
  assert.deepEqual(picked, B);
  assert.deepEqual(seen, [A, B]);
});
