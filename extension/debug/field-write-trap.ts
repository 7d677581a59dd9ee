// FieldWriteTrap: the check that makes a field's last write found by its assignment lines (field-writes.ts)
// exact. In the scan's replay, the logpoints' messages give objects ids and turn the watched field of each
// object they see into an accessor that counts every write to it, however it is made (Object.assign, a
// bracketed key, destructuring, a file not on the stack); at the scan's end (hit-scan.ts) the counts since
// each object's last seen assignment line come back as one hit, and the fields are plain again.
//
// Invariants: a write is named only when the trap was on its object before its line ran, a write from that
// line (by the stack) changed the value to the one at the stop, and no write after it changed it again; else
// a doubt saying why. Pure (the expressions run in the replay; this file only builds and reads them).

import { basename } from 'node:path';
import { sameReading } from '../../protocol/line-readings';
import type { Reading } from './value-changes';

/** What the scan's end says of one object seen by an anchor (its id, as the hits' messages name it). */
export interface TrapEntry {
  /** The sequence number of the message that put the trap on (null: never on). */
  readonly installedAt: number | null;
  /** Why no trap could be put on (an accessor, a non-writable field); null: none such. */
  readonly untrappable: string | null;
  /** The sequence number of the last assignment line's message seen on this object (null: none). */
  readonly since: number | null;
  /**
   * The writes since then: how many, and the last one made from that line (its file and line in the stack):
   * did it keep the value, its type and text (null: an object); null: that line made none.
   */
  readonly writes: number;
  readonly mine: { readonly kept: boolean; readonly type: string; readonly text: string | null } | null;
  /** Writes after the last one from that line (any, if none) that changed the value. */
  readonly laterChanges: number;
  /** Whether that line's frame was found in the stack at its hit (else its own writes cannot be told). */
  readonly located: boolean;
  /**
   * Writes that changed the value before the last assignment line's message, since the write of the one before
   * it (all since the trap was put on when that one made none, or when there was none); null: no such message.
   */
  readonly changesBefore: number | null;
  /** The same account of each earlier assignment line's message on this object, oldest first. */
  readonly earlier: readonly TrapLine[];
}

/** What the trap saw of one assignment line's message: from it to the next one's (TrapEntry's fields). */
export interface TrapLine {
  readonly since: number;
  readonly mine: TrapEntry['mine'];
  readonly laterChanges: number;
  readonly located: boolean;
  readonly changesBefore: number | null;
}

/**
 * The in-replay state's maker, as source: `token` names one scan (a state from another is replaced), `field`
 * the watched field, `reportBp` the logpoint whose hit the scan's end report is.
 */
function stateSource(token: string, field: string, reportBp: number): string {
  return `(() => {
  const g = globalThis, F = ${JSON.stringify(field)};
  if (g.__coroscopeFieldTrap?.token === ${JSON.stringify(token)}) return g.__coroscopeFieldTrap;
  const ids = new WeakMap(), seen = new Map(); let n = 0, seq = 0, live = true;
  const text = (x) => x === null ? ['null', 'null'] : typeof x === 'string' ? ['string', JSON.stringify(x)]
    : typeof x === 'number' ? ['number', Object.is(x, -0) ? '-0' : String(x)] : typeof x === 'bigint' ? ['bigint', x + 'n']
    : typeof x === 'boolean' || typeof x === 'symbol' || x === undefined ? [typeof x, String(x)] : [typeof x, null];
  // Where the code writing (or the line hit) is: the first frame of the stack that is not this trap's code nor
  // eval'd or builtin code (the logpoint's condition, Object.assign): its file and line, the column left out.
  const where = function __coroscopeTrapWhere() {
    const l = String(new Error().stack).split('\\n').slice(1)
      .find((x) => !x.includes('__coroscopeTrap') && !x.includes('<anonymous>') && !x.includes('eval at'));
    return l === undefined ? '' : l.trim().replace(/^at\\s+(?:[^(]*\\()?/, '').replace(/:\\d+\\)?$/, '');
  };
  const put = (o, e) => {
    const d = Object.getOwnPropertyDescriptor(o, F);
    if (d === undefined) return;
    if (!('value' in d) || !d.writable || !d.configurable) { e.bad = 'value' in d ? 'not writable or not configurable' : 'an accessor (a getter or setter)'; return; }
    let v = d.value;
    e.undo = () => Object.defineProperty(o, F, { value: v, writable: true, enumerable: d.enumerable, configurable: true });
    Object.defineProperty(o, F, { configurable: true, enumerable: d.enumerable, get: () => v, set: function __coroscopeTrapSet(x) {
      if (live && e.since === null && !Object.is(x, v)) e.changed++;
      if (live && e.since !== null) {
        const kept = Object.is(x, v);
        e.writes++;
        if (e.loc !== '' && where() === e.loc) { e.mine = [kept, ...text(x)]; e.later = 0; } else if (!kept) e.later++;
      }
      v = x;
    } });
    e.at = seq;
  };
  const see = function __coroscopeTrapSee(o, kind, file) {
    if (o === null || (typeof o !== 'object' && typeof o !== 'function')) return '0';
    if (!ids.has(o)) ids.set(o, ++n);
    const id = ids.get(o), s = ++seq;
    let e = seen.get(id);
    if (e === undefined) seen.set(id, e = { at: null, bad: null, since: null, loc: '', writes: 0, mine: null, later: 0, changed: 0, before: null, anchor: false, undo: null, past: [] });
    if (live && e.at === null && e.bad === null) {
      try { put(o, e); } catch (x) { e.bad = 'not one a trap can be put on (' + x + ')'; }
    }
    if (kind === 'anchor') e.anchor = true;
    else {
      if (e.since !== null) e.past.push([e.since, e.mine, e.later, e.loc !== '', e.before]);
      e.before = e.since === null ? e.changed : e.later;
      e.since = s; e.loc = where(); e.writes = 0; e.mine = null; e.later = 0;
      if (file === '' || !e.loc.includes(file)) e.loc = '';
    }
    return id + '@' + s;
  };
  const read = () => {
    live = false;
    const out = [];
    for (const [id, e] of seen) {
      try {
        e.undo?.();
      } catch {}
      if (e.anchor) out.push([id, e.at, e.bad, e.since, e.writes, e.mine, e.later, e.loc !== '', e.before, e.past]);
    }
    seen.clear();
    return JSON.stringify(out);
  };
  g.__coroscopeScanEnd = { bp: ${reportBp}, read };
  return g.__coroscopeFieldTrap = { token: ${JSON.stringify(token)}, see };
})()`;
}

/**
 * A logpoint's condition that makes the in-replay state (once per scan: `token`), always true: the message
 * cannot hold it (a logpoint message's `{...}` takes no braces inside).
 */
export function trapCondition(token: string, field: string, reportBp: number): string {
  return `(${stateSource(token, field, reportBp)}, true)`;
}

/**
 * A logpoint's message: the id of the object `objectExpression` reads and the message's sequence number
 * (`id@seq`; `0`: not an object), the trap put on it; `kind` says whether the line assigns the field; `file`
 * is the line's (its frame at the hit, found in the stack, is compared with each write's).
 */
export function trapMessage(objectExpression: string, kind: 'write' | 'anchor', file: string): string {
  // The line's frame must be in its file (a message's `{...}` takes no braces: such a name is none).
  const name = JSON.stringify(/[{}]/.test(file) ? '' : basename(file));
  return `{globalThis.__coroscopeFieldTrap.see((${objectExpression}), '${kind}', ${name})}`;
}

/**
 * The logpoint a hit found with trapMessage is gone to by (pastBreakpointHit's `logpointHit`): one that holds
 * where that one held (its object expression read, without the trap), so its hits are counted alike.
 */
export function landingMessage(objectExpression: string): string {
  return `{(${objectExpression}), 0}`;
}

/** A hit's message split into the object's id and the message's sequence number (null: not an object). */
export function parseSeen(message: string): { id: string; seq: number } | null {
  const m = /^(\d+)@(\d+)$/.exec(message);
  return m === null ? null : { id: m[1]!, seq: Number(m[2]) };
}

/** The scan's end report (the report hit's message) by object id; null: not a report. */
export function parseReport(message: string): Map<string, TrapEntry> | null {
  let v: unknown;
  try {
    v = JSON.parse(message);
  } catch {
    return null;
  }
  if (!Array.isArray(v)) return null;
  const out = new Map<string, TrapEntry>();
  for (const row of v as unknown[]) {
    if (!Array.isArray(row) || row.length !== 10) return null;
    const [id, at, bad, since, writes, mine, later, located, before, past] = row as unknown[];
    if (typeof id !== 'number' || typeof writes !== 'number' || typeof later !== 'number' || !Array.isArray(past))
      return null;
    const earlier: TrapLine[] = [];
    for (const p of past as unknown[]) {
      if (!Array.isArray(p) || p.length !== 5 || typeof p[0] !== 'number' || typeof p[2] !== 'number') return null;
      earlier.push({
        since: p[0],
        mine: mineOf(p[1]),
        laterChanges: p[2],
        located: p[3] === true,
        changesBefore: typeof p[4] === 'number' ? p[4] : null,
      });
    }
    out.set(String(id), {
      installedAt: typeof at === 'number' ? at : null,
      untrappable: typeof bad === 'string' ? bad : null,
      since: typeof since === 'number' ? since : null,
      writes,
      mine: mineOf(mine),
      laterChanges: later,
      located: located === true,
      changesBefore: typeof before === 'number' ? before : null,
      earlier,
    });
  }
  return out;
}

/** A line's last write as the report gives it (`[kept, type, text]`), null: none. */
function mineOf(v: unknown): TrapEntry['mine'] {
  const f = Array.isArray(v) && v.length === 3 ? (v as unknown[]) : null;
  return f === null ? null : { kept: f[0] === true, type: String(f[1]), text: typeof f[2] === 'string' ? f[2] : null };
}

/**
 * The first of the assignment lines whose messages had sequence numbers `seqs` (in order, after the watched task
 * read the value) that changed the field: its index, when the trap saw no change before it by other code since
 * the assignment line before it; else the doubt. A line that wrote the value the field held is no change.
 */
export function firstChange(entry: TrapEntry, seqs: readonly number[]): { index: number } | TrapDoubt {
  const unknown = (why: string): TrapDoubt => ({ kind: 'unknown', why });
  if (entry.untrappable !== null) return unknown(`the field is ${entry.untrappable}: its writes cannot be watched`);
  const lines = [...entry.earlier];
  if (entry.since !== null)
    lines.push({
      since: entry.since,
      mine: entry.mine,
      laterChanges: entry.laterChanges,
      located: entry.located,
      changesBefore: entry.changesBefore,
    });
  for (const [index, seq] of seqs.entries()) {
    const line = lines.find((l) => l.since === seq);
    if (line === undefined) return unknown(`the trap has no account of assignment line ${index + 1}`);
    if (line.changesBefore !== 0)
      return {
        kind: 'unseen',
        why: `${line.changesBefore ?? 'no'} change(s) by other code came before assignment line ${index + 1}`,
      };
    if (!line.located) return unknown(`assignment line ${index + 1}'s frame is not in the stack`);
    if (line.mine === null) return unknown(`assignment line ${index + 1} did not write it`);
    if (!line.mine.kept) return { index };
    // It wrote the value the field held: changes after it by other code come before the next line's.
  }
  return unknown('no assignment line seen changed it');
}

/** Why a write found is not named: a later write not seen changed the field, or the trap cannot tell. */
export interface TrapDoubt {
  readonly kind: 'unseen' | 'unknown';
  readonly why: string;
}

/**
 * Whether the assignment line whose message had sequence number `seq` made the last change of the field, with
 * the value `atStop` at the stop: null when it did, else the doubt (said to the user).
 */
export function trapVerdict(entry: TrapEntry | undefined, seq: number, atStop: Reading): TrapDoubt | null {
  const unknown = (why: string): TrapDoubt => ({ kind: 'unknown', why });
  const unseen = (why: string): TrapDoubt => ({ kind: 'unseen', why });
  if (entry === undefined) return unknown('its object was not watched to the end of the scan');
  if (entry.untrappable !== null) return unknown(`the field is ${entry.untrappable}: its writes cannot be watched`);
  if (entry.installedAt === null || entry.installedAt > seq)
    return unknown('the field did not exist yet when that line ran: the writes after it could not be watched');
  if (entry.since !== seq) return unknown('a later assignment line ran on that object');
  if (!entry.located) return unknown("that line's frame is not in the stack: its own writes cannot be told");
  if (entry.mine === null && entry.laterChanges > 0) return unseen('the line found did not write it, other code did');
  if (entry.mine === null) return unknown('the line found did not write it');
  if (entry.laterChanges > 0) return unseen(`${entry.laterChanges} write(s) after that line changed it again`);
  if (entry.mine.kept) return unknown('the line found wrote the value it already held: an earlier write changed it');
  // The value right after the write (as Variables shows it, for a primitive) against the one at the stop.
  const after = entry.mine;
  if (!atStop.reachable) return unknown('the field cannot be read at the stop');
  if (after.text !== null && !sameReading({ reachable: true, value: after.text, type: after.type }, atStop))
    return unseen(`the value written there, ${after.text}, is not the one at the stop, ${atStop.value}`);
  if (after.text === null && PRIMITIVE_TYPES.has(atStop.type))
    return unseen(`an object was written there, the stop shows ${atStop.value}`);
  return null;
}

const PRIMITIVE_TYPES = new Set(['string', 'number', 'bigint', 'boolean', 'undefined', 'null', 'symbol']);
