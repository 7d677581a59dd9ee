// Tests of the worker's searches of the past for hits (runtime/host/worker/past-hit-searches.ts), wired to
// fakes of the parts it asks: which replay host searches (the line stop's, or the hit replay host), the
// search's bounds and breakpoints (a forward search ends at the live stop; a listed logpoint's hit is its nth
// of the tick), where the views follow, the logpoint hits listed with their ordinals and times, and the hit
// a forward step from a past line runs on to. Checkpoints are held while each search runs.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type {
  ArmedBreakpoint,
  BreakpointHitLanding,
  LineStopPrint,
  PastLineLanding,
  ScanHit,
  ViewedMoment,
} from '../../../../protocol/host-protocol';
import type { ReplayHostMethods } from '../../../../protocol/replay-host-protocol';
import { ProtocolError } from '../../../../protocol/rpc';
import type { BreakpointSplit } from '../../../../runtime/host/worker/breakpoint-split';
import type { ClientViews } from '../../../../runtime/host/worker/client-views';
import type { LineDebugger } from '../../../../runtime/host/worker/line-debugger';
import type { LineReplayHost } from '../../../../runtime/host/worker/line-replay-host';
import type { MainThreadLink } from '../../../../runtime/host/worker/main-thread-link';
import { PastHitSearches } from '../../../../runtime/host/worker/past-hit-searches';
import type { PastView } from '../../../../runtime/host/worker/past-view';
import type { ReplayHosts } from '../../../../runtime/host/worker/replay-hosts';
import type { WorkerPosition } from '../../../../runtime/host/worker/worker-position';

const PRINT: LineStopPrint = {
  frames: [{ url: 'file:///p.js', functionLine: 0, functionColumn: 0, line: 4, column: 2 }],
  locals: [],
  locations: [],
};
const ARMED: ArmedBreakpoint[] = [{ file: '/p.ts', line: 3 }];
const STEP_ARMED: ArmedBreakpoint[] = [
  { file: '/p.ts', line: 3 },
  { file: '/p.ts', line: 8, logMessage: 'n={n}' },
];
const HIT: BreakpointHitLanding = {
  landed: 'line',
  tick: 12,
  taskId: 4,
  line: { file: '/p.ts', line: 3, column: 1 },
  breakpoint: { file: '/p.ts', line: 3 },
  description: 'breakpoint at p.ts:3',
  printed: ['n=1'],
};

/** A fake replay host: `name` tells which one was used. */
interface FakeHost {
  readonly name: string;
  readonly ticks: number;
  readonly stop: { tick: number; taskId: number; print: LineStopPrint };
  live: boolean;
  hits: ScanHit[];
  tickTimes: number[];
  hasLiveStop(): boolean;
  logHits(
    logpoints: readonly ArmedBreakpoint[],
    ticks: number,
    until?: { tick: number; taskId: number },
  ): Promise<ScanHit[]>;
  request(method: string): Promise<unknown>;
}

interface Setup {
  searches: PastHitSearches;
  asked: string[];
  /** Each search asked of the view: the host, its role, its params. */
  found: Array<{ host: string; on: string; params: ReplayHostMethods['pastHit']['params'] }>;
  printed: string[];
  viewed: Array<{ host: string; tick: number | null; moment?: string; stop?: ViewedMoment['stop'] }>;
  stopHost: FakeHost;
  searchHost: FakeHost;
  scanHost: FakeHost;
  sideHost: FakeHost;
}

function host(name: string, asked: string[]): FakeHost {
  const h: FakeHost = {
    name,
    ticks: 40,
    stop: { tick: 30, taskId: 2, print: PRINT },
    live: false,
    hits: [],
    tickTimes: [],
    hasLiveStop: () => h.live,
    logHits: async (logpoints, ticks, until) => {
      const end = until === undefined ? '' : ` up to task ${until.taskId}'s stop in tick ${until.tick}`;
      asked.push(`${name} logHits ${logpoints.length} through ${ticks}${end}`);
      return h.hits;
    },
    request: async (method) => {
      asked.push(`${name} ${method}`);
      return { tickTimes: h.tickTimes };
    },
  };
  return h;
}

function setup(
  opts: {
    stopped?: boolean;
    position?: WorkerPosition;
    landing?: BreakpointHitLanding;
    shownStop?: boolean;
    shownSearch?: boolean;
    armed?: ArmedBreakpoint[];
  } = {},
): Setup {
  const asked: string[] = [];
  const found: Setup['found'] = [];
  const printed: string[] = [];
  const viewed: Setup['viewed'] = [];
  const stopHost = host('stop host', asked);
  const searchHost = host('hit host', asked);
  const scanHost = host('scan host', asked);
  const sideHost = host('side host', asked);
  const dbg = { isStopped: () => opts.stopped === true };
  const view = {
    position: opts.position ?? { kind: 'live' },
    findHit: async (r: FakeHost, on: string, params: ReplayHostMethods['pastHit']['params']) => {
      found.push({ host: r.name, on, params });
      return opts.landing ?? HIT;
    },
  };
  const replays = {
    stop: opts.shownStop === true ? stopHost : null,
    ofStop: async (why: string) => {
      asked.push(`ofStop ${why}`);
      return stopHost;
    },
    besideStop: async <T>(why: string, scan: (r: FakeHost) => Promise<T>): Promise<T> => {
      asked.push(`besideStop ${why}`);
      return scan(sideHost);
    },
    hitHosts: {
      hitReplay: opts.shownSearch === true ? searchHost : null,
      hitsFrom: async (tick: number) => {
        asked.push(`hitsFrom ${tick}`);
        return searchHost;
      },
      prepareScan: () => asked.push('prepareScan'),
      scanWith: async <T>(why: string, scan: (r: FakeHost) => Promise<T>): Promise<T> => {
        asked.push(`scanWith ${why}`);
        return scan(scanHost);
      },
    },
  };
  const breakpoints = {
    armed: () => opts.armed ?? ARMED,
    stepArmed: (task?: number) => {
      asked.push(`stepArmed ${task ?? 'any task'}`);
      return opts.armed ?? STEP_ARMED;
    },
  };
  const client = {
    print: (messages: readonly string[]) => printed.push(...messages),
    tellViewed: (r: FakeHost, tick: number | null, moment?: string, stop?: ViewedMoment['stop']) =>
      viewed.push({ host: r.name, tick, ...(moment === undefined ? {} : { moment }), ...(stop ? { stop } : {}) }),
  };
  const main = {
    ask: async (method: string, params: { hold: boolean }) => {
      asked.push(`${method} ${params.hold}`);
      return {};
    },
  };
  const searches = new PastHitSearches(
    dbg as unknown as LineDebugger,
    view as unknown as PastView,
    replays as unknown as ReplayHosts,
    breakpoints as unknown as BreakpointSplit,
    client as unknown as ClientViews,
    main as unknown as MainThreadLink,
  );
  return { searches, asked, found, printed, viewed, stopHost, searchHost, scanHost, sideHost };
}

const asHost = (h: FakeHost): LineReplayHost => h as unknown as LineReplayHost;

describe('pastBreakpointHit', () => {
  test('nothing armed: nothing replayed, no hit in the stretch asked', async () => {
    const s = setup({ armed: [] });
    assert.deepStrictEqual(await s.searches.pastBreakpointHit({ direction: 'back', tick: 20, floor: 5 }), {
      landed: 'none',
      breakpoints: [],
      from: 5,
      to: 20,
    });
    assert.deepStrictEqual(s.found, []);
    assert.deepStrictEqual(s.asked, ['holdCheckpoints true', 'holdCheckpoints false']);
  });

  test('Reverse Continue with no line stop held: the hit replay host of the recording so far; the views follow', async () => {
    const s = setup();
    const landing = await s.searches.pastBreakpointHit({ direction: 'back', tick: 20, ceiling: 50, moment: 'debug:3' });
    assert.deepStrictEqual(landing, HIT);
    assert.deepStrictEqual(s.found, [
      {
        host: 'hit host',
        on: 'search',
        params: {
          direction: 'back',
          bound: { tick: 20 },
          floor: 0,
          ceiling: 40,
          breakpoints: ARMED,
          moment: 'debug:3',
        },
      },
    ]);
    assert.deepStrictEqual(s.printed, ['n=1']);
    assert.deepStrictEqual(s.viewed, [
      {
        host: 'hit host',
        tick: 12,
        moment: 'debug:3',
        stop: { reason: 'breakpoint', description: 'breakpoint at p.ts:3', taskId: 4 },
      },
    ]);
    assert.deepStrictEqual(s.asked, ['holdCheckpoints true', 'hitsFrom 20', 'holdCheckpoints false']);
  });

  test('a hit shown by the hit replay host: searched from there, not a new one', async () => {
    const s = setup({ shownSearch: true, position: { kind: 'pastHit', on: 'search' } });
    await s.searches.pastBreakpointHit({ direction: 'back', tick: 20 });
    assert.deepStrictEqual(
      s.found.map((f) => f.host),
      ['hit host'],
    );
    assert.deepStrictEqual(s.asked, ['holdCheckpoints true', 'holdCheckpoints false']);
  });

  test('Continue from a past line while a line stop holds the run: the stop host, from its line, to the live stop', async () => {
    const s = setup({ stopped: true, shownStop: true, position: { kind: 'pastLine' } });
    s.stopHost.live = true;
    await s.searches.pastBreakpointHit({ direction: 'forward', tick: 20 });
    assert.deepStrictEqual(s.found, [
      {
        host: 'stop host',
        on: 'stop',
        params: {
          direction: 'forward',
          bound: { tick: 30, taskId: 2, print: PRINT },
          floor: 0,
          ceiling: 30,
          breakpoints: STEP_ARMED,
          until: { tick: 30, taskId: 2, print: PRINT },
        },
      },
    ]);
    // Held: the views are told the replay host's moment in the hit's tick.
    assert.deepStrictEqual(s.viewed, [
      { host: 'stop host', tick: 12, stop: { reason: 'breakpoint', description: 'breakpoint at p.ts:3', taskId: 4 } },
    ]);
    assert.deepStrictEqual(s.asked, ['holdCheckpoints true', 'stepArmed any task', 'holdCheckpoints false']);
  });

  test('held at a line stop, no past line shown: the stop host started for the search; a ceiling before the live stop has no until', async () => {
    const s = setup({ stopped: true });
    s.stopHost.live = true;
    await s.searches.pastBreakpointHit({ direction: 'forward', tick: 20, ceiling: 25 });
    assert.equal(s.found[0]?.params.ceiling, 25);
    assert.equal(s.found[0]?.params.until, undefined);
    assert.deepStrictEqual(s.asked, [
      'holdCheckpoints true',
      'stepArmed any task',
      'ofStop pastBreakpointHit',
      'holdCheckpoints false',
    ]);
  });

  test("a listed logpoint's hit: that logpoint alone armed, its nth hit of the tick; a scan host readied after", async () => {
    const s = setup();
    const logpoint = { file: '/p.ts', line: 8, logMessage: 'n={n}', condition: ' ', hitCondition: '2' };
    await s.searches.pastBreakpointHit({ direction: 'back', tick: 20, logpointHit: { logpoint, tick: 9, ordinal: 1 } });
    assert.deepStrictEqual(s.found[0]?.params.breakpoints, [
      { file: '/p.ts', line: 8, hitCondition: '2', logMessage: 'n={n}' },
    ]);
    assert.deepStrictEqual(s.found[0]?.params.nth, { tick: 9, ordinal: 1 });
    assert.deepStrictEqual(s.asked, ['holdCheckpoints true', 'hitsFrom 20', 'prepareScan', 'holdCheckpoints false']);
  });

  test("back to a listed logpoint's hit while a line stop holds the run: through the live stop's tick, no until, no scan host", async () => {
    const s = setup({ stopped: true });
    s.stopHost.live = true;
    const logpoint = { file: '/p.ts', line: 8, logMessage: 'n={n}' };
    await s.searches.pastBreakpointHit({ direction: 'back', tick: 20, logpointHit: { logpoint, tick: 9, ordinal: 0 } });
    assert.deepStrictEqual([s.found[0]?.params.ceiling, s.found[0]?.params.until], [30, undefined]);
    assert.deepStrictEqual(s.asked, ['holdCheckpoints true', 'ofStop pastBreakpointHit', 'holdCheckpoints false']);
  });

  test('Reverse Continue while a line stop holds the run: no until (the live stop ends a forward search only)', async () => {
    const s = setup({ stopped: true });
    s.stopHost.live = true;
    await s.searches.pastBreakpointHit({ direction: 'back', tick: 20 });
    assert.deepStrictEqual([s.found[0]?.params.ceiling, s.found[0]?.params.until], [30, undefined]);
  });

  test("a listed logpoint's hit past the recording replayed is refused", async () => {
    const s = setup();
    const logpoint = { file: '/p.ts', line: 8, logMessage: 'n={n}' };
    await assert.rejects(
      s.searches.pastBreakpointHit({ direction: 'back', tick: 20, logpointHit: { logpoint, tick: 41, ordinal: 0 } }),
      (e: unknown) =>
        e instanceof ProtocolError &&
        e.code === 'badTick' &&
        e.message === 'pastBreakpointHit: tick 41 is not in the recording replayed (ticks 1..40)',
    );
    assert.deepStrictEqual(s.asked, ['holdCheckpoints true', 'hitsFrom 20', 'holdCheckpoints false']);
  });

  test('no hit found: printed what was met, the views not moved', async () => {
    const none: BreakpointHitLanding = { landed: 'none', breakpoints: [], from: 0, to: 20 };
    const s = setup({ landing: none });
    assert.deepStrictEqual(await s.searches.pastBreakpointHit({ direction: 'back', tick: 20 }), none);
    assert.deepStrictEqual([s.printed, s.viewed], [[], []]);
  });
});

describe('pastLogpointHits', () => {
  const logpoints = [
    { file: '/p.ts', line: 3, logMessage: 'a' },
    { file: '/q.ts', line: 7, logMessage: 'b={b}' },
  ];

  test("every hit with its logpoint's place, its ordinal in its tick, its task and time", async () => {
    const s = setup();
    s.searchHost.hits = [
      { bp: 0, tick: 2, taskId: 1, count: 1, message: 'a', taskName: 'main', time: 0.5 },
      { bp: 1, tick: 2, taskId: 1, count: 1, message: 'b=1', taskName: 'main' },
      { bp: 0, tick: 2, taskId: 3, count: 2, message: 'a', taskName: '' },
      { bp: 0, tick: 5, taskId: null, count: 3 },
    ];
    s.searchHost.tickTimes = [0, 1.5, 2, 3, 4.25];
    assert.deepStrictEqual(await s.searches.pastLogpointHits({ logpoints, tick: 33 }), {
      hits: [
        { logpoint: 0, file: '/p.ts', line: 3, tick: 2, ordinal: 0, taskId: 1, task: 'main', time: 0.5, message: 'a' },
        {
          logpoint: 1,
          file: '/q.ts',
          line: 7,
          tick: 2,
          ordinal: 0,
          taskId: 1,
          task: 'main',
          time: 1.5,
          message: 'b=1',
        },
        { logpoint: 0, file: '/p.ts', line: 3, tick: 2, ordinal: 1, taskId: 3, task: null, time: 1.5, message: 'a' },
        { logpoint: 0, file: '/p.ts', line: 3, tick: 5, ordinal: 0, taskId: null, task: null, time: 4.25, message: '' },
      ],
      ticks: 40,
    });
    assert.deepStrictEqual(s.asked, [
      'holdCheckpoints true',
      'hitsFrom 33',
      'hit host logHits 2 through 40',
      'hit host timeline',
      'holdCheckpoints false',
    ]);
  });

  test("each hit's time with it: the timeline not asked; a live stop held: through its tick, up to it", async () => {
    const s = setup({ stopped: true });
    s.stopHost.live = true;
    s.stopHost.hits = [{ bp: 1, tick: 3, taskId: 1, count: 1, message: 'b=2', taskName: 'w', time: 7 }];
    const listed = await s.searches.pastLogpointHits({ logpoints });
    assert.deepStrictEqual(listed.ticks, 30);
    assert.deepStrictEqual(
      listed.hits.map((h) => [h.time, h.ordinal]),
      [[7, 0]],
    );
    assert.deepStrictEqual(s.asked, [
      'holdCheckpoints true',
      'ofStop pastLogpointHits',
      "stop host logHits 2 through 30 up to task 2's stop in tick 30",
      'holdCheckpoints false',
    ]);
  });

  test('a past line shown by the search: the whole run scanned by a replay host of its own', async () => {
    const s = setup({ position: { kind: 'pastHit', on: 'search' } });
    assert.deepStrictEqual(await s.searches.pastLogpointHits({ logpoints }), { hits: [], ticks: 40 });
    assert.deepStrictEqual(s.asked, [
      'holdCheckpoints true',
      'scanWith pastLogpointHits',
      'scan host logHits 2 through 40',
      'holdCheckpoints false',
    ]);
  });

  test('asked through a tick (a question at a past line): no further than it, nor than the replay holds', async () => {
    const s = setup({ position: { kind: 'pastHit', on: 'search' } });
    assert.deepStrictEqual((await s.searches.pastLogpointHits({ logpoints, through: 12 })).ticks, 12);
    assert.deepStrictEqual((await s.searches.pastLogpointHits({ logpoints, through: 99 })).ticks, 40);
    const held = setup({ stopped: true });
    held.stopHost.live = true;
    assert.deepStrictEqual((await held.searches.pastLogpointHits({ logpoints, through: 7 })).ticks, 7);
    // Through the live stop's tick: up to the stop in it, never past it.
    assert.deepStrictEqual((await held.searches.pastLogpointHits({ logpoints, through: 30 })).ticks, 30);
    assert.deepStrictEqual((await held.searches.pastLogpointHits({ logpoints, through: 99 })).ticks, 30);
    assert.deepStrictEqual(
      [...s.asked, ...held.asked].filter((a) => a.includes('logHits')),
      [
        'scan host logHits 2 through 12',
        'scan host logHits 2 through 40',
        'stop host logHits 2 through 7',
        "stop host logHits 2 through 30 up to task 2's stop in tick 30",
        "stop host logHits 2 through 30 up to task 2's stop in tick 30",
      ],
    );
  });

  test("a past line shown while a line stop holds the run: the stop's recording scanned by a host of its own", async () => {
    const s = setup({ stopped: true, position: { kind: 'pastLine' } });
    assert.deepStrictEqual((await s.searches.pastLogpointHits({ logpoints, through: 12 })).ticks, 12);
    // The stop's replay host, which shows the line, is not asked anything: the line stays shown.
    assert.deepStrictEqual(s.asked, [
      'holdCheckpoints true',
      'besideStop pastLogpointHits',
      'side host logHits 2 through 12',
      'holdCheckpoints false',
    ]);
    // Not asked through a tick: the whole recording of the stop, up to the stop.
    const whole = setup({ stopped: true, position: { kind: 'pastLine' } });
    whole.sideHost.live = true;
    assert.deepStrictEqual((await whole.searches.pastLogpointHits({ logpoints })).ticks, 30);
    assert.deepStrictEqual(
      whole.asked.filter((a) => a.includes('logHits')),
      ["side host logHits 2 through 30 up to task 2's stop in tick 30"],
    );
  });
});

describe('ranOnToHit: a forward step from a past line that ran on past its task', () => {
  const from = { tick: 8, taskId: 2, print: PRINT };
  const ran: Extract<PastLineLanding, { landed: 'present' }> = {
    landed: 'present',
    said: ['w ended'],
    ranOnFrom: from,
  };

  test("stops at the first hit after the line it left, before the live stop: that hit's line", async () => {
    const s = setup();
    s.searchHost.live = true;
    const landing = await s.searches.ranOnToHit(asHost(s.searchHost), 'search', ran, 'debug:4', 2);
    assert.deepStrictEqual(landing, {
      landed: 'line',
      line: { file: '/p.ts', line: 3, column: 1 },
      tick: 12,
      breakpoint: 'breakpoint at p.ts:3',
      taskId: 4,
      printed: ['n=1'],
      said: ['w ended'],
    });
    assert.deepStrictEqual(s.found, [
      {
        host: 'hit host',
        on: 'search',
        params: {
          direction: 'forward',
          bound: from,
          floor: 0,
          ceiling: 30,
          breakpoints: STEP_ARMED,
          moment: 'debug:4',
          until: { tick: 30, taskId: 2, print: PRINT },
        },
      },
    ]);
    assert.deepStrictEqual(s.asked, ['stepArmed 2']);
  });

  test("a loop breakpoint's hit on the way: the tick; none: the present, with what was printed", async () => {
    const tickHit: BreakpointHitLanding = {
      landed: 'tick',
      tick: 14,
      taskId: 5,
      breakpoint: { file: '/p.ts', line: 9 },
      description: 'w suspended at p.ts:9',
    };
    const s = setup({ landing: tickHit });
    assert.deepStrictEqual(await s.searches.ranOnToHit(asHost(s.searchHost), 'search', ran, undefined), {
      landed: 'tick',
      tick: 14,
      taskId: 5,
      description: 'w suspended at p.ts:9',
      said: ['w ended'],
    });
    assert.equal(s.found[0]?.params.ceiling, 40);
    assert.equal(s.found[0]?.params.until, undefined);
    const none = setup({ landing: { landed: 'none', breakpoints: [], from: 8, to: 40, printed: ['n=3'] } });
    assert.deepStrictEqual(await none.searches.ranOnToHit(asHost(none.searchHost), 'search', ran, undefined), {
      landed: 'present',
      said: ['w ended'],
      printed: ['n=3'],
    });
  });

  test('nothing armed, or no line left: the present, nothing searched', async () => {
    const s = setup({ armed: [] });
    assert.deepStrictEqual(await s.searches.ranOnToHit(asHost(s.searchHost), 'search', ran, undefined), {
      landed: 'present',
      said: ['w ended'],
    });
    const t = setup();
    assert.deepStrictEqual(
      await t.searches.ranOnToHit(asHost(t.searchHost), 'search', { landed: 'present' }, undefined),
      { landed: 'present' },
    );
    assert.deepStrictEqual([s.found, t.found], [[], []]);
  });
});

test('followHitLine: the views follow a line in another tick to that tick; not a line, they stay', async () => {
  const s = setup({ stopped: true });
  const line: PastLineLanding = { landed: 'line', line: null, tick: 17 };
  await s.searches.followHitLine(line, asHost(s.stopHost), 'debug:5');
  await s.searches.followHitLine({ landed: 'line', line: null }, asHost(s.stopHost), undefined);
  await s.searches.followHitLine({ landed: 'suspension' }, asHost(s.stopHost), undefined);
  const free = setup();
  await free.searches.followHitLine(line, asHost(free.searchHost), undefined);
  assert.deepStrictEqual(
    [...s.viewed, ...free.viewed],
    [
      { host: 'stop host', tick: 17, moment: 'debug:5' },
      { host: 'hit host', tick: 17 },
    ],
  );
});
