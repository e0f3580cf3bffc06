import { textOrNull } from '../../util/text.js';
import { refuseShape, type ShapeBounds } from './page-shape.js';
import { PageShapeError, type PageOutcome, type PageResponse, type ParsedPage } from './types.js';

/** A page's outcome, and whether its text was not valid UTF-8 (read anyway, with replacement characters). */
export type Interpreted = DistributiveOmit<PageOutcome, 'fetchId'> & { invalidUtf8?: boolean };

/**
 * What a response means: a parsed page, or a failure with its error class (not JSON, wrong shape,
 * 4xx/5xx, too large, too many items, too deep…). A page over `bounds` is refused on its bytes,
 * before it is parsed or any item is mapped.
 */
export function interpret(
  res: PageResponse,
  parse: (json: unknown, res: PageResponse) => ParsedPage,
  notModified: (() => ParsedPage) | undefined,
  bounds: ShapeBounds,
): Interpreted {
  const fail = (errorClass: string, error: string) => ({ ok: false as const, errorClass, error, response: res });
  if (res.errorClass) {
    const cls = res.errorClass === 'body_too_large' ? 'too_large' : res.errorClass;
    return fail(cls, res.errorMessage ?? res.errorClass);
  }
  if (res.bodyTruncated) return fail('too_large', `page larger than the ${res.body.length}-byte cap`);
  if (res.status === 304) {
    try {
      return { ok: true, page: notModified ? notModified() : { listings: [], nextCursor: null }, response: res };
    } catch (err) {
      if (err instanceof PageShapeError) return fail('invalid_shape', err.message);
      throw err;
    }
  }
  if (res.status === null) return fail('no_response', 'no HTTP response');
  if (res.status >= 500) return fail('http_5xx', `HTTP ${res.status}`);
  if (res.status === 429)
    return fail('rate_limited', `HTTP 429${res.headers['retry-after'] ? ` (Retry-After ${res.headers['retry-after']})` : ''}`);
  const snippet = () => res.body.subarray(0, 200).toString('utf8');
  if (res.status === 401)
    return fail('unauthorized', `HTTP 401${res.headers['www-authenticate'] ? ` (${res.headers['www-authenticate']})` : ''}: ${snippet()}`);
  if (res.status === 403) return fail('forbidden', `HTTP 403: ${snippet()}`);
  if (res.status >= 400) return fail('http_4xx', `HTTP ${res.status}: ${snippet()}`);
  if (res.status < 200 || res.status >= 300) return fail('unexpected_status', `HTTP ${res.status}`);
  const refused = refuseShape(res.body, bounds);
  if (refused) return fail(refused.errorClass, refused.error);
  // UTF-8 (RFC 8259 §8.1), a leading BOM ignored.
  const { text, validUtf8 } = textOrNull(res.body);
  let json: unknown;
  try {
    json = JSON.parse(text ?? '');
  } catch (err) {
    return fail('not_json', `page is not JSON${validUtf8 ? '' : ' (nor valid UTF-8)'}: ${(err as Error).message}`);
  }
  try {
    const page = parse(json, res);
    // The byte scan counts the arrays where sources keep their items; this holds whatever a parser read.
    const items = Math.max(page.itemCount ?? 0, page.listings.length);
    if (items > bounds.maxItems)
      return fail('too_many_items', `page lists ${items} items, over the cap of ${bounds.maxItems} for this source`);
    return { ok: true, page, response: res, ...(validUtf8 ? {} : { invalidUtf8: true }) };
  } catch (err) {
    if (err instanceof PageShapeError) return fail('invalid_shape', err.message);
    // A parser that fails on hostile input otherwise (a RangeError deep in a value) fails this page, recorded, not the run.
    return fail('parse_error', `${(err as Error)?.name ?? 'Error'}: ${(err as Error)?.message ?? String(err)}`);
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
