// Tests of how the line debugger's bridge tells its own messages from the host protocol's
// (runtime/host/shared/bridge-control.ts): a message with a string `bridge` is the bridge's, whatever else
// it holds; a wire message of the host protocol, or anything else, is not.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isBridgeControl } from '../../../../runtime/host/shared/bridge-control';

test("the bridge's messages are those with a string `bridge`", () => {
  assert.deepEqual(
    [
      { bridge: 'closed', reason: 'the client went away' },
      { bridge: 'disconnect' },
      { bridge: 'logHit', key: 3, tick: 9 },
      { kind: 'request', id: 1, method: 'snapshot', params: {} },
      { kind: 'event', event: 'paused', body: {} },
      { bridge: 1 },
      { bridge: null },
      null,
      'bridge',
      undefined,
    ].map(isBridgeControl),
    [true, true, true, false, false, false, false, false, false, false],
  );
});
