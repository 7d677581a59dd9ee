// The await details of a recording (RunRecorder.awaitDetails: what each suspension awaited in
// the task table's words, one per SITE record of the event log) as a recording file keeps
// them in its metadata: each distinct text once, then one index per SITE record. So are the
// other table notes kept with them (TableNotes: the tasks each await stands for, how each task
// ended), which recorded-tasks.ts reads with the log.
//
// So are the asked cancels (asked-cancels.ts): each entry read back a known requester and a
// message, else none are.
//
// Invariant: what is read back is checked (a list of strings, indices within it); anything
// else reads as no details (the timeline then says the kinds alone), never an exception.

import type { CancelCause } from '../../protocol/host-protocol';
import type { AskedCancel } from '../inspect/task-recorder';

/** As the metadata holds them. */
export interface PackedAwaitDetails {
  readonly texts: string[];
  readonly sites: number[];
}

export function packAwaitDetails(details: readonly string[]): PackedAwaitDetails {
  const index = new Map<string, number>();
  const texts: string[] = [];
  const sites = new Array<number>(details.length);
  for (let i = 0; i < details.length; i++) {
    const text = details[i]!;
    let n = index.get(text);
    if (n === undefined) {
      n = texts.length;
      texts.push(text);
      index.set(text, n);
    }
    sites[i] = n;
  }
  return { texts, sites };
}

/** The details packed in a recording's metadata, or null when there are none or they are malformed. */
export function unpackAwaitDetails(raw: unknown): string[] | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const { texts, sites } = raw as Record<string, unknown>;
  if (!Array.isArray(texts) || !Array.isArray(sites) || !texts.every((t) => typeof t === 'string')) return null;
  const out = new Array<string>(sites.length);
  for (let i = 0; i < sites.length; i++) {
    const n = sites[i] as unknown;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n >= texts.length) return null;
    out[i] = texts[n] as string;
  }
  return out;
}

/**
 * What a recorder keeps beside the log for the task table (RunRecorder with awaitDetails):
 * per SITE record the await's detail and the ids of the tasks it stands for, per DONE record
 * how the task ended (outcomeOf). Each list may be missing (a recording made before it was
 * kept): the log-derived task table then lacks that field's words.
 */
export interface TableNotes {
  readonly details: readonly string[] | null;
  readonly awaitTasks: ReadonlyArray<readonly number[]> | null;
  readonly outcomes: readonly string[] | null;
  /** Who asked each cancel by no task, per such CANCEL record (asked-cancels.ts); absent or null: not kept. */
  readonly cancels?: ReadonlyArray<AskedCancel | null> | null;
}

/** The awaited task ids as a recording's metadata keeps them (each distinct list once, as text). */
export function packAwaitTasks(lists: ReadonlyArray<readonly number[]>): PackedAwaitDetails {
  return packAwaitDetails(lists.map((ids) => ids.join(',')));
}

/** The awaited task ids packed in a recording's metadata, or null when absent or malformed. */
export function unpackAwaitTasks(raw: unknown): Array<readonly number[]> | null {
  const texts = unpackAwaitDetails(raw);
  if (texts === null) return null;
  const parsed = new Map<string, readonly number[]>();
  const out = new Array<readonly number[]>(texts.length);
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i]!;
    let ids = parsed.get(text);
    if (ids === undefined) {
      ids = text === '' ? [] : text.split(',').map(Number);
      if (!ids.every((n) => Number.isSafeInteger(n) && n > 0)) return null;
      parsed.set(text, ids);
    }
    out[i] = ids;
  }
  return out;
}

/**
 * The table notes of a recording's metadata (its awaitDetails, awaitTasks, outcomes, askedCancels), or null
 * with none.
 */
export function unpackTableNotes(meta: {
  readonly awaitDetails?: unknown;
  readonly awaitTasks?: unknown;
  readonly outcomes?: unknown;
  readonly askedCancels?: unknown;
}): TableNotes | null {
  const details = unpackAwaitDetails(meta.awaitDetails);
  if (details === null) return null;
  return {
    details,
    awaitTasks: unpackAwaitTasks(meta.awaitTasks),
    outcomes: unpackAwaitDetails(meta.outcomes),
    cancels: unpackAskedCancels(meta.askedCancels),
  };
}

type PackedTableNotes = {
  awaitDetails: PackedAwaitDetails;
  awaitTasks?: PackedAwaitDetails;
  outcomes?: PackedAwaitDetails;
  askedCancels?: PackedAwaitDetails;
};

/** The metadata fields that keep a recorder's table notes. */
export function packTableNotes(notes: TableNotes): PackedTableNotes {
  const out: PackedTableNotes = { awaitDetails: packAwaitDetails(notes.details ?? []) };
  if (notes.awaitTasks !== null) out.awaitTasks = packAwaitTasks(notes.awaitTasks);
  if (notes.outcomes !== null) out.outcomes = packAwaitDetails(notes.outcomes);
  if (notes.cancels !== undefined && notes.cancels !== null) out.askedCancels = packAskedCancels(notes.cancels);
  return out;
}

const CAUSES: ReadonlySet<string> = new Set<CancelCause>(['inspector', 'debugger', 'cli', 'deadline']);

/** As a recording's metadata keeps them: each distinct "who\nmessage" once ('' for none). */
export function packAskedCancels(asked: ReadonlyArray<AskedCancel | null>): PackedAwaitDetails {
  return packAwaitDetails(asked.map((a) => (a === null ? '' : `${a.by}\n${a.message}`)));
}

/** The asked cancels of a recording's metadata, or null when absent or malformed. */
export function unpackAskedCancels(raw: unknown): Array<AskedCancel | null> | null {
  const texts = unpackAwaitDetails(raw);
  if (texts === null) return null;
  const out = new Array<AskedCancel | null>(texts.length);
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i]!;
    if (text === '') {
      out[i] = null;
      continue;
    }
    const cut = text.indexOf('\n');
    const by = cut < 0 ? '' : text.slice(0, cut);
    if (!CAUSES.has(by)) return null;
    out[i] = { by: by as CancelCause, message: text.slice(cut + 1) };
  }
  return out;
}
