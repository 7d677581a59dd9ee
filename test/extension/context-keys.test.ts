// The `when`-clause context keys (extension/context-keys.ts) through the stub of the editor's API
// (debug/vscode-stub.ts): a key reads false until set; only a change is sent (setContext), each key
// on its own.
import { stubWindow } from './debug/vscode-stub';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ContextKeys } from '../../extension/context-keys';

test('only changes are sent, per key; a key unset reads false', () => {
  stubWindow.reset();
  const keys = new ContextKeys();
  assert.equal(keys.get('coroscope.paused'), false);
  keys.set('coroscope.paused', false);
  keys.set('coroscope.paused', true);
  keys.set('coroscope.paused', true);
  keys.set('coroscope.running', true);
  keys.set('coroscope.paused', false);
  assert.deepEqual(stubWindow.executed, [
    { command: 'setContext', args: ['coroscope.paused', false] },
    { command: 'setContext', args: ['coroscope.paused', true] },
    { command: 'setContext', args: ['coroscope.running', true] },
    { command: 'setContext', args: ['coroscope.paused', false] },
  ]);
  assert.deepEqual([keys.get('coroscope.paused'), keys.get('coroscope.running')], [false, true]);
});
