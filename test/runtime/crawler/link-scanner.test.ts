// Tests of runtime/crawler/link-scanner.ts against htmlparser2 itself: a reference collector
// on a full htmlparser2 Parser (decodeEntities off, names lowercased, as links.ts used before
// the scanner) must report exactly the same hrefs (values and quotes) and <base href> on:
// hand-written edge cases, 5,000 documents generated from a seeded mix of tricky fragments,
// the benchmark's link-farm pages, and, where Debian's python3.11-doc is installed, all of
// Python's HTML documentation. extractLinks' title and links are compared the same way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Parser, type Handler } from 'htmlparser2';
import { scanLinks, type RawAttribute, type ScannedLinks } from '../../../runtime/crawler/link-scanner';
import { extractLinks } from '../../../runtime/crawler/links';
import { seededRandom, startLinkFarm } from '../../../bench/sites/link-farm-site';
import { skipUnlessInstalled } from '../../real-servers';

/** What htmlparser2's Parser reports: hrefs of a/area/link, the first base href, the title. */
class ReferenceCollector implements Partial<Handler> {
  rawHrefs: RawAttribute[] = [];
  baseHref: RawAttribute | undefined;
  title: string | undefined;
  private tag = '';
  private seenHref = false;
  private inTitle = false;
  private titleDone = false;
  private svg = 0;
  onopentagname(name: string): void {
    this.tag = name;
    this.seenHref = false;
    if (name === 'title' && !this.titleDone && this.svg === 0) {
      this.inTitle = true;
      this.title = '';
    } else if (name === 'svg') this.svg++;
  }
  onattribute(name: string, value: string, quote?: string | null): void {
    if (name !== 'href' || this.seenHref) return;
    if (this.tag === 'a' || this.tag === 'area' || this.tag === 'link') {
      this.seenHref = true;
      this.rawHrefs.push({ value, quote });
    } else if (this.tag === 'base') {
      this.seenHref = true;
      this.baseHref ??= { value, quote };
    }
  }
  ontext(text: string): void {
    if (this.inTitle) this.title += text;
  }
  onclosetag(name: string): void {
    if (name === 'title' && this.inTitle) {
      this.inTitle = false;
      this.titleDone = true;
    } else if (name === 'svg' && this.svg > 0) this.svg--;
  }
}

function reference(html: string): ReferenceCollector {
  const collector = new ReferenceCollector();
  new Parser(collector, { decodeEntities: false, lowerCaseTags: true, lowerCaseAttributeNames: true }).end(html);
  return collector;
}

function assertSameAsParser(html: string, label: string): ScannedLinks {
  const ref = reference(html);
  const got = scanLinks(html);
  assert.deepEqual(got.rawHrefs, ref.rawHrefs, `hrefs of ${label}: ${JSON.stringify(html.slice(0, 300))}`);
  assert.deepEqual(got.baseHref, ref.baseHref, `base of ${label}: ${JSON.stringify(html.slice(0, 300))}`);
  return got;
}

const PAGE = 'http://127.0.0.1:8080/dir/page.html';

/** extractLinks' title must be the reference's, whitespace collapsed (entities: none in these). */
function assertSameTitle(html: string, label: string): void {
  const ref = reference(html).title;
  const got = extractLinks(Buffer.from(html), 'text/html', PAGE).title;
  const collapse = (t: string | undefined): string | undefined =>
    t?.replace(/[\t\n\f\r ]+/g, ' ').replace(/^ | $/g, '');
  if (ref !== undefined && ref.includes('&')) return; // decoded differently on purpose (entities)
  assert.equal(got, collapse(ref), `title of ${label}: ${JSON.stringify(html.slice(0, 300))}`);
}

test('hand-written edge cases: quotes, bare and valueless hrefs, odd names, self-closing, EOF', () => {
  const cases = [
    '<a href="/dq">x</a><a href=\'/sq\'>y</a><a href=/bare>z</a><a href>none</a>',
    '<A HREF="/upper"><AREA Href=/area><LINK rel=stylesheet href="/css"><Base HREF="/base/">',
    '<a href="/first" href="/second"><a =href=/eq><a/href=/slash><a href=x/><a href=>empty',
    '<a\thref\n=\n"/ws"><a href = "/spaced" ><a href="/no-end',
    '<a href=/cut',
    '<a hre',
    '<lin\u212Ak href=/kelvin><base href="/b1"><base href="/b2">',
    '<a b c=d href="/late"><a href="/q>uote">',
    '<a href="/self"/><a href="/sp" / ><a / href="/after-slash">',
  ];
  for (const [i, html] of cases.entries()) assertSameAsParser(html, `case ${i}`);
});

test('hand-written edge cases: comments, CDATA, declarations, processing instructions, end tags', () => {
  const cases = [
    '<!-- <a href="/c1"> --><a href="/after-comment">',
    '<!--><a href="/short-comment"><!---><a href="/shorter">',
    '<!-x><a href="/decl-dash"><!><a href="/empty-decl"><!DOCTYPE html><a href="/doctype">',
    '<![CDATA[<a href="/in-cdata">]]><a href="/after-cdata"><![CDAT><a href="/broken-cdata"><![CDA>',
    '<?php echo "<a href=\'/pi\'>" ?><a href="/after-pi">',
    '</a href="/end-tag"><a href="/x"></ a><a href="/y"></><a href="/z"></1 <a href="/in-bogus">><a href="/ok">',
    '<!-- unterminated <a href="/never">',
    '< a href="/not-a-tag"><<a href="/double-lt">',
    '<',
    '</',
    '<!',
    '<!-',
  ];
  for (const [i, html] of cases.entries()) assertSameAsParser(html, `case ${i}`);
});

test('hand-written edge cases: raw-text elements and their end tags', () => {
  const cases = [
    '<script>document.write("<a href=\'/s\'>")</script><a href="/after-script">',
    '<SCRIPT>x</SCRIPT ><a href="/upper-end"><style>a[href="/st"]{}</style><a href="/after-style">',
    '<script>"</scripts>" <a href="/still-script"></script><a href="/out">',
    '<script/><a href="/self-closing-script"><title/><a href="/self-closing-title">',
    '<textarea><a href="/ta"></textarea><xmp><a href="/xmp"></xmp><a href="/free">',
    '<title>T <a href="/in-title"></title><a href="/after-title">',
    '<script>never closed <a href="/x">',
    '<script>\u001c/script><a href="/c1c">',
    '<title>\u001c/title><a href="/title-c1c">',
    '<scriptx><a href="/not-raw"><stylesheet><a href="/not-raw2"><titles><a href="/not-raw3">',
    '<script>a</script',
    '<script>a</script x',
    '<svg><title>in svg</title></svg><title>Doc</title>',
  ];
  for (const [i, html] of cases.entries()) {
    assertSameAsParser(html, `case ${i}`);
    assertSameTitle(html, `case ${i}`);
  }
});

const FRAGMENTS = [
  '<a href="/d">',
  "<A HREF='/s'>",
  '<a href=/u>',
  '<a href>',
  '<a =href=/e>',
  '<a/href=/sl>',
  '<area href="/ar">',
  '<link rel=x href=/l>',
  '<base href="/b/">',
  '<lin\u212Ak href=/k>',
  '<a href="/1" href="/2">',
  '<a hre',
  'f="/y">',
  'href=',
  ' href="/h"',
  '<a ',
  '<a',
  '<a\n',
  '<script>',
  '</script>',
  '</script ',
  '</SCRIPT>',
  '<script/>',
  '<style>',
  '</style>',
  '<title>',
  '</title>',
  '<title/>',
  '<textarea>',
  '</textarea>',
  '<xmp>',
  '</xmp>',
  '<scriptx>',
  '<!--',
  '-->',
  '<!-->',
  '<!--->',
  '<!',
  '<!-',
  '<![CDATA[',
  ']]>',
  '<![CDAT',
  '<?',
  '?>',
  '>',
  '<',
  '</',
  '</ ',
  '</1',
  '"',
  "'",
  '=',
  '/',
  '/>',
  ' ',
  '\n',
  '\t',
  'text',
  '&amp;',
  '<svg>',
  '</svg>',
  '<p>',
  '</p>',
  '<div class="a>b">',
  '\u001c/script>',
  '\u001c',
  '<br/>',
  '</br>',
  '</a>',
  '<img src="/i.png">',
  '<a href="/q?x=1&amp;y=2">',
  'é',
  '<A',
  ' HREF',
  '="/z"',
];

test('5,000 generated documents of tricky fragments: the same hrefs, base and title as htmlparser2', () => {
  const random = seededRandom(16);
  for (let d = 0; d < 5000; d++) {
    const count = 1 + Math.floor(random() * 40);
    let html = '';
    for (let i = 0; i < count; i++) html += FRAGMENTS[Math.floor(random() * FRAGMENTS.length)];
    assertSameAsParser(html, `generated document ${d}`);
    assertSameTitle(html, `generated document ${d}`);
  }
});

test('the link-farm pages of both styles: the same hrefs as htmlparser2', async () => {
  for (const style of ['prepared', 'node-app'] as const) {
    const farm = await startLinkFarm({ pages: 20, style });
    try {
      for (let n = 0; n < 20; n++) {
        const html = await (await fetch(`${farm.origin}/p/${n}`)).text();
        const got = assertSameAsParser(html, `${style} /p/${n}`);
        assert.ok(got.rawHrefs.length >= 10);
        assertSameTitle(html, `${style} /p/${n}`);
      }
    } finally {
      await farm.close();
    }
  }
});

const PYTHON_DOCS = '/usr/share/doc/python3.11/html';

test('every page of the Python 3.11 documentation (python3.11-doc): the same hrefs, base and title', {
  skip: skipUnlessInstalled(fs.existsSync(PYTHON_DOCS), 'python3.11-doc not installed'),
}, () => {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.name.endsWith('.html')) files.push(p);
    }
  };
  walk(PYTHON_DOCS);
  assert.ok(files.length > 400, `${files.length} pages`);
  let hrefs = 0;
  for (const file of files) {
    const html = fs.readFileSync(file, 'utf8');
    hrefs += assertSameAsParser(html, file).rawHrefs.length;
    assertSameTitle(html, file);
  }
  assert.ok(hrefs > 50_000, `${hrefs} hrefs`);
});
