// LineReplayRole's answers that need no replay: Go to Last Change's values from a hit (pastHitLineValues)
// where no hit's walk is shown is refused as `readings: null` with the reason (the adapter walks line by line
// and says where that ends), not thrown.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineReplayRole } from '../../../../runtime/host/replay-host/line-replay-role';
import type { LineDebugger } from '../../../../runtime/host/worker/line-debugger';

test('pastHitLineValues with no hit shown: readings null, saying why', async () => {
  const asked: string[] = [];
  // Nothing shown: neither the line debugger nor the main thread is asked.
  const role = new LineReplayRole({} as unknown as LineDebugger, async (method) => {
    asked.push(method);
    return null;
  });
  const answer = await role.pastHitLineValues({
    ceiling: 40,
    watched: [{ expression: 'got', functionName: 'worker', depth: 0 }],
  });
  assert.deepEqual(answer, { readings: null, why: 'pastHitLineValues: no breakpoint hit is shown' });
  assert.deepEqual(asked, []);
  // Its params are narrowed first: a malformed request is still an error.
  await assert.rejects(
    role.pastHitLineValues({ ceiling: 40, watched: [{ expression: ' ', functionName: 'worker', depth: 0 }] }),
    /expression must not be empty/,
  );
});
