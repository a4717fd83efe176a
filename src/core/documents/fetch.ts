/**
 * Fetching `url` documents. The product makes no outside requests: the default fetcher reads
 * `file:` URLs and http(s) on 127.0.0.1 / localhost only, and refuses anything else with a
 * clear error. A host may inject its own {@link DocumentFetcher} (e.g. one that asks the
 * user). Every fetch is bounded by `maxBytes` (documentMaxContentBytes).
 */
import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { UserFacingError } from '../util/errors';

export interface FetchedDocument {
  content: string;
  title?: string;
  contentType?: string;
}

export type DocumentFetcher = (url: string, opts: { maxBytes: number; signal?: AbortSignal }) => Promise<FetchedDocument>;

export class DocumentFetchError extends UserFacingError {
  constructor(message: string) {
    super(message, 'document_fetch');
  }
}

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** `<title>` of an HTML page, tags stripped; undefined when there is none. */
export function htmlTitle(html: string): string | undefined {
  const m = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  const t = m?.[1]?.replace(/\s+/g, ' ').trim();
  return t || undefined;
}

/** Rough text of an HTML page: scripts/styles dropped, tags removed, entities for the common few. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n\s*\n+/g, '\n\n')
    .trim();
}

async function readBounded(res: Response, maxBytes: number, url: string): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes)
    throw new DocumentFetchError(`${url} is ${declared} bytes; the limit is ${maxBytes} (documentMaxContentBytes).`);
  const reader = (res.body as ReadableStream<Uint8Array> | null)?.getReader();
  if (!reader) return '';
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new DocumentFetchError(`${url} is larger than ${maxBytes} bytes (documentMaxContentBytes).`);
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString('utf8');
}

export function createLocalDocumentFetcher(opts: { fetchImpl?: typeof fetch; timeoutMs?: number } = {}): DocumentFetcher {
  return async (url, { maxBytes, signal }) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new DocumentFetchError(`Not a valid URL: ${url}`);
    }
    if (u.protocol === 'file:') return readFileUrl(u, maxBytes);
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !LOCAL_HOSTS.has(u.hostname)) {
      throw new DocumentFetchError(
        `Refused to fetch ${url}: Agent Memory makes no requests outside this machine. Save the page and ingest the file, or paste its text.`,
      );
    }
    const timeout = AbortSignal.timeout(opts.timeoutMs ?? 30_000);
    const res = await fetchManual(opts.fetchImpl ?? fetch, u, url, signal ? AbortSignal.any([signal, timeout]) : timeout);
    const contentType = res.headers.get('content-type') ?? undefined;
    const body = await readBounded(res, maxBytes, url);
    if (contentType && /html/i.test(contentType)) return { content: htmlToText(body), title: htmlTitle(body), contentType };
    return { content: body, contentType };
  };
}

async function readFileUrl(u: URL, maxBytes: number): Promise<FetchedDocument> {
  const file = fileURLToPath(u);
  const st = await fs.promises.stat(file).catch(() => undefined);
  if (!st?.isFile()) throw new DocumentFetchError(`No file at ${file}.`);
  if (st.size > maxBytes) throw new DocumentFetchError(`${file} is ${st.size} bytes; the limit is ${maxBytes} (documentMaxContentBytes).`);
  const content = await fs.promises.readFile(file, 'utf8');
  return /\.html?$/i.test(file) ? { content: htmlToText(content), title: htmlTitle(content), contentType: 'text/html' } : { content };
}

/** One request, redirects not followed; a network error, a redirect or a non-2xx status is a DocumentFetchError. */
async function fetchManual(fetchImpl: typeof fetch, u: URL, url: string, signal: AbortSignal): Promise<Response> {
  let res: Response;
  try {
    res = await fetchImpl(u, { signal, redirect: 'manual' });
  } catch (e) {
    throw new DocumentFetchError(`Could not fetch ${url}: ${(e as Error).message}`);
  }
  if (res.status >= 300 && res.status < 400)
    throw new DocumentFetchError(`${url} redirects (HTTP ${res.status}); redirects are not followed.`);
  if (!res.ok) throw new DocumentFetchError(`${url} answered HTTP ${res.status}.`);
  return res;
}
