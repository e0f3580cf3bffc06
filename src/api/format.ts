/**
 * How the API turns warehouse values into JSON: every time is ISO 8601 UTC, whatever
 * the warehouse's text form, and a rate with nothing to measure (NaN, ±inf) is null.
 */

/** 'YYYY-MM-DD HH:MM:SS.mmm' (ClickHouse, UTC) → ISO 8601 with Z; null stays null. */
export function isoTime(value: string | null | undefined): string | null {
  if (!value) return null;
  if (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/.test(value)) return `${value.replace(' ', 'T')}${value.includes('.') ? '' : '.000'}Z`;
  return value;
}

/** A finite number, else null: NaN and infinities never reach JSON. */
export const finiteOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

const TIME_FIELDS = ['firstSeen', 'lastSeen', 'inactiveSince'] as const;
type TimeField = (typeof TIME_FIELDS)[number];

/** A row with its firstSeen / lastSeen / inactiveSince (and sourceFirstSeen's values) as ISO times. */
export function withIsoTimes<T extends Partial<Record<TimeField, string | null>> & { sourceFirstSeen?: Record<string, string | null> }>(
  row: T,
): T {
  const out: T = { ...row };
  for (const f of TIME_FIELDS) {
    const v = out[f];
    if (typeof v === 'string') (out as Record<TimeField, string | null>)[f] = isoTime(v);
  }
  if (out.sourceFirstSeen && typeof out.sourceFirstSeen === 'object') {
    out.sourceFirstSeen = Object.fromEntries(Object.entries(out.sourceFirstSeen).map(([k, v]) => [k, isoTime(v)]));
  }
  return out;
}

/** The /agents cursor: the last agent key of a page, opaque to clients. */
export function encodeCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

/** The key a cursor stands for, or null when it is not one this API made. */
export function decodeCursor(cursor: string): string | null {
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  return key.length > 0 && encodeCursor(key) === cursor ? key : null;
}

/** The cursor of an agent list or search page: the (natural sort key, agent id) it ended on, opaque to clients. */
export function encodeListCursor(at: { sortKey: string; id: string }): string {
  return Buffer.from(JSON.stringify([at.sortKey, at.id]), 'utf8').toString('base64url');
}

/** The position a list cursor stands for, or null when it is not one this API made. */
export function decodeListCursor(cursor: string): { sortKey: string; id: string } | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== 'string' || typeof v[1] !== 'string') return null;
    const at = { sortKey: v[0], id: v[1] };
    return encodeListCursor(at) === cursor ? at : null;
  } catch {
    return null;
  }
}
