// The primitives of request-params narrowing: every value from a client is `unknown` until
// one of these says what it is. A param of the wrong type or shape is a ProtocolError naming
// the method, the param and what was expected, so a client sees exactly what it sent wrong.
// protocol/host-requests.ts builds the runtime host's table of params parsers from them.

import { ProtocolError } from './rpc';
import type { CancelRequester } from './host-protocol';

export type Params = Readonly<Record<string, unknown>>;

/**
 * Where a param is named in messages: `method` alone means `method: params`; a method
 * given as `launch: params.options` names a nested object's fields.
 */
function at(method: string, key: string): string {
  return method.includes(':') ? `${method}.${key}` : `${method}: params.${key}`;
}

/** The `where` of a nested object's fields: nested('launch', 'options') → `launch: params.options`. */
export function nested(method: string, path: string): string {
  return method.includes(':') ? `${method}.${path}` : `${method}: params.${path}`;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 37)}...` : v)}`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

/** The params object (absent params count as `{}`). */
export function paramsOf(method: string, params: unknown): Params {
  if (params === undefined || params === null) return {};
  if (typeof params !== 'object' || Array.isArray(params))
    throw new ProtocolError(`${method}: params must be an object, got ${describe(params)}`);
  return params as Params;
}

export function requireNumber(method: string, p: Params, key: string, check: 'integer' | 'id' | 'any' = 'any'): number {
  const v = p[key];
  if (typeof v !== 'number' || Number.isNaN(v))
    throw new ProtocolError(`${at(method, key)} must be a number, got ${v === undefined ? 'nothing' : describe(v)}`);
  if ((check === 'integer' || check === 'id') && !Number.isInteger(v))
    throw new ProtocolError(`${at(method, key)} must be an integer, got ${v}`);
  if (check === 'id' && v < 0) throw new ProtocolError(`${at(method, key)} must be >= 0, got ${v}`);
  return v;
}

export function optionalNumber(
  method: string,
  p: Params,
  key: string,
  check: 'integer' | 'id' | 'any' = 'any',
): number | undefined {
  return p[key] === undefined ? undefined : requireNumber(method, p, key, check);
}

export function requireString(method: string, p: Params, key: string): string {
  const v = p[key];
  if (typeof v !== 'string')
    throw new ProtocolError(`${at(method, key)} must be a string, got ${v === undefined ? 'nothing' : describe(v)}`);
  return v;
}

export function optionalString(method: string, p: Params, key: string): string | undefined {
  return p[key] === undefined ? undefined : requireString(method, p, key);
}

const CANCEL_REQUESTERS: readonly CancelRequester[] = ['inspector', 'debugger', 'cli'];

export function requireCancelRequester(method: string, p: Params, key: string): CancelRequester {
  const v = requireString(method, p, key);
  const found = CANCEL_REQUESTERS.find((r) => r === v);
  if (found === undefined)
    throw new ProtocolError(
      `${at(method, key)} must be one of ${CANCEL_REQUESTERS.map((r) => `'${r}'`).join(', ')}, got ${describe(v)}`,
    );
  return found;
}

export function requireBoolean(method: string, p: Params, key: string): boolean {
  const v = p[key];
  if (typeof v !== 'boolean')
    throw new ProtocolError(`${at(method, key)} must be a boolean, got ${v === undefined ? 'nothing' : describe(v)}`);
  return v;
}

export function optionalBoolean(method: string, p: Params, key: string): boolean | undefined {
  return p[key] === undefined ? undefined : requireBoolean(method, p, key);
}

export function requireObject(method: string, p: Params, key: string): Params {
  const v = p[key];
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new ProtocolError(`${at(method, key)} must be an object, got ${v === undefined ? 'nothing' : describe(v)}`);
  return v as Params;
}

export function requireArray(method: string, p: Params, key: string): unknown[] {
  const v = p[key];
  if (!Array.isArray(v))
    throw new ProtocolError(`${at(method, key)} must be an array, got ${v === undefined ? 'nothing' : describe(v)}`);
  return v as unknown[];
}

export function requireStringArray(method: string, p: Params, key: string): string[] {
  const arr = requireArray(method, p, key);
  arr.forEach((x, i) => {
    if (typeof x !== 'string') throw new ProtocolError(`${at(method, key)}[${i}] must be a string, got ${describe(x)}`);
  });
  return arr as string[];
}
