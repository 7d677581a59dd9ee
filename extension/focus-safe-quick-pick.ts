// A quick pick that survives the focus VS Code's Welcome page takes back right after a command
// ran from the palette (the walkthrough's step re-focuses itself ~250 ms after Enter's keyup).
// A hide within STOLEN_FOCUS_MS of showing, before the user typed or moved, is taken to be that
// stolen focus and the pick is shown again, once; Escape and a click elsewhere still close it.
//
// Invariant: an Enter is never lost: the outcome says whether the user accepted, even when no
// item was active then, so the caller can act on the typed value.

import * as vscode from 'vscode';

/** How long after showing a hide counts as a stolen focus (the Welcome page's delay is 250 ms). */
export const STOLEN_FOCUS_MS = 1000;

/** What the user did with the pick: accepted (Enter) or dismissed, the item active then, the text typed. */
export interface QuickPickOutcome<T extends vscode.QuickPickItem> {
  accepted: boolean;
  /** The selected or active item when accepted; undefined when dismissed or when none was active. */
  item: T | undefined;
  value: string;
}

/**
 * Shows `qp` until the user accepts an item or dismisses it; then disposes of it.
 * `now` is the clock (milliseconds), for tests.
 */
export function pickFocusSafe<T extends vscode.QuickPickItem>(
  qp: vscode.QuickPick<T>,
  now: () => number = () => performance.now(),
): Promise<QuickPickOutcome<T>> {
  return new Promise((resolve) => {
    let shownAt = now();
    let reshown = false;
    let touched = false;
    const initialValue = qp.value;
    const subscriptions: vscode.Disposable[] = [];
    const finish = (outcome: QuickPickOutcome<T>): void => {
      for (const s of subscriptions) s.dispose();
      qp.dispose();
      resolve(outcome);
    };
    subscriptions.push(
      qp.onDidChangeValue((v) => {
        if (v !== initialValue) touched = true;
      }),
      qp.onDidChangeSelection(() => {
        touched = true;
      }),
      qp.onDidAccept(() => finish({ accepted: true, item: qp.selectedItems[0] ?? qp.activeItems[0], value: qp.value })),
      qp.onDidHide(() => {
        if (!reshown && !touched && now() - shownAt < STOLEN_FOCUS_MS) {
          reshown = true;
          shownAt = now();
          // Shown again, a pick may come back with no active item: Enter would then accept
          // nothing. Make the first item active again, as it was when first shown.
          const first = qp.items[0];
          if (qp.activeItems.length === 0 && first !== undefined) qp.activeItems = [first];
          qp.show();
          return;
        }
        finish({ accepted: false, item: undefined, value: '' });
      }),
    );
    qp.show();
  });
}

/** showQuickPick's single choice, focus-safe: the picked item, or undefined when dismissed. */
export async function showQuickPickFocusSafe<T extends vscode.QuickPickItem>(
  items: readonly T[],
  options: { title?: string; placeHolder?: string; matchOnDescription?: boolean; matchOnDetail?: boolean } = {},
): Promise<T | undefined> {
  const qp = vscode.window.createQuickPick<T>();
  qp.items = items;
  if (options.title !== undefined) qp.title = options.title;
  if (options.placeHolder !== undefined) qp.placeholder = options.placeHolder;
  qp.matchOnDescription = options.matchOnDescription ?? false;
  qp.matchOnDetail = options.matchOnDetail ?? false;
  return (await pickFocusSafe(qp)).item;
}
