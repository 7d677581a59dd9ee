// Ids of the "Coroutines" view and its commands, shared by the view (coroutines-view.ts,
// which needs vscode) and package.json's contributions (package-contributions.ts, which
// must load without vscode).

export const COROUTINES_VIEW_ID = 'coroscope.coroutines';
export const REFRESH_COMMAND = 'coroscope.debug.refreshCoroutines';
export const REVEAL_TASK_COMMAND = 'coroscope.debug.revealTask';
/** On a Variables item at a line stop: back (forward) to where the value was last (next) set. */
export const LAST_CHANGE_COMMAND = 'coroscope.debug.goToLastChange';
export const NEXT_CHANGE_COMMAND = 'coroscope.debug.goToNextChange';
/** On a thread of the Call Stack: Continue, Reverse Continue and Step Over move that task alone. */
export const FOLLOW_TASK_COMMAND = 'coroscope.debug.followTask';
