// A crawl's root as a user types it, made into the URL the crawl starts from: an http(s) URL
// as is (without its fragment), a bare host (`example.com`, `localhost:8080/docs`) as
// http://host/. Anything else is refused with a message that says what is wrong, rather than
// guessed into an http URL: a root with another scheme (`mailto:a@b.invalid`, `ftp://x`) or
// one that contains `://` but is not a URL (`ht!tp://::::`).
//
// Invariants: pure; returns a WHATWG href with an http or https scheme and a host, or throws
// InvalidUrlError (the URL as typed in its `url`).

import { InvalidUrlError } from '../http/errors';

/** A scheme followed by `//`: the user meant a URL. */
const WITH_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\//i;
/** A scheme followed by something that is not a port number: `mailto:x`, `javascript:x`. */
const OTHER_SCHEME = /^([a-z][a-z0-9+.-]*):(?!\d+(?:[/?#]|$))/i;

/** The URL a crawl starts from for `root`; throws InvalidUrlError when it is not one. */
export function parseRoot(root: string): string {
  const trimmed = root.trim();
  if (trimmed === '') throw new InvalidUrlError(root, 'an empty root URL');
  let candidate: string;
  if (WITH_AUTHORITY.test(trimmed)) candidate = trimmed;
  else if (trimmed.includes('://')) throw new InvalidUrlError(root, 'invalid root URL: the part before :// is not a scheme');
  else {
    const other = OTHER_SCHEME.exec(trimmed);
    if (other !== null) throw new InvalidUrlError(root, `unsupported scheme "${other[1]!.toLowerCase()}" for a root: only http and https can be crawled`);
    candidate = `http://${trimmed}`;
  }
  let u: URL;
  try {
    u = new URL(candidate);
  } catch {
    throw new InvalidUrlError(root, 'invalid root URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new InvalidUrlError(root, `unsupported scheme "${u.protocol.slice(0, -1)}" for a root: only http and https can be crawled`);
  if (u.hostname === '') throw new InvalidUrlError(root, 'the root URL has no host');
  u.hash = '';
  return u.href;
}
