// Regenerates the measured part of bench/RESULTS.md: runs each bench below once, at the small
// sizes given (a refresh, not a study: the machine is shared), and rewrites the section between
// the markers with each bench's printed table, its command, the date, node's version and the
// load average. The rest of the file (figures of the line debugger, replays, before → after
// records) is kept as written. Run: npm run bench:results (it builds dist/ first).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';

const root = new URL('..', import.meta.url).pathname;
const FILE = `${root}bench/RESULTS.md`;
const BEGIN = '<!-- begin: written by npm run bench:results -->';
const END = '<!-- end: written by npm run bench:results -->';

/** Each bench: its title, the command printed, and the node arguments it runs with. */
const BENCHES = [
  {
    title: 'Runtime against native async/await (quick sizes)',
    command: 'node --expose-gc dist/bench/runtime.bench.js --quick',
    args: ['--expose-gc', 'dist/bench/runtime.bench.js', '--quick'],
  },
  {
    title: 'Crawl of the link farm against the undici peer (300 pages, 3 rounds)',
    command: 'node dist/bench/crawl.bench.js --sites farm --pages 300 --rounds 3 --no-python',
    args: ['dist/bench/crawl.bench.js', '--sites', 'farm', '--pages', '300', '--rounds', '3', '--no-python'],
  },
];

const sections = [];
for (const b of BENCHES) {
  const load = loadavg()[0].toFixed(1);
  const started = Date.now();
  const r = spawnSync(process.execPath, b.args, { cwd: root, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (r.status !== 0) {
    console.error(`${b.command} failed (status ${r.status}):\n${r.stdout}${r.stderr}`);
    process.exit(1);
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.log(`${b.command}: ${seconds} s`);
  sections.push(
    `### ${b.title}\n\n\`${b.command}\`, ${seconds} s, load average ${load} at the start:\n\n\`\`\`\n${r.stdout.trimEnd()}\n\`\`\`\n`,
  );
}

const text = readFileSync(FILE, 'utf8');
const from = text.indexOf(BEGIN);
const to = text.indexOf(END);
if (from === -1 || to < from) {
  console.error(`${FILE} has no ${BEGIN} … ${END} section to rewrite`);
  process.exit(1);
}
const generated = [
  BEGIN,
  `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, node ${process.version}, by \`npm run bench:results\` (bench/results.mjs); do not edit by hand.`,
  '',
  ...sections,
  END,
].join('\n');
writeFileSync(FILE, text.slice(0, from) + generated + text.slice(to + END.length));
console.log(`${FILE}: rewritten`);
