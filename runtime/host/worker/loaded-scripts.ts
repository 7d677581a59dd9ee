// Runs on a runtime host's line debugger worker thread (live or line replay host).
//
// LoadedScripts: the main thread's scripts that have a source map (Debugger.scriptParsed), read both ways: a
// generated position to the TypeScript line shown, and a TypeScript file:line to the generated positions a
// breakpoint is set at (GeneratedPositions). It also says which frames are the runtime's machinery (stepped
// through, never shown) and its library (queue.ts, lock.ts, ...). Invariants: a script without a map, Node's
// own, or without a URL is not kept; each map is read once (misses too).

import type { SourcePosition } from '../../../protocol/host-protocol';
import { SourcePositionMapper, urlToPath } from '../../inspect/source-positions';
import { GeneratedPositions } from '../../inspect/generated-positions';
import type { CdpCallFrame, CdpLocation } from './cdp-shapes';

/** Sources whose frames are the runtime's machinery: stepped through, not shown. */
const MACHINERY =
  /[\\/]runtime[\\/](coroutine|running-loop|task|loop|handle|ready-queue|future|fifo|timer-heap|shape-anchors|observer-fanout|wakeup-callback)\.ts$|[\\/]runtime[\\/](inspect|host|record)[\\/]|[\\/]protocol[\\/]/;

/**
 * The runtime's own library (queue.ts, lock.ts, sleep.ts, ...): a task the loop resumes is often
 * suspended inside it, so "follow the loop" comes out of it to the program's line.
 */
const LIBRARY = /[\\/]runtime[\\/][^\\/]+\.ts$/;

export class LoadedScripts {
  private readonly scripts = new Map<string, { url: string; sourceMapURL: string }>();
  private readonly reverse = new Map<string, GeneratedPositions | null>();
  private readonly mapper = new SourcePositionMapper();

  /** Keeps a parsed script if it has a source map; true when kept. */
  add(p: { scriptId: string; url: string; sourceMapURL?: string }): boolean {
    if (p.sourceMapURL === undefined || p.sourceMapURL === '' || p.url === '' || p.url.startsWith('node:'))
      return false;
    this.scripts.set(p.scriptId, { url: p.url, sourceMapURL: p.sourceMapURL });
    return true;
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
      this.mapper.map(s.url, 0, 0, s.sourceMapURL);
      this.reverseOf(scriptId)?.decode();
    }
  }

  /** A script's TypeScript-to-generated index (null: no map read). */
  reverseOf(scriptId: string): GeneratedPositions | null {
    let r = this.reverse.get(scriptId);
    if (r === undefined) {
      const s = this.scripts.get(scriptId);
      const loaded = s === undefined ? null : this.mapper.mapFor(s.url, s.sourceMapURL);
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
    for (const [scriptId, script] of this.scripts) {
      const rev = this.reverseOf(scriptId);
      if (rev === null || !rev.covers(file)) continue;
      for (let l = line; l <= Math.min(line + 20, Math.max(fileLines, line)); l++) {
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
    const m = this.mapper.map(s.url, loc.lineNumber, loc.columnNumber ?? 0, s.sourceMapURL);
    const generated = { file: urlToPath(s.url), line: loc.lineNumber + 1, column: (loc.columnNumber ?? 0) + 1 };
    return { position: m.mapped ? { file: m.file, line: m.line, column: m.column } : null, generated };
  }

  /**
   * The line a frame is on as the user reads it: its TypeScript line when mapped, else its
   * generated line. Generated lines alone do not do: tsx compiles a program's module with
   * its whitespace minified, so all its code may share one generated line.
   */
  lineOf(frame: CdpCallFrame): string {
    const { position, generated } = this.positionOf(frame.location);
    const at = position ?? generated;
    return at === null ? `${frame.location.scriptId}:${frame.location.lineNumber}` : `${at.file}:${at.line}`;
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
