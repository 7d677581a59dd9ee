// MomentIds (protocol/moment-ids.ts): ids per asker, and knowing one's own among others'.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_MOMENT_ID_LENGTH, MomentIds } from '../../protocol/moment-ids';
import { parseHostRequest } from '../../protocol/host-requests';

describe('MomentIds', () => {
  it('counts up per asker, and each asker owns only the ids it made', () => {
    const panel = new MomentIds('panel');
    const debug = new MomentIds('debug 1');
    assert.equal(panel.last, undefined);
    assert.deepEqual([panel.next(), panel.next(), debug.next()], ['panel:1', 'panel:2', 'debug 1:1']);
    assert.equal(panel.last, 'panel:2');
    assert.equal(panel.isOwn('panel:2'), true);
    assert.equal(panel.isOwn('panel:3'), false, 'not made yet');
    assert.equal(panel.isOwn('debug 1:1'), false);
    assert.equal(debug.isOwn('panel:1'), false);
    assert.equal(panel.isOwn(undefined), false);
    assert.equal(new MomentIds('pan').isOwn('panel:1'), false, 'a prefix of another name');
  });

  it('the host narrows a moment id on every move in time', () => {
    assert.deepEqual(parseHostRequest('seekTick', { tick: 4, moment: 'panel:1' }), { tick: 4, moment: 'panel:1' });
    assert.deepEqual(parseHostRequest('seekTick', { tick: null }), { tick: null });
    assert.deepEqual(parseHostRequest('lineStep', { kind: 'over', moment: 'debug 1:3' }), {
      kind: 'over',
      moment: 'debug 1:3',
    });
    assert.deepEqual(parseHostRequest('lineStepBack', { moment: 'debug 1:4' }), { moment: 'debug 1:4' });
    assert.deepEqual(parseHostRequest('lineStepBack', {}), {});
    assert.deepEqual(parseHostRequest('pastBreakpointHit', { direction: 'back', tick: 9, moment: 'd:1' }), {
      direction: 'back',
      tick: 9,
      moment: 'd:1',
    });
    assert.throws(
      () => parseHostRequest('lineStep', { kind: 'over', moment: 7 }),
      /lineStep: params\.moment must be a string/,
    );
    assert.throws(
      () => parseHostRequest('seekTick', { tick: 1, moment: 'x'.repeat(MAX_MOMENT_ID_LENGTH + 1) }),
      /seekTick: params\.moment must be an id/,
    );
  });
});

describe('moment ids in the replay-host protocol', () => {
  it('pastLine, pastHitLine and pastHit take the moment id of the request they serve', async () => {
    const { parseReplayHostRequest } = await import('../../protocol/replay-host-requests');
    const stop = { frames: [], locals: [], locations: [] };
    assert.equal(
      (
        parseReplayHostRequest('pastLine', { tick: 3, taskId: 2, stop, move: 'back', moment: 'debug 1:2' }) as {
          moment?: string;
        }
      ).moment,
      'debug 1:2',
    );
    assert.equal(
      (parseReplayHostRequest('pastHitLine', { move: 'over', ceiling: 9, moment: 'debug 1:3' }) as { moment?: string })
        .moment,
      'debug 1:3',
    );
    assert.equal(
      (
        parseReplayHostRequest('pastHit', {
          direction: 'back',
          bound: { tick: 4 },
          floor: 0,
          ceiling: 9,
          breakpoints: [],
          moment: 'd:1',
        }) as { moment?: string }
      ).moment,
      'd:1',
    );
    assert.equal(
      (parseReplayHostRequest('pastHitLine', { move: 'over', ceiling: 9 }) as { moment?: string }).moment,
      undefined,
    );
    assert.throws(
      () => parseReplayHostRequest('pastLine', { tick: 3, taskId: 2, stop, move: 'back', moment: '' }),
      /pastLine: params\.moment must be an id/,
    );
  });
});
