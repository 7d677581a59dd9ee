// The hashes of the sources a recorded run executed, so a replay refuses a recording whose
// program changed since. From a bundle's source map (sourcesContent, hashed once by the build
// into `x.js.sources.json`), or from the .ts files on disk when unbundled. The watching tools
// (CLI, inspector, host, recorder, protocol) and the demo site are left out.
//
// Invariants: a recording is replayable where every source it ran is present with the same hash
// (a source it never ran does not count); paths are relative with '/' separators, sorted; a
// mismatch lists every changed and removed file and names the recording.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { RecordingSourceMismatchError } from './recording-errors';

export interface SourceHash {
  readonly path: string;
  readonly sha256: string;
}

/** Sources that observe a run rather than make it. */
const OBSERVERS = /(^|\/)(runtime\/(cli|inspect|host|record|demo-site)|protocol)\//;

function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

function normalize(path: string): string {
  return path
    .split(sep)
    .join('/')
    .replace(/^(\.\.\/)+/, '');
}

function finish(list: SourceHash[]): SourceHash[] {
  return list.filter((s) => !OBSERVERS.test(s.path)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The file beside a bundle where the build writes its sources' hashes (esbuild.mjs). */
export function builtSourcesPath(bundle: string): string {
  return `${bundle}.sources.json`;
}

/**
 * A bundle's sources as the build hashed them (builtSourcesPath: the SHA-256 of the bundle and,
 * for each source of its map, that of the source's content), so that a process learns them
 * without parsing the bundle's source map (2 MB, 1.4 MB of it the sources' text) and hashing
 * every source (about 100 ms, at a line replay host's first open and a live host's first copy
 * for it). Null, and the map is read instead, when there is no such file, it is not one, or it
 * is of another build of the bundle (its SHA-256 differs: built again since).
 */
function builtSources(bundle: string): SourceHash[] | null {
  let built: { bundleSha256?: unknown; sources?: unknown };
  try {
    built = JSON.parse(readFileSync(builtSourcesPath(bundle), 'utf8')) as typeof built;
  } catch {
    return null;
  }
  if (typeof built !== 'object' || built === null || !Array.isArray(built.sources)) return null;
  const listed = built.sources as unknown[];
  if (
    !listed.every(
      (s) =>
        typeof s === 'object' &&
        s !== null &&
        typeof (s as SourceHash).path === 'string' &&
        /^[0-9a-f]{64}$/.test(String((s as SourceHash).sha256)),
    )
  )
    return null;
  try {
    if (built.bundleSha256 !== sha256(readFileSync(bundle))) return null;
  } catch {
    return null;
  }
  return finish((listed as SourceHash[]).map((s) => ({ path: normalize(s.path), sha256: s.sha256 })));
}

/**
 * The sources of a bundled script: as its build hashed them, else from its source map; null when it has none
 * with contents.
 */
export function bundleSources(bundle: string): SourceHash[] | null {
  const built = builtSources(bundle);
  if (built !== null) return built;
  const mapPath = `${bundle}.map`;
  if (!existsSync(mapPath)) return null;
  let map: { sources?: unknown; sourcesContent?: unknown };
  try {
    map = JSON.parse(readFileSync(mapPath, 'utf8')) as typeof map;
  } catch {
    return null;
  }
  if (!Array.isArray(map.sources) || !Array.isArray(map.sourcesContent)) return null;
  const contents = map.sourcesContent as unknown[];
  const out: SourceHash[] = [];
  (map.sources as unknown[]).forEach((src, i) => {
    const text = contents[i];
    if (typeof src === 'string' && typeof text === 'string') out.push({ path: normalize(src), sha256: sha256(text) });
  });
  return finish(out);
}

/** Hashes of the named files (relative to `root`). */
export function fileSources(files: readonly string[], root: string): SourceHash[] {
  return finish(files.map((f) => ({ path: normalize(relative(root, f)), sha256: sha256(readFileSync(f)) })));
}

function tsFilesUnder(dir: string, out: string[]): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) tsFilesUnder(path, out);
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

let running: SourceHash[] | null = null;

/**
 * The sources of the running program: the bundle this module is part of (its source map),
 * or, run from TypeScript, the runtime's files on disk. Learnt once: the code running does not
 * change while the process lives.
 */
export function programSources(): SourceHash[] {
  running ??= sourcesNow();
  return running;
}

function sourcesNow(): SourceHash[] {
  if (__filename.endsWith('.js'))
    return (
      bundleSources(__filename) ?? [
        { path: normalize(relative(process.cwd(), __filename)), sha256: sha256(readFileSync(__filename)) },
      ]
    );
  const runtimeDir = join(__dirname, '..');
  return fileSources(tsFilesUnder(runtimeDir, []), join(runtimeDir, '..'));
}

/**
 * Throws RecordingSourceMismatchError unless `current` has every recorded source with its hash (observers
 * left out on both sides).
 */
export function checkSources(recorded: readonly SourceHash[], current: readonly SourceHash[], recording: string): void {
  const now = new Map(current.map((s) => [s.path, s.sha256]));
  const changed: string[] = [];
  for (const { path, sha256: hash } of recorded) {
    if (OBSERVERS.test(path)) continue;
    const h = now.get(path);
    if (h === undefined) changed.push(`${path} (removed)`);
    else if (h !== hash) changed.push(path);
  }
  if (changed.length === 0) return;
  const shown = changed.slice(0, 10).join(', ') + (changed.length > 10 ? `, and ${changed.length - 10} more` : '');
  throw new RecordingSourceMismatchError(
    `${recording} was recorded from sources that have changed since: ${shown}. A replay would not re-run the same program; record the run again with this build.`,
    changed,
  );
}
