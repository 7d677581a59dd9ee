// The runtime host's request narrowing, in one table: for every method of HostMethods, the
// parser that turns a request's `unknown` params into its typed params, or throws a
// ProtocolError naming the method and the bad field. The host's dispatcher (runtime/host/
// host.ts) runs each request's params through it before its handler sees them, as
// protocol/webview-protocol.ts's `parsePanelRequest` does for the panel.
//
// Invariants: the table has exactly the keys of HostMethods (a method added to the protocol
// without a parser does not type-check); a parser checks shapes, types and the protocol's
// documented bounds, never the host's state (no run, not paused: the handlers refuse those).

import { CRAWL_OPTION_BOUNDS, crawlOptionProblem } from './crawl-option-bounds';
import {
  isDemoLatency,
  type Breakpoint,
  type HostMethods,
  type LaunchOptions,
  type LaunchTarget,
  type LineStepKind,
  type LineWatched,
} from './host-protocol';
import {
  nested,
  optionalBoolean,
  optionalNumber,
  optionalString,
  requireCancelRequester,
  paramsOf,
  requireArray,
  requireBoolean,
  requireNumber,
  requireObject,
  requireString,
  requireStringArray,
  type Params,
} from './param-narrowing';
import { MAX_MOMENT_ID_LENGTH } from './moment-ids';
import { ProtocolError } from './rpc';

/**
 * Bounds of a `compare` request: 1,000 pages is the large case; beyond, a request would hold the host
 * for minutes.
 */
export const MAX_COMPARE_PAGES = 2000;
export const MAX_COMPARE_LATENCY_MS = 5000;

export type HostMethodName = keyof HostMethods & string;
export type HostParams<M extends HostMethodName> = HostMethods[M]['params'];

/** unknown params → the method's typed params, or a ProtocolError. */
export type HostParamsParser<M extends HostMethodName> = (raw: unknown) => HostParams<M>;

function none(method: HostMethodName): (raw: unknown) => Record<string, never> {
  return (raw) => {
    paramsOf(method, raw);
    return {};
  };
}

function parseTarget(p: Params): LaunchTarget {
  const t = requireObject('launch', p, 'target');
  const where = nested('launch', 'target');
  const kind = requireString(where, t, 'kind');
  switch (kind) {
    case 'crawl': {
      const urls = requireStringArray(where, t, 'urls');
      if (urls.length === 0) throw new ProtocolError('launch: target.urls must name at least one URL');
      return { kind, urls };
    }
    case 'demo': {
      const pages = optionalNumber(where, t, 'pages', 'integer');
      const problem = pages === undefined ? null : crawlOptionProblem('demoPages', pages, 'launch: target.pages');
      if (problem !== null) throw new ProtocolError(problem);
      const latency = optionalString(where, t, 'latency');
      if (latency !== undefined && !isDemoLatency(latency))
        throw new ProtocolError(
          `launch: target.latency must be 'realistic' or 'instant', got ${JSON.stringify(latency)}`,
        );
      const target: LaunchTarget = { kind };
      if (pages !== undefined) target.pages = pages;
      if (latency !== undefined) target.latency = latency;
      return target;
    }
    case 'sample':
      return { kind, id: requireString(where, t, 'id') };
    case 'program': {
      const path = requireString(where, t, 'path');
      const exportName = optionalString(where, t, 'exportName');
      return exportName === undefined ? { kind, path } : { kind, path, exportName };
    }
    default:
      throw new ProtocolError(
        `launch: target.kind must be 'crawl', 'demo', 'sample' or 'program', got ${JSON.stringify(kind)}`,
      );
  }
}

function parseOptions(p: Params): LaunchOptions {
  if (p.options === undefined) return {};
  const o = requireObject('launch', p, 'options');
  const where = nested('launch', 'options');
  const out: LaunchOptions = {};
  for (const key of [
    'maxTasks',
    'maxRedirect',
    'maxTries',
    'maxPages',
    'maxDepth',
    'timeout',
    'deadline',
    'dumpTasksAfter',
  ] as const) {
    const v = optionalNumber(where, o, key, CRAWL_OPTION_BOUNDS[key].integer ? 'integer' : 'any');
    if (v !== undefined) {
      // The documented bounds: 1e30 workers would exhaust memory before the crawl began.
      const problem = crawlOptionProblem(key, v, `launch: options.${key}`);
      if (problem !== null) throw new ProtocolError(problem);
      out[key] = v;
    }
  }
  if (o.exclude !== undefined && o.exclude !== null) {
    const ex = requireString(where, o, 'exclude');
    try {
      new RegExp(ex);
    } catch (e) {
      throw new ProtocolError(
        `launch: options.exclude is not a regular expression: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    out.exclude = ex;
  }
  for (const key of [
    'strict',
    'robots',
    'inspect',
    'stopOnEntry',
    'breakOnTaskFailed',
    'breakOnTaskCancelled',
    'record',
  ] as const) {
    const v = optionalBoolean(where, o, key);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

function parseBreakpoints(p: Params, file: string): Breakpoint[] {
  return requireArray('setBreakpoints', p, 'breakpoints').map((raw, i) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw new ProtocolError(`setBreakpoints: params.breakpoints[${i}] must be an object`);
    const b = raw as Params;
    const where = nested('setBreakpoints', `breakpoints[${i}]`);
    const line = requireNumber(where, b, 'line', 'integer');
    const bp: Breakpoint = { file, line };
    const condition = optionalString(where, b, 'condition');
    const hitCondition = optionalString(where, b, 'hitCondition');
    const logMessage = optionalString(where, b, 'logMessage');
    if (condition !== undefined) bp.condition = condition;
    if (hitCondition !== undefined) bp.hitCondition = hitCondition;
    if (logMessage !== undefined) bp.logMessage = logMessage;
    return bp;
  });
}

/** The values watched (lineValuesBack, pastLineValues): a non-empty expression, its frame's function and depth. */
export function parseLineWatched(method: string, p: Params): LineWatched[] {
  return objectsOf(method, 'watched', p, 'watched').map((w, i) => {
    const where = nested(method, `watched[${i}]`);
    const expression = requireString(where, w, 'expression');
    if (expression.trim() === '') throw new ProtocolError(`${where}: params.expression must not be empty`);
    return {
      expression,
      functionName: requireString(where, w, 'functionName'),
      depth: requireNumber(where, w, 'depth', 'id'),
    };
  });
}

/** Logpoints (pastLogpointHits): breakpoints each with its file and a non-empty logMessage. */
function parseLogpoints(method: string, p: Params): Breakpoint[] {
  return objectsOf(method, 'logpoints', p, 'logpoints').map((b, i) => {
    const where = nested(method, `logpoints[${i}]`);
    const bp: Breakpoint = {
      file: requireString(where, b, 'file'),
      line: requireNumber(where, b, 'line', 'integer'),
      logMessage: requireString(where, b, 'logMessage'),
    };
    if (bp.logMessage === '') throw new ProtocolError(`${where}: params.logMessage must not be empty`);
    const condition = optionalString(where, b, 'condition');
    const hitCondition = optionalString(where, b, 'hitCondition');
    if (condition !== undefined) bp.condition = condition;
    if (hitCondition !== undefined) bp.hitCondition = hitCondition;
    return bp;
  });
}

export function parseDirection(method: string, p: Params): 'back' | 'forward' {
  const direction = requireString(method, p, 'direction');
  if (direction !== 'back' && direction !== 'forward')
    throw new ProtocolError(
      `${method}: params.direction must be 'back' or 'forward', got ${JSON.stringify(direction)}`,
    );
  return direction;
}

function parseLineStepKind(p: Params): LineStepKind {
  const kind = requireString('lineStep', p, 'kind');
  if (kind !== 'over' && kind !== 'into' && kind !== 'out')
    throw new ProtocolError(`lineStep: params.kind must be 'over', 'into' or 'out', got ${JSON.stringify(kind)}`);
  return kind;
}

/** The optional moment id of a move in time (protocol/moment-ids.ts): a non-empty string of bounded length. */
export function optionalMomentId(method: string, p: Params): string | undefined {
  const moment = optionalString(method, p, 'moment');
  if (moment !== undefined && (moment.length === 0 || moment.length > MAX_MOMENT_ID_LENGTH))
    throw new ProtocolError(`${method}: params.moment must be an id of 1..${MAX_MOMENT_ID_LENGTH} characters`);
  return moment;
}

/** `out` with `moment` set when one was given. */
function withMoment<T extends object>(out: T, moment: string | undefined): T & { moment?: string } {
  return moment === undefined ? out : { ...out, moment };
}

/** Each element of array `key` of `p`, checked to be an object (`where`: 'method: params.x' for messages). */
export function objectsOf(method: string, path: string, p: Params, key: string): Params[] {
  return requireArray(nested(method, path), p, key).map((x, i) => {
    if (typeof x !== 'object' || x === null || Array.isArray(x))
      throw new ProtocolError(`${method}: params.${path}.${key}[${i}] must be an object`);
    return x as Params;
  });
}

/** The table: one parser per method of HostMethods. */
export const HOST_PARAMS_PARSERS: { readonly [M in HostMethodName]: HostParamsParser<M> } = {
  hello: (raw) => {
    const p = paramsOf('hello', raw);
    return {
      client: requireString('hello', p, 'client'),
      protocolVersion: requireNumber('hello', p, 'protocolVersion', 'integer'),
    };
  },
  launch: (raw) => {
    const p = paramsOf('launch', raw);
    return { target: parseTarget(p), options: parseOptions(p) };
  },
  pause: none('pause'),
  continue: none('continue'),
  stepTick: none('stepTick'),
  stepTask: (raw) => {
    const p = paramsOf('stepTask', raw);
    const oneTask = optionalBoolean('stepTask', p, 'oneTask');
    return { taskId: requireNumber('stepTask', p, 'taskId', 'id'), ...(oneTask === true ? { oneTask } : {}) };
  },
  stepOut: (raw) => {
    const p = paramsOf('stepOut', raw);
    return { taskId: requireNumber('stepOut', p, 'taskId', 'id'), depth: requireNumber('stepOut', p, 'depth', 'id') };
  },
  setBreakpoints: (raw) => {
    const p = paramsOf('setBreakpoints', raw);
    const file = requireString('setBreakpoints', p, 'file');
    const yieldLines = optionalString('setBreakpoints', p, 'yieldLines');
    if (yieldLines !== undefined && yieldLines !== 'suspension' && yieldLines !== 'before')
      throw new ProtocolError('setBreakpoints: params.yieldLines must be "suspension" or "before"');
    return yieldLines === undefined
      ? { file, breakpoints: parseBreakpoints(p, file) }
      : { file, breakpoints: parseBreakpoints(p, file), yieldLines };
  },
  setExceptionBreaks: (raw) => {
    const p = paramsOf('setExceptionBreaks', raw);
    const out: HostParams<'setExceptionBreaks'> = {
      taskFailed: requireBoolean('setExceptionBreaks', p, 'taskFailed'),
      taskCancelled: requireBoolean('setExceptionBreaks', p, 'taskCancelled'),
    };
    const urlFailed = optionalBoolean('setExceptionBreaks', p, 'urlFailed');
    if (urlFailed !== undefined) out.urlFailed = urlFailed;
    const deadlock = optionalBoolean('setExceptionBreaks', p, 'deadlock');
    if (deadlock !== undefined) out.deadlock = deadlock;
    return out;
  },
  snapshot: (raw) => {
    const since = optionalNumber('snapshot', paramsOf('snapshot', raw), 'since', 'id');
    return since === undefined ? {} : { since };
  },
  taskDetail: (raw) => {
    const p = paramsOf('taskDetail', raw);
    const locals = optionalBoolean('taskDetail', p, 'locals');
    const fromLogMeanwhile = optionalBoolean('taskDetail', p, 'fromLogMeanwhile');
    const taskId = requireNumber('taskDetail', p, 'taskId', 'id');
    return {
      taskId,
      ...(locals !== undefined ? { locals } : {}),
      ...(fromLogMeanwhile !== undefined ? { fromLogMeanwhile } : {}),
    };
  },
  variables: (raw) => {
    const handle = requireNumber('variables', paramsOf('variables', raw), 'handle', 'id');
    if (handle === 0) throw new ProtocolError('variables: handle 0 has no children');
    return { handle };
  },
  graph: none('graph'),
  traces: (raw) => {
    const url = optionalString('traces', paramsOf('traces', raw), 'url');
    return url === undefined ? {} : { url };
  },
  lints: none('lints'),
  evaluate: (raw) => {
    const p = paramsOf('evaluate', raw);
    const expression = requireString('evaluate', p, 'expression');
    if (expression.trim() === '') throw new ProtocolError('evaluate: the expression is empty');
    const out: HostParams<'evaluate'> = { expression };
    const taskId = optionalNumber('evaluate', p, 'taskId', 'id');
    const frameIndex = optionalNumber('evaluate', p, 'frameIndex', 'id');
    if (taskId === undefined && frameIndex !== undefined)
      throw new ProtocolError('evaluate: frameIndex needs a taskId');
    if (taskId !== undefined) out.taskId = taskId;
    if (frameIndex !== undefined) out.frameIndex = frameIndex;
    return out;
  },
  cancelTask: (raw) => {
    const p = paramsOf('cancelTask', raw);
    const taskId = requireNumber('cancelTask', p, 'taskId', 'id');
    const by = requireCancelRequester('cancelTask', p, 'by');
    const message = optionalString('cancelTask', p, 'message');
    return message === undefined ? { taskId, by } : { taskId, by, message };
  },
  samples: none('samples'),
  programLoops: none('programLoops'),
  compare: (raw) => {
    const p = paramsOf('compare', raw);
    const pages = requireNumber('compare', p, 'pages', 'integer');
    const latencyMs = requireNumber('compare', p, 'latencyMs');
    if (pages < 1 || pages > MAX_COMPARE_PAGES)
      throw new ProtocolError(`compare: params.pages must be 1..${MAX_COMPARE_PAGES}, got ${pages}`);
    if (latencyMs < 0 || latencyMs > MAX_COMPARE_LATENCY_MS)
      throw new ProtocolError(`compare: params.latencyMs must be 0..${MAX_COMPARE_LATENCY_MS}, got ${latencyMs}`);
    return { pages, latencyMs };
  },
  lineStep: (raw) => {
    const p = paramsOf('lineStep', raw);
    const task = optionalNumber('lineStep', p, 'task', 'id');
    return withMoment(
      { kind: parseLineStepKind(p), ...(task === undefined ? {} : { task }) },
      optionalMomentId('lineStep', p),
    );
  },
  lineStack: none('lineStack'),
  lineVariables: (raw) => ({ handle: requireNumber('lineVariables', paramsOf('lineVariables', raw), 'handle', 'id') }),
  lineEvaluate: (raw) => {
    const p = paramsOf('lineEvaluate', raw);
    const expression = requireString('lineEvaluate', p, 'expression');
    if (expression.trim() === '') throw new ProtocolError('lineEvaluate: the expression is empty');
    const frameIndex = optionalNumber('lineEvaluate', p, 'frameIndex', 'id');
    return frameIndex === undefined ? { expression } : { expression, frameIndex };
  },
  setLineStepMode: (raw) => {
    const mode = requireString('setLineStepMode', paramsOf('setLineStepMode', raw), 'mode');
    if (mode !== 'stayWithTask' && mode !== 'followLoop')
      throw new ProtocolError(
        `setLineStepMode: params.mode must be 'stayWithTask' or 'followLoop', got ${JSON.stringify(mode)}`,
      );
    return { mode };
  },
  saveRecording: (raw) => ({ path: requireString('saveRecording', paramsOf('saveRecording', raw), 'path') }),
  openRecording: (raw) => {
    const p = paramsOf('openRecording', raw);
    const path = requireString('openRecording', p, 'path');
    const out: HostParams<'openRecording'> = { path };
    const midTick = optionalBoolean('openRecording', p, 'midTick');
    const unshown = optionalBoolean('openRecording', p, 'unshown');
    const live = optionalBoolean('openRecording', p, 'live');
    if (midTick !== undefined) out.midTick = midTick;
    if (unshown !== undefined) out.unshown = unshown;
    if (live !== undefined) out.live = live;
    return out;
  },
  lineStepBack: (raw) => {
    const p = paramsOf('lineStepBack', raw);
    const lines = optionalNumber('lineStepBack', p, 'lines', 'id');
    if (lines !== undefined && lines < 1) throw new ProtocolError('lineStepBack: params.lines must be 1 or more');
    return withMoment(lines === undefined ? {} : { lines }, optionalMomentId('lineStepBack', p));
  },
  lineValuesBack: (raw) => ({ watched: parseLineWatched('lineValuesBack', paramsOf('lineValuesBack', raw)) }),
  pastBreakpointHit: (raw) => {
    const p = paramsOf('pastBreakpointHit', raw);
    const out: HostParams<'pastBreakpointHit'> = {
      direction: parseDirection('pastBreakpointHit', p),
      tick: requireNumber('pastBreakpointHit', p, 'tick', 'id'),
    };
    const floor = optionalNumber('pastBreakpointHit', p, 'floor', 'id');
    const ceiling = optionalNumber('pastBreakpointHit', p, 'ceiling', 'id');
    if (floor !== undefined) out.floor = floor;
    if (ceiling !== undefined) out.ceiling = ceiling;
    if (p.logpointHit !== undefined) {
      const h = requireObject('pastBreakpointHit', p, 'logpointHit');
      const where = nested('pastBreakpointHit', 'logpointHit');
      const [logpoint] = parseLogpoints(where, { logpoints: [h.logpoint] });
      out.logpointHit = {
        logpoint: logpoint!,
        tick: requireNumber(where, h, 'tick', 'id'),
        ordinal: requireNumber(where, h, 'ordinal', 'id'),
      };
    }
    return withMoment(out, optionalMomentId('pastBreakpointHit', p));
  },
  pastLogpointHits: (raw) => {
    const p = paramsOf('pastLogpointHits', raw);
    const out: HostParams<'pastLogpointHits'> = { logpoints: parseLogpoints('pastLogpointHits', p) };
    const tick = optionalNumber('pastLogpointHits', p, 'tick', 'id');
    if (tick !== undefined) out.tick = tick;
    const through = optionalNumber('pastLogpointHits', p, 'through', 'id');
    if (through !== undefined) out.through = through;
    return out;
  },
  timeline: (raw) => {
    const p = paramsOf('timeline', raw);
    const out: HostParams<'timeline'> = {};
    const sinceTick = optionalNumber('timeline', p, 'sinceTick', 'id');
    const taskId = optionalNumber('timeline', p, 'taskId', 'id');
    if (sinceTick !== undefined) out.sinceTick = sinceTick;
    if (taskId !== undefined) out.taskId = taskId;
    return out;
  },
  seekTick: (raw) => {
    const p = paramsOf('seekTick', raw);
    const replayed = optionalBoolean('seekTick', p, 'replayed');
    const tick = p.tick === null ? null : requireNumber('seekTick', p, 'tick', 'integer');
    return withMoment(replayed === undefined ? { tick } : { tick, replayed }, optionalMomentId('seekTick', p));
  },
  stop: (raw) => {
    const p = paramsOf('stop', raw);
    return p.by === undefined ? {} : { by: requireCancelRequester('stop', p, 'by') };
  },
  shutdown: none('shutdown'),
};

export function isHostMethodName(method: string): method is HostMethodName {
  return Object.prototype.hasOwnProperty.call(HOST_PARAMS_PARSERS, method);
}

/** Narrows one request: an unknown method, or bad params, is a ProtocolError naming it. */
export function parseHostRequest<M extends HostMethodName>(method: M, raw: unknown): HostParams<M>;
export function parseHostRequest(method: string, raw: unknown): unknown;
export function parseHostRequest(method: string, raw: unknown): unknown {
  if (!isHostMethodName(method))
    throw new ProtocolError(
      `unknown method ${JSON.stringify(method)}: the runtime host has no such method`,
      'unknownMethod',
    );
  const parse: (raw: unknown) => unknown = HOST_PARAMS_PARSERS[method];
  return parse(raw);
}
