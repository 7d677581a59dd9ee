// The notification of a Deadlock stop (extension/debug/deadlock-notice.ts) through the stub of the
// editor's API (vscode-stub.ts): one warning per `coroscope/deadlock` event of a session of the type
// watched, with its summary; its button opens the Debug Console; other events, other debug types and
// bodies without a summary show nothing; once disposed, nothing more.
import { stubDebug, stubWindow } from './vscode-stub';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { DEADLOCK_EVENT } from '../../../extension/debug/custom-requests';
import { deadlockSummaryOf, watchDeadlockStops } from '../../../extension/debug/deadlock-notice';

const session = (type: string) => ({ type, customRequest: async () => undefined });

/** Lets the message's answer (a promise) reach its handler. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

beforeEach(() => stubWindow.reset());

describe('Deadlock stop notifications', () => {
  it("the summary of an event's body, or none", () => {
    assert.deepEqual(
      [{ summary: 'a waits on b' }, { summary: '' }, { summary: 3 }, null, 'text'].map(deadlockSummaryOf),
      ['a waits on b', null, null, null, null],
    );
  });

  it('one warning per deadlock of the type watched; its button opens the Debug Console', async () => {
    const watch = watchDeadlockStops('coroscope');
    try {
      stubWindow.pressButton = 'Show Details';
      stubDebug.customEvent.fire({
        session: session('coroscope'),
        event: DEADLOCK_EVENT,
        body: { summary: 'a → b → a' },
      });
      stubWindow.pressButton = undefined;
      stubDebug.customEvent.fire({ session: session('coroscope'), event: DEADLOCK_EVENT, body: { summary: 'c → c' } });
      stubDebug.customEvent.fire({ session: session('node'), event: DEADLOCK_EVENT, body: { summary: 'x' } });
      stubDebug.customEvent.fire({
        session: session('coroscope'),
        event: 'coroscope/tasksChanged',
        body: { summary: 'x' },
      });
      stubDebug.customEvent.fire({ session: session('coroscope'), event: DEADLOCK_EVENT, body: {} });
      await settled();
      assert.deepEqual(stubWindow.shown, [
        { kind: 'warning', text: 'Coroscope: the run stopped on a deadlock: a → b → a' },
        { kind: 'warning', text: 'Coroscope: the run stopped on a deadlock: c → c' },
      ]);
      assert.deepEqual(stubWindow.executed, [{ command: 'workbench.debug.action.toggleRepl', args: [] }]);
    } finally {
      watch.dispose();
    }
    stubDebug.customEvent.fire({ session: session('coroscope'), event: DEADLOCK_EVENT, body: { summary: 'late' } });
    assert.equal(stubWindow.shown.length, 2);
  });
});
