// The await details of a recording (RunRecorder.awaitDetails: what each suspension awaited in
// the task table's words, one per SITE record of the event log) as a recording file keeps
// them in its metadata: each distinct text once, then one index per SITE record. So are the
// other table notes kept with them (TableNotes: the tasks each await stands for, how each task
// ended), which recorded-tasks.ts reads with the log.
//
// Invariant: what is read back is checked (a list of strings, indices within it); anything
// else reads as no details (the timeline then says the kinds alone), never an exception.

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

/** The table notes of a recording's metadata (its awaitDetails, awaitTasks, outcomes), or null with none. */
export function unpackTableNotes(meta: { readonly awaitDetails?: unknown; readonly awaitTasks?: unknown; readonly outcomes?: unknown }): TableNotes | null {
  const details = unpackAwaitDetails(meta.awaitDetails);
  if (details === null) return null;
  return { details, awaitTasks: unpackAwaitTasks(meta.awaitTasks), outcomes: unpackAwaitDetails(meta.outcomes) };
}

/** The metadata fields that keep a recorder's table notes. */
export function packTableNotes(notes: TableNotes): { awaitDetails: PackedAwaitDetails; awaitTasks?: PackedAwaitDetails; outcomes?: PackedAwaitDetails } {
  const out: { awaitDetails: PackedAwaitDetails; awaitTasks?: PackedAwaitDetails; outcomes?: PackedAwaitDetails } = { awaitDetails: packAwaitDetails(notes.details ?? []) };
  if (notes.awaitTasks !== null) out.awaitTasks = packAwaitTasks(notes.awaitTasks);
  if (notes.outcomes !== null) out.outcomes = packAwaitDetails(notes.outcomes);
  return out;
}
