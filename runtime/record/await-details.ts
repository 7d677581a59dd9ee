// The await details of a recording (RunRecorder.awaitDetails: what each suspension awaited in
// the task table's words, one per SITE record of the event log) as a recording file keeps
// them in its metadata: each distinct text once, then one index per SITE record.
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
