// The replay-host protocol's request narrowing (protocol/replay-host-protocol.ts), as
// protocol/host-requests.ts does it for the public methods: for every method of
// ReplayHostMethods, the parser that turns a request's `unknown` params into its typed params,
// or throws a ProtocolError naming the method and the bad field. The host's main thread
// (runtime/host/main-thread/host.ts) and a line replay host's worker
// (runtime/host/worker/line-debug-worker.ts) run each such request through it.
//
// Invariants: the table has exactly the keys of ReplayHostMethods; a parser checks shapes,
// types and bounds, never the host's state; the messages are those the methods had in the
// host's table (the wire is unchanged).

import type {
  ArmedBreakpoint,
  HitBound,
  LineStepKind,
  LineStopPrint,
  RecordingMark,
  ScanTicksParams,
} from './host-protocol';
import { objectsOf, optionalMomentId, parseDirection, parseLineWatched } from './host-requests';
import {
  nested,
  optionalBoolean,
  optionalNumber,
  optionalString,
  paramsOf,
  requireArray,
  requireBoolean,
  requireNumber,
  requireObject,
  requireString,
  type Params,
} from './param-narrowing';
import type { ReplayHostMethods } from './replay-host-protocol';
import { ProtocolError } from './rpc';

export type ReplayHostMethodName = keyof ReplayHostMethods & string;
export type ReplayHostParams<M extends ReplayHostMethodName> = ReplayHostMethods[M]['params'];

/** unknown params → the method's typed params, or a ProtocolError. */
export type ReplayHostParamsParser<M extends ReplayHostMethodName> = (raw: unknown) => ReplayHostParams<M>;

/** A move through replayed lines (pastLine, pastHitLine): back, a line step, or 'leave'. */
function parsePastLineMove(method: string, p: Params): 'back' | 'leave' | LineStepKind {
  const move = requireString(method, p, 'move');
  if (move !== 'back' && move !== 'leave' && move !== 'over' && move !== 'into' && move !== 'out')
    throw new ProtocolError(
      `${method}: params.move must be 'back', 'leave', 'over', 'into' or 'out', got ${JSON.stringify(move)}`,
    );
  return move;
}

function parseLineStopPrint(p: Params, method = 'pastLine', path = 'stop'): LineStopPrint {
  const objects = (key: string): Params[] => objectsOf(method, path, p, key);
  const where = (key: string, i: number): string => nested(method, `${path}.${key}[${i}]`);
  const print: LineStopPrint = {
    frames: objects('frames').map((f, i) => ({
      url: requireString(where('frames', i), f, 'url'),
      functionLine: requireNumber(where('frames', i), f, 'functionLine', 'id'),
      functionColumn: requireNumber(where('frames', i), f, 'functionColumn', 'id'),
      line: requireNumber(where('frames', i), f, 'line', 'id'),
      column: requireNumber(where('frames', i), f, 'column', 'id'),
    })),
    locals: objects('locals').map((l, i) => ({
      name: requireString(where('locals', i), l, 'name'),
      value: requireString(where('locals', i), l, 'value'),
    })),
    locations: objects('locations').map((l, i) => ({
      url: requireString(where('locations', i), l, 'url'),
      line: requireNumber(where('locations', i), l, 'line', 'id'),
      column: requireNumber(where('locations', i), l, 'column', 'id'),
    })),
  };
  if (p.names !== undefined) {
    const names = requireArray(method, p, 'names');
    if (!names.every((n) => typeof n === 'string'))
      throw new ProtocolError(`${method}: params.${path}.names must be function names`);
    print.names = names as string[];
  }
  return print;
}

function parseArmedBreakpoints(
  p: Params,
  method: 'pastHit' | 'pastHitLine' | 'pastLine' | 'pastLog' = 'pastHit',
  key: 'breakpoints' | 'logpoints' = 'breakpoints',
): ArmedBreakpoint[] {
  return objectsOf(method, key, { [key]: p[key] }, key).map((b, i) => {
    const where = nested(method, `${key}[${i}]`);
    const bp: ArmedBreakpoint = {
      file: requireString(where, b, 'file'),
      line: requireNumber(where, b, 'line', 'integer'),
    };
    const condition = optionalString(where, b, 'condition');
    const hitCondition = optionalString(where, b, 'hitCondition');
    if (condition !== undefined) bp.condition = condition;
    if (hitCondition !== undefined) bp.hitCondition = hitCondition;
    if (b.hitsSince !== undefined) {
      const s = requireObject(where, b, 'hitsSince');
      const at = nested(where, 'hitsSince');
      bp.hitsSince = { tick: requireNumber(at, s, 'tick', 'id'), before: requireNumber(at, s, 'before', 'id') };
    }
    if (optionalBoolean(where, b, 'atSuspension') === true) bp.atSuspension = true;
    const task = optionalNumber(where, b, 'task', 'id');
    if (task !== undefined) bp.task = task;
    const logMessage = optionalString(where, b, 'logMessage');
    if (logMessage !== undefined) bp.logMessage = logMessage;
    return bp;
  });
}

function parseHitBound(
  p: Params,
  key: 'bound' | 'until' | 'present' = 'bound',
  method: 'pastHit' | 'pastHitLine' | 'pastHitLineValues' | 'pastLog' = 'pastHit',
): HitBound {
  const b = requireObject(method, p, key);
  const where = nested(method, key);
  const bound: HitBound = { tick: requireNumber(where, b, 'tick', 'integer') };
  const taskId = optionalNumber(where, b, 'taskId', 'id');
  if (taskId !== undefined) bound.taskId = taskId;
  if (b.print !== undefined) bound.print = parseLineStopPrint(requireObject(where, b, 'print'), method, `${key}.print`);
  return bound;
}

function parseScanTicks(raw: unknown): ScanTicksParams {
  const p = paramsOf('scanTicks', raw);
  const out: ScanTicksParams = {
    from: requireNumber('scanTicks', p, 'from', 'id'),
    to: requireNumber('scanTicks', p, 'to', 'id'),
    breakpoints: objectsOf('scanTicks', 'breakpoints', { breakpoints: p.breakpoints }, 'breakpoints').map((b, i) => {
      const where = nested('scanTicks', `breakpoints[${i}]`);
      const hitCondition = optionalString(where, b, 'hitCondition');
      const since = optionalNumber(where, b, 'since', 'id');
      const task = optionalNumber(where, b, 'task', 'id');
      const out: ScanTicksParams['breakpoints'][number] = {
        ...(hitCondition === undefined ? {} : { hitCondition }),
        ...(since === undefined ? {} : { since }),
        ...(task === undefined ? {} : { task }),
      };
      if (b.atSuspension !== undefined) {
        const a = requireObject(where, b, 'atSuspension');
        const at = nested(where, 'atSuspension');
        const condition = optionalString(at, a, 'condition');
        out.atSuspension = {
          file: requireString(at, a, 'file'),
          line: requireNumber(at, a, 'line', 'integer'),
          ...(condition === undefined ? {} : { condition }),
        };
      }
      return out;
    }),
    locations: requireArray('scanTicks', p, 'locations').map((l, i) => {
      if (!Array.isArray(l) || !l.every((x) => Number.isSafeInteger(x) && (x as number) >= 0))
        throw new ProtocolError(`scanTicks: params.locations[${i}] must be an array of breakpoint indexes`);
      return l as number[];
    }),
  };
  if (p.marker !== undefined) {
    const m = requireObject('scanTicks', p, 'marker');
    const where = nested('scanTicks', 'marker');
    out.marker = {
      location: requireNumber(where, m, 'location', 'id'),
      tick: requireNumber(where, m, 'tick', 'id'),
      taskId: requireNumber(where, m, 'taskId', 'id'),
    };
  }
  if (p.until !== undefined) {
    const u = requireObject('scanTicks', p, 'until');
    const where = nested('scanTicks', 'until');
    out.until = {
      location: requireNumber(where, u, 'location', 'id'),
      tick: requireNumber(where, u, 'tick', 'id'),
      taskId: requireNumber(where, u, 'taskId', 'id'),
    };
  }
  if (p.stop !== undefined) {
    const st = requireObject('scanTicks', p, 'stop');
    const where = nested('scanTicks', 'stop');
    const kind = requireString(where, st, 'kind');
    if (kind === 'first') out.stop = { kind, afterTick: requireNumber(where, st, 'afterTick', 'id') };
    else if (kind === 'marker') out.stop = { kind };
    else if (kind === 'nth')
      out.stop = {
        kind,
        tick: requireNumber(where, st, 'tick', 'id'),
        ordinal: requireNumber(where, st, 'ordinal', 'id'),
      };
    else
      throw new ProtocolError(
        `scanTicks: params.stop.kind must be 'nth', 'first' or 'marker', got ${JSON.stringify(kind)}`,
      );
  }
  if (p.counts !== undefined) {
    const counts = requireArray('scanTicks', p, 'counts');
    if (!counts.every((x) => Number.isSafeInteger(x) && (x as number) >= 0))
      throw new ProtocolError('scanTicks: params.counts must be hit counts');
    out.counts = counts as number[];
  }
  return out;
}

/** The table: one parser per method of ReplayHostMethods. */
export const REPLAY_HOST_PARAMS_PARSERS: { readonly [M in ReplayHostMethodName]: ReplayHostParamsParser<M> } = {
  pastLine: (raw) => {
    const p = paramsOf('pastLine', raw);
    const out: ReplayHostParams<'pastLine'> = {
      tick: requireNumber('pastLine', p, 'tick', 'integer'),
      taskId: requireNumber('pastLine', p, 'taskId', 'id'),
      stop: parseLineStopPrint(requireObject('pastLine', p, 'stop')),
      move: parsePastLineMove('pastLine', p),
    };
    const lines = optionalNumber('pastLine', p, 'lines', 'id');
    if (lines !== undefined && lines < 1) throw new ProtocolError('pastLine: params.lines must be 1 or more');
    if (lines !== undefined) out.lines = lines;
    if (p.breakpoints !== undefined) out.breakpoints = parseArmedBreakpoints(p, 'pastLine');
    const moment = optionalMomentId('pastLine', p);
    if (moment !== undefined) out.moment = moment;
    return out;
  },
  pastLineValues: (raw) => {
    const p = paramsOf('pastLineValues', raw);
    return {
      tick: requireNumber('pastLineValues', p, 'tick', 'integer'),
      taskId: requireNumber('pastLineValues', p, 'taskId', 'id'),
      stop: parseLineStopPrint(requireObject('pastLineValues', p, 'stop'), 'pastLineValues'),
      watched: parseLineWatched('pastLineValues', p),
    };
  },
  pastHitLineValues: (raw) => {
    const p = paramsOf('pastHitLineValues', raw);
    const out: ReplayHostParams<'pastHitLineValues'> = {
      ceiling: requireNumber('pastHitLineValues', p, 'ceiling', 'id'),
      watched: parseLineWatched('pastHitLineValues', p),
    };
    if (p.present !== undefined) out.present = parseHitBound(p, 'present', 'pastHitLineValues');
    return out;
  },
  pastWarm: (raw) => {
    const p = paramsOf('pastWarm', raw);
    return {
      tick: requireNumber('pastWarm', p, 'tick', 'integer'),
      taskId: requireNumber('pastWarm', p, 'taskId', 'id'),
      stop: parseLineStopPrint(requireObject('pastWarm', p, 'stop'), 'pastWarm'),
    };
  },
  pastHitLine: (raw) => {
    const p = paramsOf('pastHitLine', raw);
    const out: ReplayHostParams<'pastHitLine'> = {
      move: parsePastLineMove('pastHitLine', p),
      ceiling: requireNumber('pastHitLine', p, 'ceiling', 'id'),
    };
    const lines = optionalNumber('pastHitLine', p, 'lines', 'id');
    if (lines !== undefined && lines < 1) throw new ProtocolError('pastHitLine: params.lines must be 1 or more');
    if (lines !== undefined) out.lines = lines;
    if (p.present !== undefined) out.present = parseHitBound(p, 'present', 'pastHitLine');
    if (p.breakpoints !== undefined) out.breakpoints = parseArmedBreakpoints(p, 'pastHitLine');
    if (optionalBoolean('pastHitLine', p, 'oneTask') === true) out.oneTask = true;
    const moment = optionalMomentId('pastHitLine', p);
    if (moment !== undefined) out.moment = moment;
    return out;
  },
  pastHit: (raw) => {
    const p = paramsOf('pastHit', raw);
    const out: ReplayHostParams<'pastHit'> = {
      direction: parseDirection('pastHit', p),
      bound: parseHitBound(p),
      floor: requireNumber('pastHit', p, 'floor', 'id'),
      ceiling: requireNumber('pastHit', p, 'ceiling', 'id'),
      breakpoints: parseArmedBreakpoints(p),
    };
    const shown = optionalBoolean('pastHit', p, 'shown');
    if (shown !== undefined) out.shown = shown;
    if (p.until !== undefined) out.until = parseHitBound(p, 'until');
    const moment = optionalMomentId('pastHit', p);
    if (moment !== undefined) out.moment = moment;
    if (p.nth !== undefined) {
      const n = requireObject('pastHit', p, 'nth');
      const where = nested('pastHit', 'nth');
      out.nth = { tick: requireNumber(where, n, 'tick', 'id'), ordinal: requireNumber(where, n, 'ordinal', 'id') };
    }
    return out;
  },
  pastLog: (raw) => {
    const p = paramsOf('pastLog', raw);
    const out: ReplayHostMethods['pastLog']['params'] = {
      logpoints: parseArmedBreakpoints(p, 'pastLog', 'logpoints'),
      ceiling: requireNumber('pastLog', p, 'ceiling', 'id'),
    };
    if (p.until !== undefined) out.until = parseHitBound(p, 'until', 'pastLog');
    return out;
  },
  scanTicks: parseScanTicks,
  writeReplayCopy: (raw) => ({ path: requireString('writeReplayCopy', paramsOf('writeReplayCopy', raw), 'path') }),
  writeRecordingGrowth: (raw) => {
    const p = paramsOf('writeRecordingGrowth', raw);
    const from = requireObject('writeRecordingGrowth', p, 'from');
    const where = nested('writeRecordingGrowth', 'from');
    const count = (key: keyof RecordingMark): number => requireNumber(where, from, key, 'id');
    const mark: RecordingMark = {
      events: count('events'),
      gaps: count('gaps'),
      payload: count('payload'),
      details: count('details'),
      awaitTasks: count('awaitTasks'),
      outcomes: count('outcomes'),
      cancels: count('cancels'),
      lints: count('lints'),
    };
    return { path: requireString('writeRecordingGrowth', p, 'path'), from: mark };
  },
  growRecording: (raw) => {
    const p = paramsOf('growRecording', raw);
    return { path: requireString('growRecording', p, 'path'), live: requireBoolean('growRecording', p, 'live') };
  },
  warmTick: (raw) => {
    const p = paramsOf('warmTick', raw);
    const keep = requireArray('warmTick', p, 'keep');
    if (!keep.every((t) => typeof t === 'number' && Number.isInteger(t)))
      throw new ProtocolError('warmTick: params.keep must be an array of ticks (integers)');
    return { tick: requireNumber('warmTick', p, 'tick', 'integer'), keep: keep as number[] };
  },
  replayLineTick: (raw) => {
    const p = paramsOf('replayLineTick', raw);
    const out: ReplayHostMethods['replayLineTick']['params'] = {
      tick: requireNumber('replayLineTick', p, 'tick', 'integer'),
    };
    const gate = optionalNumber('replayLineTick', p, 'gate', 'id');
    if (gate !== undefined) out.gate = gate;
    return out;
  },
  holdCheckpoints: (raw) => ({ hold: requireBoolean('holdCheckpoints', paramsOf('holdCheckpoints', raw), 'hold') }),
};

export function isReplayHostMethodName(method: string): method is ReplayHostMethodName {
  return Object.prototype.hasOwnProperty.call(REPLAY_HOST_PARAMS_PARSERS, method);
}

/** Narrows one replay-host request: an unknown method, or bad params, is a ProtocolError naming it. */
export function parseReplayHostRequest<M extends ReplayHostMethodName>(method: M, raw: unknown): ReplayHostParams<M>;
export function parseReplayHostRequest(method: string, raw: unknown): unknown;
export function parseReplayHostRequest(method: string, raw: unknown): unknown {
  if (!isReplayHostMethodName(method))
    throw new ProtocolError(
      `unknown method ${JSON.stringify(method)}: the replay-host protocol has no such method`,
      'unknownMethod',
    );
  const parse: (raw: unknown) => unknown = REPLAY_HOST_PARAMS_PARSERS[method];
  return parse(raw);
}
