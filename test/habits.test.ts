// The habits CONTRIBUTING.md states, checked: commit subjects of at most 72 characters with a body
// (the commits after the one that set the rule), file headers that state a role in a few lines, and comment
// lines within the formatter's 120 columns (Biome wraps code, not comments).
//
// Invariants: the files checked are the git-tracked .ts under runtime/ extension/ webview/
// protocol/, less what the formatter leaves out (runtime/samples, runtime/crawler: their layout
// is part of the lesson). No file is exempt from the header limit (the allow-list of headers
// that predated the rule is empty and gone).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const ROOT = join(__dirname, '..');
/** The commit that set the rules (Biome, the 72-character subject): the subjects after it are checked. */
const RULES_SET = '9820ad8';
const SUBJECT_MAX = 72;
const HEADER_MAX = 12;
/** Commits after RULES_SET made with no body before the body was checked (never added to). */
const BODILESS_BEFORE_CHECK: ReadonlySet<string> = new Set(['d160311b396d7ff05ff7b7409e74e6b9255cf06b']);
const COMMENT_COLUMNS = 120;

function git(args: readonly string[]): { ok: boolean; out: string } {
  const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  return { ok: r.status === 0 && r.error === undefined, out: r.stdout ?? '' };
}

/** Why commit subjects cannot be checked here (no git, no history, a shallow clone without RULES_SET), or null. */
function noHistory(): string | null {
  if (!git(['rev-parse', '--git-dir']).ok) return 'no git history here (not a git checkout, or no git)';
  if (!git(['cat-file', '-e', `${RULES_SET}^{commit}`]).ok)
    return `commit ${RULES_SET} (where the rule starts) is not in this history (a shallow clone?)`;
  return null;
}

function sourceFiles(): string[] {
  const listed = git(['ls-files', '-z', '--', 'runtime', 'extension', 'webview', 'protocol']);
  assert.ok(listed.ok, 'git ls-files lists the sources');
  return listed.out
    .split('\0')
    .filter((f) => f.endsWith('.ts') && !f.startsWith('runtime/samples/') && !f.startsWith('runtime/crawler/'));
}

/** The leading comment block: the `//` lines the file starts with. */
export function headerLines(text: string): number {
  const lines = text.split('\n');
  const end = lines.findIndex((l) => !l.startsWith('//'));
  return end === -1 ? lines.length : end;
}

/** Commit subjects over SUBJECT_MAX characters in `log` (git log's `%h %s` lines). */
export function longSubjects(log: string): string[] {
  return log
    .split('\n')
    .filter((l) => l !== '')
    .filter((l) => l.slice(l.indexOf(' ') + 1).length > SUBJECT_MAX);
}

/** Commits with no body in `log` (git log's `%H%x00%s%x00%b%x1e` records), as `hash subject`. */
export function bodilessCommits(log: string): string[] {
  return log
    .split('\x1e')
    .map((r) => r.replace(/^\n+/, '').split('\0'))
    .filter((f) => f.length === 3 && f[0] !== '' && f[2]?.trim() === '')
    .map(([hash, subject]) => `${hash} ${subject}`);
}

/** Comment lines (`//`, `/*`, ` *`) longer than COMMENT_COLUMNS in `text`, as `line: length`. */
export function longCommentLines(text: string): string[] {
  return text
    .split('\n')
    .flatMap((l, i) =>
      l.length > COMMENT_COLUMNS && /^\s*(\/\/|\/\*|\*)/.test(l) ? [`${i + 1}: ${l.length} columns`] : [],
    );
}

test('the checks tell a long subject, a long header and a long comment line', () => {
  assert.deepEqual(longSubjects(`abc1234 ${'s'.repeat(72)}\ndef5678 ${'s'.repeat(73)}\n`), [
    `def5678 ${'s'.repeat(73)}`,
  ]);
  assert.deepEqual(bodilessCommits('aaa\0with body\0why it was done\n\x1e\nbbb\0no body\0\n\x1e\n'), ['bbb no body']);
  assert.equal(headerLines('// a\n// b\n\nimport x;\n// not the header\n'), 2);
  assert.equal(headerLines(`${'// x\n'.repeat(13)}code`), 13);
  assert.deepEqual(longCommentLines(`const x = 1;\n  // ${'c'.repeat(120)}\n${'y'.repeat(130)}\n`), ['2: 125 columns']);
});

test(`commit subjects after ${RULES_SET} are at most ${SUBJECT_MAX} characters`, (t) => {
  const why = noHistory();
  if (why !== null) return t.skip(why);
  const log = git(['log', '--format=%h %s', `${RULES_SET}..HEAD`]);
  assert.ok(log.ok, 'git log');
  assert.deepEqual(longSubjects(log.out), [], 'subjects over 72 characters (git commit --amend, or rebase -i: reword)');
});

test(`commits after ${RULES_SET} have a body saying why`, (t) => {
  const why = noHistory();
  if (why !== null) return t.skip(why);
  const log = git(['log', '--no-merges', '--format=%H%x00%s%x00%b%x1e', `${RULES_SET}..HEAD`]);
  assert.ok(log.ok, 'git log');
  assert.deepEqual(
    bodilessCommits(log.out).filter((c) => !BODILESS_BEFORE_CHECK.has(c.slice(0, c.indexOf(' ')))),
    [],
    'commits with no body (git commit --amend, or rebase -i: reword; say why in the body)',
  );
});

test(`file headers state a role in at most ${HEADER_MAX} lines`, () => {
  const files = sourceFiles();
  assert.ok(files.length > 100, `${files.length} files`);
  const long = files.filter((f) => headerLines(readFileSync(join(ROOT, f), 'utf8')) > HEADER_MAX);
  assert.deepEqual(
    long,
    [],
    `headers over ${HEADER_MAX} lines: keep the role and the invariants; how it works goes to docs/design/`,
  );
});

test(`comment lines are at most ${COMMENT_COLUMNS} columns`, () => {
  const long = sourceFiles().flatMap((f) =>
    longCommentLines(readFileSync(join(ROOT, f), 'utf8')).map((l) => `${f}:${l}`),
  );
  assert.deepEqual(long, []);
});
