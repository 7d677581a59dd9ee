// Tests of what a line replay host's run does for its worker (runtime/host/main-thread/replay-host-services.ts),
// with fakes of the run's recording and past that log what they are asked, in order: a traced tick or a
// scanned stretch outside an opened recording's ticks is refused (badTick, with its words) before anything
// runs; a traced tick runs in turn with the seeks, its loop the traced one and its moment shown; a warm-up
// outside the ticks parks nothing, else in turn; a grown copy re-grows the past only when it is this run's.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ScanTicksParams } from '../../../../protocol/host-protocol';
import { ProtocolError } from '../../../../protocol/rpc';
import type { EventLoop } from '../../../../runtime/loop';
import { ReplayHostServices } from '../../../../runtime/host/main-thread/replay-host-services';
import type { ReadGrowth } from '../../../../runtime/host/main-thread/recordings';
import type { RunPast } from '../../../../runtime/host/main-thread/run-past';
import type { RunRecording, SavedRecording } from '../../../../runtime/host/main-thread/run-recording';

const LOOP = { name: 'traced loop' } as unknown as EventLoop;

function services(opened: boolean, ticks: number, grows = true) {
  const log: string[] = [];
  let services: ReplayHostServices | null = null;
  const recording = {
    openedFrom: opened ? '/rec.corotrace' : null,
    streams: { ticks },
    growOpened: (_r: SavedRecording, following: boolean) => {
      log.push(`growOpened following=${following}`);
      return grows;
    },
    growInPlace: () => 12,
  } as unknown as RunRecording;
  const rewind = {
    traceTick: async (tick: number, onLoop: (loop: EventLoop | null, moment: string) => void) => {
      log.push(`traceTick ${tick}`);
      onLoop(LOOP, `moment of ${tick}`);
      log.push(`traced loop set: ${services?.tracedLoop === LOOP}`);
    },
    warm: async (tick: number, keep: readonly number[]) => {
      log.push(`warm ${tick} keep ${keep.join(',')}`);
      return true;
    },
  };
  const past = {
    rewindOf: () => rewind,
    inTurn: async <T>(run: () => Promise<T>) => {
      log.push('inTurn');
      return run();
    },
    showTraced: (moment: string) => log.push(`showTraced ${moment}`),
    regrow: () => log.push('regrow'),
  } as unknown as RunPast;
  services = new ReplayHostServices(7, recording, past);
  return { services, log };
}

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string } | 'answered'> {
  try {
    await p;
    return 'answered';
  } catch (e) {
    assert.ok(e instanceof ProtocolError);
    return { code: e.code, message: e.message };
  }
}

describe('replayLineTick', () => {
  test('a tick of an opened recording: traced in turn, its loop the traced one, its moment shown', async () => {
    const s = services(true, 5);
    assert.deepEqual(await s.services.replayLineTick(5), { tick: 5 });
    assert.deepEqual(s.log, ['inTurn', 'traceTick 5', 'showTraced moment of 5', 'traced loop set: true']);
  });

  test('not an opened recording, or a tick outside it: badTick, nothing run', async () => {
    const refusals = [
      await refusal(services(false, 5).services.replayLineTick(3)),
      await refusal(services(true, 5).services.replayLineTick(0)),
      await refusal(services(true, 5).services.replayLineTick(6)),
    ];
    assert.deepEqual(refusals, [
      { code: 'badTick', message: 'replayLineTick: run 7 is not an opened recording with tick 3' },
      { code: 'badTick', message: 'replayLineTick: run 7 is not an opened recording with tick 0' },
      { code: 'badTick', message: 'replayLineTick: run 7 is not an opened recording with tick 6' },
    ]);
  });
});

test('scanTicks: an empty or out-of-range stretch, or no opened recording: badTick, nothing run', async () => {
  const stretch = (from: number, to: number): ScanTicksParams => ({ from, to, breakpoints: [], locations: [] });
  const s = services(true, 5);
  const refusals = [
    await refusal(s.services.scanTicks(stretch(3, 3))),
    await refusal(s.services.scanTicks(stretch(3, 6))),
    await refusal(services(false, 5).services.scanTicks(stretch(0, 2))),
  ];
  assert.deepEqual(refusals, [
    { code: 'badTick', message: 'scanTicks: run 7 is not an opened recording with ticks 4..3' },
    { code: 'badTick', message: 'scanTicks: run 7 is not an opened recording with ticks 4..6' },
    { code: 'badTick', message: 'scanTicks: run 7 is not an opened recording with ticks 1..2' },
  ]);
  assert.deepEqual(s.log, []);
});

test('warmTick: a tick of the opened recording parked in turn; outside it, or none opened: not parked', async () => {
  const s = services(true, 5);
  const parked = [
    await s.services.warmTick(4, [1, 2]),
    await s.services.warmTick(0, []),
    await s.services.warmTick(6, []),
    await services(false, 5).services.warmTick(2, []),
  ];
  assert.deepEqual(parked, [{ parked: true }, { parked: false }, { parked: false }, { parked: false }]);
  assert.deepEqual(s.log, ['inTurn', 'warm 4 keep 1,2']);
});

test("a grown copy re-grows the past only when it is this run's; a growth in place answers the ticks", () => {
  const grown = services(true, 5);
  const other = services(true, 5, false);
  const saved = {} as SavedRecording;
  assert.deepEqual([grown.services.growOpened(saved, true), other.services.growOpened(saved)], [true, false]);
  assert.deepEqual([grown.log, other.log], [['growOpened following=true', 'regrow'], ['growOpened following=false']]);
  assert.equal(grown.services.growInPlace({} as ReadGrowth, false), 12);
});
