// Runs on a runtime host's line debugger worker thread (live or line replay host).
//
// LoadedScripts: the main thread's scripts a user reads (Debugger.scriptParsed), read both ways: a generated
// position to the line shown, and a file:line to the generated positions a breakpoint is set at. A script with a
// source map is read through it (GeneratedPositions); a plain JavaScript file of the program's (no map, outside
// node_modules) is its own source, its lines with code learnt from V8 (indexPlain). It also says which frames are
// the runtime's machinery (stepped through, never shown) and its library (queue.ts, lock.ts, ...).
// Invariants: Node's own scripts, those without a URL and unmapped ones in node_modules are not kept; each map is
// read once (misses too); a plain script has no breakpoint position until its lines are indexed.

import type { SourcePosition } from '../../../protocol/host-protocol';
import { SourcePositionMapper, urlToPath } from '../../inspect/source-positions';
import { GeneratedPositions } from '../../inspect/generated-positions';
import type { CdpCallFrame, CdpLocation } from './cdp-shapes';

/** Sources whose frames are the runtime's machinery: stepped through, not shown. */
const MACHINERY =
  /[\\/]runtime[\\/](coroutine|running-loop|task|loop|handle|ready-queue|future|fifo|timer-heap|shape-anchors|observer-fanout|wakeup-callback|outside-values|held-time)\.ts$|[\\/]runtime[\\/](inspect|host|record)[\\/]|[\\/]protocol[\\/]/;

/**
 * The runtime's own library (queue.ts, lock.ts, sleep.ts, ...): a task the loop resumes is often
 * suspended inside it, so "follow the loop" comes out of it to the program's line.
 */
const LIBRARY = /[\\/]runtime[\\/][^\\/]+\.ts$/;

/** A plain script's lines with code: 1-based line → the 0-based column of its first breakable position. */
type CodeLines = ReadonlyMap<number, number>;

/** A kept script: read through its source map, or (plain JavaScript) its own source. */
type KeptScript =
  | { readonly kind: 'mapped'; readonly url: string; readonly sourceMapURL: string }
  | { readonly kind: 'plain'; readonly url: string; readonly path: string; lines: CodeLines | null };

/** How a parsed script was kept (false: not kept). */
export type ScriptKept = 'mapped' | 'plain' | false;

/** A JavaScript file a program may be written in (its ES modules load made CommonJS, with a map). */
const PLAIN_SOURCE = /\.c?js$/;

export class LoadedScripts {
  private readonly scripts = new Map<string, KeptScript>();
  private readonly reverse = new Map<string, GeneratedPositions | null>();
  private readonly mapper = new SourcePositionMapper();

  /**
   * Keeps a parsed script a user reads: one with a source map, or a plain JavaScript file of the program's
   * (indexPlain must then learn its lines before a breakpoint can be placed in it).
   */
  add(p: { scriptId: string; url: string; sourceMapURL?: string }): ScriptKept {
    if (p.url === '' || p.url.startsWith('node:')) return false;
    if (p.sourceMapURL !== undefined && p.sourceMapURL !== '') {
      this.scripts.set(p.scriptId, { kind: 'mapped', url: p.url, sourceMapURL: p.sourceMapURL });
      return 'mapped';
    }
    const path = urlToPath(p.url);
    if (!p.url.startsWith('file:') || !PLAIN_SOURCE.test(path) || /[\\/]node_modules[\\/]/.test(path)) return false;
    this.scripts.set(p.scriptId, { kind: 'plain', url: p.url, path, lines: null });
    return 'plain';
  }

  /** A plain script's breakable positions (Debugger.getPossibleBreakpoints over the whole script). */
  indexPlain(scriptId: string, locations: readonly CdpLocation[]): void {
    const s = this.scripts.get(scriptId);
    if (s?.kind !== 'plain') return;
    const lines = new Map<number, number>();
    for (const l of locations) {
      const line = l.lineNumber + 1;
      const column0 = l.columnNumber ?? 0;
      const seen = lines.get(line);
      if (seen === undefined || column0 < seen) lines.set(line, column0);
    }
    s.lines = lines;
  }

  /** Whether a kept script holds code of `file` (its map covers it, or it is that plain file). */
  covers(scriptId: string, file: string): boolean {
    const s = this.scripts.get(scriptId);
    if (s === undefined) return false;
    return s.kind === 'plain' ? s.lines !== null && s.path === file : (this.reverseOf(scriptId)?.covers(file) ?? false);
  }

  has(scriptId: string): boolean {
    return this.scripts.has(scriptId);
  }

  /** A kept script's URL ('' for one not kept). */
  urlOf(scriptId: string): string {
    return this.scripts.get(scriptId)?.url ?? '';
  }

  /** Reads the source maps of the scripts kept so far, both ways (LineDebugger.warm says why). */
  warm(): void {
    for (const [scriptId, s] of this.scripts) {
      if (s.kind !== 'mapped') continue;
      this.mapper.map(s.url, 0, 0, s.sourceMapURL);
      this.reverseOf(scriptId)?.decode();
    }
  }

  /** A script's TypeScript-to-generated index (null: no map read). */
  reverseOf(scriptId: string): GeneratedPositions | null {
    let r = this.reverse.get(scriptId);
    if (r === undefined) {
      const s = this.scripts.get(scriptId);
      const loaded = s?.kind !== 'mapped' ? null : this.mapper.mapFor(s.url, s.sourceMapURL);
      r = loaded === null ? null : new GeneratedPositions(loaded);
      this.reverse.set(scriptId, r);
    }
    return r;
  }

  /**
   * Where TypeScript `file:line` runs in each loaded script: its generated position there, a
   * line without code (blank, a comment, a brace) slid to the next line with code (`line`: the
   * line it slid to; `fileLines`: the file's length, which bounds the slide).
   */
  generatedLocations(
    file: string,
    line: number,
    fileLines: number,
  ): Array<{ url: string; line0: number; column0: number; line: number }> {
    const out: Array<{ url: string; line0: number; column0: number; line: number }> = [];
    const last = Math.min(line + 20, Math.max(fileLines, line));
    for (const [scriptId, script] of this.scripts) {
      if (script.kind === 'plain') {
        if (script.path !== file || script.lines === null) continue;
        for (let l = line; l <= last; l++) {
          const column0 = script.lines.get(l);
          if (column0 === undefined) continue;
          out.push({ url: script.url, line0: l - 1, column0, line: l });
          break;
        }
        continue;
      }
      const rev = this.reverseOf(scriptId);
      if (rev === null || !rev.covers(file)) continue;
      for (let l = line; l <= last; l++) {
        const at = rev.positionOf(file, l);
        if (at === null) continue;
        out.push({ url: script.url, line0: at.line0, column0: at.column0, line: l });
        break;
      }
    }
    return out;
  }

  positionOf(loc: CdpLocation): { position: SourcePosition | null; generated: SourcePosition | null } {
    const s = this.scripts.get(loc.scriptId);
    if (s === undefined) return { position: null, generated: null };
    const generated = { file: urlToPath(s.url), line: loc.lineNumber + 1, column: (loc.columnNumber ?? 0) + 1 };
    if (s.kind === 'plain') return { position: generated, generated };
    const m = this.mapper.map(s.url, loc.lineNumber, loc.columnNumber ?? 0, s.sourceMapURL);
    return { position: m.mapped ? { file: m.file, line: m.line, column: m.column } : null, generated };
  }

  /**
   * The line a frame is on as the user reads it: its source line when mapped (or plain), else its
   * generated line. Generated lines alone do not do: tsx compiles a program's module with
   * its whitespace minified, so all its code may share one generated line.
   */
  lineOf(frame: CdpCallFrame): string {
    return this.lineOfLocation(frame.location);
  }

  /** The line of a break location, as lineOf says a frame's. */
  lineOfLocation(loc: CdpLocation): string {
    const { position, generated } = this.positionOf(loc);
    const at = position ?? generated;
    return at === null ? `${loc.scriptId}:${loc.lineNumber}` : `${at.file}:${at.line}`;
  }

  /**
   * The line (as lineOf says it) of a break location given by its script's URL and generated position; null
   * when no kept script has that URL.
   */
  lineAt(url: string, lineNumber: number, columnNumber: number): string | null {
    const scriptId = this.scriptIdOf(url);
    return scriptId === null ? null : this.lineOfLocation({ scriptId, lineNumber, columnNumber });
  }

  /** The id of the kept script with URL `url` (null: none). */
  scriptIdOf(url: string): string | null {
    for (const [scriptId, s] of this.scripts) if (s.url === url) return scriptId;
    return null;
  }

  isLibrary(frame: CdpCallFrame): boolean {
    return LIBRARY.test(this.positionOf(frame.location).position?.file ?? '');
  }

  isMachinery(frame: CdpCallFrame): boolean {
    const s = this.scripts.get(frame.location.scriptId);
    if (s === undefined) return true;
    const p = this.positionOf(frame.location).position;
    return p === null ? false : MACHINERY.test(p.file);
  }
}
