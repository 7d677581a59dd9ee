// A resource named as the program names it: a Lock, Queue, Event, Semaphore, Condition or
// Barrier shown by the variable or attribute it was created into (`this.auditLog` → `auditLog`),
// read from its creation line (bindingNameAt), with that creation site; a holder with the line
// where it took it. Stacks come from runtime/creation-sites.ts (tracking on).
//
// Invariants: nothing here changes the program; each resource is named once (WeakMap) and each
// source file read once (bounded cache); anything but a binding (an argument, a return) gives no
// name; a missing file or an unparsable line gives a null name, never an error.

import { readFileSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import type { SourcePosition } from '../../protocol/host-protocol';
import { creationStackOf, type CapturedStack } from '../creation-sites';
import { inspectResource } from '../inspection';
import type { Task } from '../task';
import { sourcePositions } from './source-positions';
import { parseStack } from './traces';

/** How a resource is shown: its name in the program (null: none), where it was made, its class. */
export interface ResourceNaming {
  readonly className: string;
  readonly name: string | null;
  readonly createdAt: SourcePosition | null;
}

/** This runtime's folder (`…/runtime/`), from its sources or from a bundle in dist/ (whose frames map to them). */
const RUNTIME_ROOT =
  (/[\\/]runtime[\\/]inspect$/.test(__dirname) ? dirname(__dirname) : join(__dirname, '..', 'runtime')) + sep;
/**
 * The core and the inspector, host, recorder and CLI: never the program's creation or acquire site (the
 * crawler and samples may be).
 */
const RUNTIME_OWN = /^(?:(?:inspect|host|record|cli)[\\/].*|[^\\/]+)$/;
function isRuntimeFile(file: string): boolean {
  return file.startsWith(RUNTIME_ROOT) && RUNTIME_OWN.test(file.slice(RUNTIME_ROOT.length));
}
/** The bundles of dist/ (the host's), when no source map maps them back. */
const BUNDLE_FILES = /[\\/]dist[\\/][^\\/]+\.js$/;

const IDENT = '[A-Za-z_$][\\w$]*';

/**
 * The name the `new <className>` at `column` (1-based; null: unknown) of `line` is bound to,
 * or null. See the header for the shapes read.
 */
export function bindingNameAt(line: string, className: string, column: number | null): string | null {
  const news: number[] = [];
  const pattern = new RegExp(`\\bnew\\s+${className.replace(/[$]/g, '\\$')}\\b`, 'g');
  for (let m = pattern.exec(line); m !== null; m = pattern.exec(line)) news.push(m.index);
  if (news.length === 0) return null;
  let at: number | undefined;
  if (column !== null) at = news.find((i) => i === column - 1) ?? (news.length === 1 ? news[0] : undefined);
  else if (news.length === 1) at = news[0];
  if (at === undefined) return null;
  const before = line.slice(0, at).replace(/\s+$/, '');
  const declared = new RegExp(
    `(?:^|[^\\w$.#])(?:(?:const|let|var)\\s+|(?:(?:private|public|protected|readonly|static|declare|override|accessor)\\s+)*)#?(${IDENT})[!?]?(?:\\s*:\\s*[^=]+?)?\\s*=$`,
  ).exec(before);
  if (declared !== null && !/^(?:return|yield|await|typeof|case|in|of|new)$/.test(declared[1]!)) return declared[1]!;
  const member = new RegExp(`(?:${IDENT}|\\])\\s*(?:\\?\\.|\\.)\\s*#?(${IDENT})\\s*=$`).exec(before);
  if (member !== null) return member[1]!;
  const property = new RegExp(`(?:^|[{,(]\\s*)['"]?(${IDENT})['"]?\\s*:$`).exec(before);
  if (property !== null) return property[1]!;
  return null;
}

/**
 * The program's frame of a captured stack: the first outside the runtime, mapped to its source when a map
 * covers it.
 */
export function programSiteOf(captured: CapturedStack | null): SourcePosition | null {
  const stack = captured?.stack;
  if (typeof stack !== 'string') return null;
  const positions = sourcePositions();
  for (const l of parseStack(stack).lines) {
    if (l.file === null || l.line === null || l.resume || l.file.startsWith('node:') || l.file.includes('node_modules'))
      continue;
    let file = l.file;
    let line = l.line;
    let column = l.column ?? 1;
    // A .ts frame is the program's own position already (tsx and the host's loader give Node
    // its map); a .js one may be a bundle's or a transpiled module's, mapped when a map covers it.
    if (/\.[cm]?js$/.test(file)) {
      const p = positions.map(file, line - 1, column - 1);
      if (p.mapped) ({ file, line, column } = p);
    }
    if (isRuntimeFile(file) || BUNDLE_FILES.test(file)) continue;
    return { file, line, column };
  }
  return null;
}

const MAX_FILES = 64;
const sourceLines = new Map<string, string[] | null>();

/** The text of `line` (1-based) of `file`, or null (unreadable). */
function sourceLine(file: string, line: number): string | null {
  let lines = sourceLines.get(file);
  if (lines === undefined) {
    try {
      lines = readFileSync(file, 'utf8').split(/\r?\n/);
    } catch {
      lines = null;
    }
    if (sourceLines.size >= MAX_FILES) sourceLines.delete(sourceLines.keys().next().value!);
    sourceLines.set(file, lines);
  }
  return lines?.[line - 1] ?? null;
}

/** The class a resource was made from (its constructor's name; its inspection's kind else). */
function classNameOf(resource: object): string {
  const ctor = (resource as { constructor?: { name?: unknown } }).constructor;
  return typeof ctor?.name === 'string' && ctor.name !== '' && ctor.name !== 'Object'
    ? ctor.name
    : (inspectResource(resource)?.kind ?? 'object');
}

const namings = new WeakMap<object, ResourceNaming>();

/** How the program names `resource` (computed once per resource). */
export function resourceNamingOf(resource: object): ResourceNaming {
  const known = namings.get(resource);
  if (known !== undefined) return known;
  const className = classNameOf(resource);
  const createdAt = programSiteOf(creationStackOf(resource));
  const text = createdAt === null ? null : sourceLine(createdAt.file, createdAt.line);
  const naming: ResourceNaming = {
    className,
    name: text === null ? null : bindingNameAt(text, className, createdAt!.column),
    createdAt,
  };
  namings.set(resource, naming);
  return naming;
}

/** `buggy.ts:10` */
export function shortSite(p: SourcePosition): string {
  return `${basename(p.file)}:${p.line}`;
}

/**
 * A resource as a person reads it: `ledger (Lock, buggy.ts:8)`, or `Lock made at buggy.ts:8`
 * when it has no name; null when nothing is known of its creation (the caller keeps its own
 * description).
 */
export function resourceLabel(resource: object): string | null {
  const n = resourceNamingOf(resource);
  if (n.name !== null) return `${n.name} (${n.className}${n.createdAt !== null ? `, ${shortSite(n.createdAt)}` : ''})`;
  if (n.createdAt !== null) return `${n.className} made at ${shortSite(n.createdAt)}`;
  return null;
}

/**
 * Where `holder` took `resource` (a Lock, a Semaphore's slot: the program's line), or, without a holder,
 * where its sole holder took it; null when not held so, or not known.
 */
export function heldSinceOf(resource: object, holder?: Task<unknown> | null): SourcePosition | null {
  const view = inspectResource(resource);
  if (view === null || view.heldSince === undefined) return null;
  const sites = view.heldSince();
  if (holder === undefined) return sites.length === 1 ? programSiteOf(sites[0]!) : null;
  const i = view.holders().indexOf(holder);
  return i < 0 ? null : programSiteOf(sites[i] ?? null);
}
