// HttpHeaders: response headers as received, with case-insensitive lookup. Keeps every
// field in arrival order (Set-Cookie and friends may repeat); get() joins repeats with
// ", " as RFC 9110 allows for list-valued fields.

export class HttpHeaders implements Iterable<[string, string]> {
  private readonly fields: Array<[string, string]> = [];
  private readonly index = new Map<string, string[]>();

  /** Adds one field as received. */
  append(name: string, value: string): void {
    this.fields.push([name, value]);
    const key = name.toLowerCase();
    const list = this.index.get(key);
    if (list === undefined) this.index.set(key, [value]);
    else list.push(value);
  }

  get(name: string): string | undefined {
    const list = this.index.get(name.toLowerCase());
    if (list === undefined) return undefined;
    return list.length === 1 ? list[0] : list.join(', ');
  }

  getAll(name: string): readonly string[] {
    return this.index.get(name.toLowerCase()) ?? [];
  }

  has(name: string): boolean {
    return this.index.has(name.toLowerCase());
  }

  get size(): number {
    return this.fields.length;
  }

  [Symbol.iterator](): Iterator<[string, string]> {
    return this.fields[Symbol.iterator]();
  }

  toJSON(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k] of this.index) out[k] = this.get(k)!;
    return out;
  }
}
