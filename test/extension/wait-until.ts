// until(): polls a probe every 20 ms until it gives a value (not undefined, null or false),
// for the extension tests that watch a real runtime host; fails naming what it waited for.

export async function until<T>(
  what: string,
  probe: () => T | undefined | null | false,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
