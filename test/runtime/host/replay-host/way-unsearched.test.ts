// A forward past step whose same-tick search is refused (a mid-line point the replay's breakpoints cannot
// mark) says that its way was not searched, in the landing's words, never a silent landing as if nothing
// were on it (issue 25); any other failure stays the move's error.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PastLineLanding } from '../../../../protocol/host-protocol';
import { ProtocolError } from '../../../../protocol/rpc';
import { sayingUnsearched, searchTheWay } from '../../../../runtime/host/replay-host/way-unsearched';

const UNMARKED =
  'pastHit: the replay of tick 7 ran to its end without reaching the line shown: it is not the run that was recorded';
const refused = async (): Promise<never> => {
  throw new ProtocolError(UNMARKED, 'replayFailed');
};

describe('a past step whose way was not searched says so', () => {
  test('a same-tick refusal: the landing keeps its words and adds the note, naming the tick and the reason', async () => {
    const way = await searchTheWay(true, 7, refused);
    assert.ok('unsearched' in way);
    const landing: PastLineLanding = {
      landed: 'line',
      line: { file: '/p.ts', line: 3, column: 1 },
      said: ['worker suspended'],
    };
    const said = sayingUnsearched(landing, way);
    assert.ok(said.landed === 'line');
    assert.equal(said.said?.length, 2);
    assert.equal(said.said?.[0], 'worker suspended');
    assert.match(
      said.said?.[1] ?? '',
      /^Coroscope: this step in the past \(tick 7\) .* were not searched, .*not shown/,
    );
    assert.ok(said.said?.[1]?.endsWith(`(${UNMARKED})`));
    // Back at the live stop: the present says it too.
    const present = sayingUnsearched({ landed: 'present' }, way);
    assert.deepEqual(present.landed === 'present' ? present.said : null, [way.unsearched]);
  });

  test('a searched way adds nothing; a refusal across ticks or of another kind stays the error', async () => {
    const way = await searchTheWay(true, 7, async () => 'hit');
    assert.deepEqual(way, { searched: 'hit' });
    const landing: PastLineLanding = { landed: 'present' };
    assert.equal(sayingUnsearched(landing, way), landing);
    await assert.rejects(searchTheWay(false, 7, refused), ProtocolError);
    await assert.rejects(
      searchTheWay(true, 7, async () => {
        throw new ProtocolError('pastHit: cannot arm x', 'failed');
      }),
      /cannot arm/,
    );
  });
});
