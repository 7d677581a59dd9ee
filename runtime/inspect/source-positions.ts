// SourcePositionMapper: maps a position in generated JavaScript (a dist/ bundle, or a .ts module
// transpiled by tsx) to the TypeScript file, line and column, through the script's source map
// (where it is looked for: docs/design/inspection.md, "Reading frames in-process").
//
// Invariants: one lookup per script (misses cached too); no source-map package. Input line and
// column are 0-based (as V8), output 1-based (as editors); `file` is an absolute path for file:
// URLs, else the URL as given; a position no map covers comes back as itself with `mapped: false`.

import { readFileSync } from 'node:fs';
import { findSourceMap, SourceMap, type SourceMapPayload } from 'node:module';
import { DecodedSourceMap, type PositionMap } from './decoded-source-map';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** A position in a source file, 1-based. */
export interface SourcePosition {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** True when a source map gave it; false for the generated position as is. */
  readonly mapped: boolean;
}

export interface LoadedMap {
  /** Node's own (a module it loaded with source maps on) or, read here, a DecodedSourceMap (an index map: Node's). */
  readonly map: PositionMap;
  /** What relative `sources` resolve against: the map's own URL (or the script's, when inline). */
  readonly base: string;
}

/** A file: URL as a path; anything else (node:, http:, a path already) as is. */
export function urlToPath(url: string): string {
  if (url.startsWith('file:')) {
    try {
      return fileURLToPath(url);
    } catch {
      return url;
    }
  }
  return url;
}

function toUrl(scriptUrlOrPath: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(scriptUrlOrPath) && !/^[a-z]:[\\/]/i.test(scriptUrlOrPath)) return scriptUrlOrPath;
  return pathToFileURL(scriptUrlOrPath).href;
}

function isPayload(v: unknown): v is SourceMapPayload {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  // Index maps (sections) are accepted by Node's SourceMap too.
  return (typeof r.mappings === 'string' && Array.isArray(r.sources)) || Array.isArray(r.sections);
}

/** The JSON of a data: URL (`data:application/json;base64,…` or percent-encoded). */
function decodeDataUrl(url: string): string | null {
  const comma = url.indexOf(',');
  if (comma < 0) return null;
  const meta = url.slice(5, comma);
  const data = url.slice(comma + 1);
  try {
    return meta.split(';').includes('base64') ? Buffer.from(data, 'base64').toString('utf8') : decodeURIComponent(data);
  } catch {
    return null;
  }
}

/** The last `//# sourceMappingURL=` of a script's text, or null. */
export function sourceMappingUrlOf(text: string): string | null {
  const re = /\/\/[#@]\s*sourceMappingURL=(\S+)\s*$/gm;
  let last: string | null = null;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) last = m[1]!;
  return last;
}

export class SourcePositionMapper {
  private readonly cache = new Map<string, LoadedMap | null>();

  /**
   * Maps a 0-based position in the script at `scriptUrl` (a URL or a path) to its source.
   * `sourceMapURL` is what V8 reported for the script, if known.
   */
  map(scriptUrl: string, line0: number, column0: number, sourceMapURL: string | null = null): SourcePosition {
    const loaded = this.mapFor(scriptUrl, sourceMapURL);
    if (loaded !== null) {
      const entry = loaded.map.findEntry(line0, column0);
      if ('originalSource' in entry && typeof entry.originalSource === 'string') {
        return {
          file: this.resolveSource(entry.originalSource, loaded),
          line: entry.originalLine + 1,
          column: entry.originalColumn + 1,
          mapped: true,
        };
      }
    }
    return { file: urlToPath(scriptUrl), line: line0 + 1, column: column0 + 1, mapped: false };
  }

  /** The source map of a script, or null if it has none (cached either way). */
  mapFor(scriptUrl: string, sourceMapURL: string | null = null): LoadedMap | null {
    const url = toUrl(scriptUrl);
    let loaded = this.cache.get(url);
    if (loaded === undefined) {
      loaded = this.load(url, sourceMapURL);
      this.cache.set(url, loaded);
    }
    return loaded;
  }

  /** Forgets every cached map (a rebuilt bundle). */
  clear(): void {
    this.cache.clear();
  }

  private load(url: string, sourceMapURL: string | null): LoadedMap | null {
    if (url.startsWith('node:') || url === '') return null;
    const path = urlToPath(url);
    try {
      const known = findSourceMap(path);
      if (known !== undefined) return { map: known, base: url };
    } catch {
      // Not a module Node knows: fall through to the map URL.
    }
    let mapUrl = sourceMapURL;
    if (mapUrl === null && url.startsWith('file:')) {
      try {
        mapUrl = sourceMappingUrlOf(readFileSync(path, 'utf8'));
      } catch {
        mapUrl = null;
      }
    }
    if (mapUrl === null || mapUrl === '') return null;
    return this.loadFromUrl(mapUrl, url);
  }

  private loadFromUrl(mapUrl: string, scriptUrl: string): LoadedMap | null {
    let json: string | null;
    let base: string;
    if (mapUrl.startsWith('data:')) {
      json = decodeDataUrl(mapUrl);
      base = scriptUrl;
    } else {
      try {
        base = new URL(mapUrl, scriptUrl).href;
      } catch {
        return null;
      }
      if (!base.startsWith('file:')) return null;
      try {
        json = readFileSync(fileURLToPath(base), 'utf8');
      } catch {
        return null;
      }
    }
    if (json === null) return null;
    let payload: unknown;
    try {
      payload = JSON.parse(json);
    } catch {
      return null;
    }
    if (!isPayload(payload)) return null;
    try {
      return { map: 'sections' in payload ? new SourceMap(payload) : new DecodedSourceMap(payload), base };
    } catch {
      return null;
    }
  }

  private resolveSource(source: string, loaded: LoadedMap): string {
    return resolveMapSource(source, loaded);
  }
}

/** A map's source name as a path: absolute URLs as they are, relative ones against the map. */
export function resolveMapSource(source: string, loaded: LoadedMap): string {
  const root = loaded.map.payload.sourceRoot ?? '';
  // A source that is a URL or an absolute path already names its file: the root is for relative ones.
  const absolute = source.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(source);
  const joined = root !== '' && !absolute ? `${root.replace(/\/?$/, '/')}${source}` : source;
  if (joined.startsWith('/')) return joined;
  try {
    return urlToPath(new URL(joined, loaded.base).href);
  } catch {
    return joined;
  }
}

let shared: SourcePositionMapper | null = null;

/** The process's mapper (one cache of source maps). */
export function sourcePositions(): SourcePositionMapper {
  shared ??= new SourcePositionMapper();
  return shared;
}

// --- variable names ----------------------------------------------------------------------
//
// esbuild (and so tsx and dist/) renames a variable that shadows another of the same file by
// appending a number (`text` → `text2`), and V8 reports the generated names. A source map
// rarely carries names for them, so the name is restored by looking at the source: a
// generated name `base<digits>` that the source file never spells, where it does spell
// `base`, was renamed from `base`.

const identifierCache = new Map<string, Set<string> | null>();

function identifiersOf(file: string): Set<string> | null {
  let ids = identifierCache.get(file);
  if (ids === undefined) {
    try {
      ids = new Set(readFileSync(file, 'utf8').match(/[A-Za-z_$][\w$]*/g) ?? []);
    } catch {
      ids = null;
    }
    identifierCache.set(file, ids);
  }
  return ids;
}

/** The source's name for a variable named `generated` in code generated from `sourceFile`. */
export function sourceVariableName(generated: string, sourceFile: string): string {
  const m = /^(.*?)(\d+)$/.exec(generated);
  if (m === null || m[1] === '') return generated;
  const ids = identifiersOf(sourceFile);
  if (ids === null || ids.has(generated) || !ids.has(m[1]!)) return generated;
  return m[1]!;
}
