// Ids of the "Coroutines" view and its commands, shared by the view (coroutines-view.ts,
// which needs vscode) and package.json's contributions (package-contributions.ts, which
// must load without vscode).

export const COROUTINES_VIEW_ID = 'coroscope.coroutines';
export const REFRESH_COMMAND = 'coroscope.debug.refreshCoroutines';
export const REVEAL_TASK_COMMAND = 'coroscope.debug.revealTask';
