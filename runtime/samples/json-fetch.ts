// Sample 7g, from the asyncio-vs-Node article: HTTP by hand over openConnection. Write a raw
// HTTP/1.1 request, read the status line and the headers line by line, then exactly
// Content-Length bytes of body, and parse the JSON of the demo site's `/api/pages.json`.

import { coroutine } from '../coroutine';
import { openConnection, type StreamReader, type StreamWriter } from '../streams';
import type { Coroutine } from '../task';
import { runOnLoop } from './run-on-loop';
import { SOURCES, type Sample } from './sample';
import { Transcript } from './transcript';

const writeRequest = coroutine(function* writeRequest(writer: StreamWriter, host: string, path: string): Coroutine<void> {
  const headers: Record<string, string> = {
    Host: host,
    'User-Agent': 'coroscope-sample/0.1',
    Accept: 'application/json',
    'Accept-Charset': 'utf-8',
    Connection: 'close',
  };
  writer.write(`GET ${path} HTTP/1.1\r\n`);
  for (const [name, value] of Object.entries(headers)) writer.write(`${name}: ${value}\r\n`);
  writer.write('\r\n');
  yield* writer.drain();
});

const readHeaders = coroutine(function* readHeaders(reader: StreamReader): Coroutine<Map<string, string>> {
  const headers = new Map<string, string>();
  for (;;) {
    const line = (yield* reader.readline()).toString('latin1').trim();
    if (line === '') return headers;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`malformed header line ${JSON.stringify(line)}`);
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
});

interface PagesJson {
  pages: number;
  links: string[];
}

const fetchJson = coroutine(function* fetchJson(t: Transcript, siteUrl: string): Coroutine<PagesJson> {
  const site = new URL(siteUrl);
  const [reader, writer] = yield* openConnection(site.hostname, Number(site.port || 80));
  try {
    yield* writeRequest(writer, site.host, '/api/pages.json');
    const statusLine = (yield* reader.readline()).toString('latin1').trim();
    const [version, code, ...reason] = statusLine.split(' ');
    t.log(`status: ${code} ${reason.join(' ')} (${version})`);
    const headers = yield* readHeaders(reader);
    t.log('headers:');
    for (const [name, value] of headers) t.log(`  ${name}: ${value}`);
    const length = Number(headers.get('content-length'));
    if (!Number.isSafeInteger(length) || length < 0) throw new Error('the response has no usable Content-Length');
    const body = yield* reader.readexactly(length);
    const data: unknown = JSON.parse(body.toString('utf8'));
    if (typeof data !== 'object' || data === null || typeof (data as PagesJson).pages !== 'number' || !Array.isArray((data as PagesJson).links)) {
      throw new Error('unexpected JSON');
    }
    return data as PagesJson;
  } finally {
    writer.close();
  }
});

export const jsonFetchSample: Sample = {
  id: 'json-fetch',
  ownLoop: false,
  title: 'A JSON fetch over openConnection, HTTP by hand',
  chapter: `${SOURCES.asyncioVsNode}: fetching JSON over asyncio.open_connection`,
  explanation:
    'openConnection gives a StreamReader and a StreamWriter over a non-blocking socket. ' +
    'The request is a few lines of text written to the writer; drain() waits until the socket has taken them. ' +
    'The response is read the way HTTP is laid out: readline() for the status line, readline() per header until the empty line, then readexactly(Content-Length) for the body. ' +
    'Each read may suspend the coroutine until more bytes arrive: step and watch the chain fetchJson -> readHeaders -> readline wait on the socket. ' +
    'The code reads like blocking code, but the loop is free at every one of those waits.',
  async run(ctx) {
    const t = new Transcript(ctx);
    const data = await runOnLoop(ctx.loop, fetchJson(t, ctx.siteUrl), fetchJson.name);
    t.note('pages', data.pages);
    t.log(`JSON: ${data.pages} pages, first ${data.links.slice(0, 3).join(', ')}`);
    t.check(data.links.length === data.pages, 'the JSON lists every page');
    t.check(data.links[0] === '/page/1/', 'the first page is /page/1/');
    return t.outcome();
  },
};
