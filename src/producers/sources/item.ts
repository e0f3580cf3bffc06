import { SOURCE_LIMITS } from './limits.js';
import type { ListingDraft } from './types.js';

/**
 * Helpers every source's item mapping shares: the raw item kept bounded, the invalid draft an
 * item starts from, the active draft it becomes, field readers, and the one finaliser every
 * draft passes before it becomes an event.
 */

/** A raw item as JSON text, bounded, and whether it was cut. */
export interface BoundedRaw {
  raw: string;
  rawTruncated: boolean;
}

/** Bounds a raw item to keep events small; returns the JSON text and whether it was cut. */
export function boundedRaw(item: unknown, maxChars: number = SOURCE_LIMITS.rawItemMaxChars): BoundedRaw {
  let text: string;
  try {
    text = JSON.stringify(item) ?? 'null';
  } catch {
    text = '"[unserializable]"';
  }
  return text.length > maxChars ? { raw: text.slice(0, maxChars), rawTruncated: true } : { raw: text, rawTruncated: false };
}

/**
 * The draft every source starts an item from: an `invalid` listing of the raw item, with its
 * reason, under `itemId` (default `invalid:<hash of the raw text>`). A source fills in the fields
 * and sets `status` for a valid item.
 */
export function invalidDraft(
  raw: BoundedRaw,
  protocol: 'a2a' | 'mcp',
  invalidReason: string | null = null,
  itemId = `invalid:${hashOf(raw.raw)}`,
): ListingDraft {
  return {
    itemId,
    protocol,
    name: '',
    description: '',
    version: null,
    endpointUrl: null,
    endpointTransport: null,
    cardUrl: null,
    serverJson: null,
    status: 'invalid',
    invalidReason,
    updatedAt: null,
    raw: raw.raw,
    rawTruncated: raw.rawTruncated,
  };
}

/** What an item mapping read from a listed item; fields left out stay null. */
export interface ListedFields {
  /** The item's name; its id when it has none. */
  name: string | null;
  /** Its description; '' when it has none. */
  description: string | null;
  protocol?: 'a2a' | 'mcp';
  version?: string | null;
  endpointUrl?: string | null;
  endpointTransport?: string | null;
  cardUrl?: string | null;
  updatedAt?: string | null;
}

/**
 * An `active` listing of the item `itemId`, built over the draft of its raw item (`invalidDraft`),
 * so every source names and defaults an item the same way. The field order stays the base's, which
 * keeps the content hashes of earlier passes comparable.
 */
export function activeDraft(base: ListingDraft, itemId: string, f: ListedFields): ListingDraft {
  return {
    ...base,
    itemId,
    protocol: f.protocol ?? base.protocol,
    name: f.name ?? itemId,
    description: f.description ?? '',
    version: f.version ?? null,
    endpointUrl: f.endpointUrl ?? null,
    endpointTransport: f.endpointTransport ?? null,
    cardUrl: f.cardUrl ?? null,
    status: 'active',
    updatedAt: f.updatedAt ?? null,
  };
}

/** A draft turned `invalid` with its reason (the source read it but will not list it). */
export function asInvalid(draft: ListingDraft, invalidReason: string): ListingDraft {
  return { ...draft, status: 'invalid', invalidReason };
}

/** Cuts text to at most `max` characters, the cut marked with "…" (never splitting a surrogate pair). */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

export function capOrNull(text: string | null, max: number): string | null {
  return text === null ? null : capText(text, max);
}

/**
 * The one finaliser every listing draft passes before it becomes an event (SOURCE_LIMITS):
 * name, description, version and the short fields are cut to their caps; an item id or an
 * endpoint or card URL over its cap, or a server.json over its cap, is dropped and makes the
 * listing `invalid` with the reason (a tombstone only loses the field). Idempotent.
 */
export function finalizeDraft(d: ListingDraft): ListingDraft {
  const L = SOURCE_LIMITS;
  const short = (v: string | null) => (v === null ? null : capText(v, L.shortFieldMaxChars));
  const out: ListingDraft = {
    ...d,
    name: capText(d.name, L.nameMaxChars),
    description: capText(d.description, L.descriptionMaxChars),
    version: d.version === null ? null : capText(d.version, L.versionMaxChars),
    endpointTransport: short(d.endpointTransport),
    updatedAt: short(d.updatedAt),
    invalidReason: d.invalidReason === null ? null : capText(d.invalidReason, L.reasonMaxChars),
  };
  const problems: string[] = [];
  let idDropped = false;
  if (out.itemId.length > L.itemIdMaxChars) {
    problems.push(`item id is ${out.itemId.length} characters long, over the ${L.itemIdMaxChars}-character cap`);
    out.itemId = `invalid:${hashOf(out.itemId)}`;
    idDropped = true;
  }
  for (const field of ['endpointUrl', 'cardUrl'] as const) {
    const url = out[field];
    if (url !== null && url.length > L.urlMaxChars) {
      problems.push(`${field} is ${url.length} characters long, over the ${L.urlMaxChars}-character cap`);
      out[field] = null;
    }
  }
  if (out.serverJson !== null) {
    const bytes = Buffer.byteLength(out.serverJson);
    if (bytes > L.serverJsonMaxBytes) {
      problems.push(`server.json is ${bytes} bytes, over the ${L.serverJsonMaxBytes}-byte cap`);
      out.serverJson = null;
    }
  }
  if (problems.length === 0 || (out.status === 'deleted' && !idDropped)) return out;
  const reason = problems.join('; ');
  return {
    ...out,
    status: 'invalid',
    invalidReason: capText(out.status === 'invalid' && out.invalidReason ? `${out.invalidReason}; ${reason}` : reason, L.reasonMaxChars),
  };
}

/** `isObject` for parsers: a plain JSON object. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A short stable id for an item that has none of its own (FNV-1a of its raw text). */
export function hashOf(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** A string field, trimmed, or null. */
export function str(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
}

/**
 * An absolute http(s) URL given by an item that can be requested as it is, or null: no `{…}`
 * template left in it (braces are not URL characters, RFC 3986), at most SOURCE_LIMITS.urlMaxChars.
 * Every URL a source lists (endpoints, card URLs, MCP remotes) passes here.
 */
export function httpUrl(v: unknown): string | null {
  const s = str(v);
  if (!s || s.length > SOURCE_LIMITS.urlMaxChars || /[{}]/.test(s)) return null;
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:' ? s : null;
  } catch {
    return null;
  }
}
