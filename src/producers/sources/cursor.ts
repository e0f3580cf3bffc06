import { looksLikeCredential, REDACTED, redactUrl } from '../../util/redact.js';

/**
 * A paging cursor as it may be logged or recorded: redacted as a URL is (util/redact.ts), also
 * when it is not one. A cursor is the source's opaque state, but a server may hand back what it
 * was sent: a URL (a Link header's next page), a bare query string (`token=…&offset=…`, redacted
 * as a URL's query), or a value shaped like a credential (a JWT, a long hex key), which the
 * page URL carrying it as `?cursor=` already shows as `***`.
 */
export function redactCursor(cursor: string): string {
  if (cursor.includes('://') || cursor.includes('?')) return redactUrl(cursor);
  if (cursor.includes('=')) return redactUrl(`?${cursor}`).slice(1);
  return looksLikeCredential(cursor) ? REDACTED : redactUrl(cursor);
}
