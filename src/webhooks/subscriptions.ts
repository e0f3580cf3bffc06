/**
 * The webhook subscriptions file (VERONIKAI_WEBHOOKS_FILE):
 *
 *   {"subscriptions": [{"id": "ops", "url": "https://hooks.example.com/veronikai", "secret": "…",
 *                       "kinds": ["down", "up"], "agents": ["<agent id or agent URL>"]}]}
 *
 * `kinds` (optional: every kind) and `agents` (optional: every agent; an agent's 16-hex id or
 * any spelling of its URL) filter what a subscription hears. The file is validated whole at
 * start (ajv, then what a schema cannot say: unique ids, usable URLs, known agents' spellings);
 * a bad file is one error naming the entry and the problem. The secret never appears in a
 * message: ajv reports where and what, never the value.
 */
import { openSync, closeSync, readSync, fstatSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import type { AgentChangeEvent, AgentChangeKind } from '../events/types.js';
import { agentKey, normalizeUrl } from '../identity/agent-key.js';
import { MAX_URL_CHARS } from '../http/limits.js';
import { parseProbeUrl } from '../http/ssrf-guard.js';
import { MAX_AGENT_FILTERS, MAX_SUBSCRIPTIONS, SECRET_MAX_CHARS, SECRET_MIN_CHARS, WEBHOOKS_FILE_MAX_BYTES } from './limits.js';

export const CHANGE_KINDS: readonly AgentChangeKind[] = ['down', 'up', 'verdict', 'listed', 'delisted', 'corrected'];

export interface Subscription {
  id: string;
  url: string;
  /** Never logged, never recorded: it only keys the HMAC. */
  secret: string;
  /** null: every kind. */
  kinds: ReadonlySet<AgentChangeKind> | null;
  /** null: every agent; otherwise agent ids and agent keys (normalized URLs). */
  agents: { ids: ReadonlySet<string>; keys: ReadonlySet<string> } | null;
}

/** A subscriptions file that cannot be used; the message names the file, the entry and the problem. */
export class WebhooksFileError extends Error {
  override name = 'WebhooksFileError';
}

const SUBSCRIPTION_ID = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
const AGENT_ID = /^[0-9a-f]{16}$/;

const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['subscriptions'],
  properties: {
    subscriptions: {
      type: 'array',
      maxItems: MAX_SUBSCRIPTIONS,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'url', 'secret'],
        properties: {
          id: { type: 'string', pattern: SUBSCRIPTION_ID },
          url: { type: 'string', minLength: 1, maxLength: MAX_URL_CHARS },
          secret: { type: 'string', minLength: SECRET_MIN_CHARS, maxLength: SECRET_MAX_CHARS },
          kinds: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...CHANGE_KINDS] } },
          agents: {
            type: 'array',
            minItems: 1,
            maxItems: MAX_AGENT_FILTERS,
            items: { type: 'string', minLength: 1, maxLength: MAX_URL_CHARS },
          },
        },
      },
    },
  },
} as const;

/** The file as the schema admits it. */
interface RawFile {
  subscriptions: Array<{ id: string; url: string; secret: string; kinds?: AgentChangeKind[]; agents?: string[] }>;
}

/** `/subscriptions/0/secret` → `subscriptions[0].secret`, with the entry's id when it has one. */
function where(err: ErrorObject, json: unknown): string {
  const parts = err.instancePath.split('/').slice(1);
  let path = '';
  for (const p of parts) path += /^\d+$/.test(p) ? `[${p}]` : path === '' ? p : `.${p}`;
  const index = parts[0] === 'subscriptions' && parts[1] !== undefined ? Number(parts[1]) : null;
  const entry = index === null ? null : (json as { subscriptions?: unknown[] }).subscriptions?.[index];
  const id = entry && typeof entry === 'object' && typeof (entry as { id?: unknown }).id === 'string' ? (entry as { id: string }).id : null;
  return `${path || 'the file'}${id !== null && /^[\w.-]{1,64}$/.test(id) ? ` (subscription "${id}")` : ''}`;
}

function explain(err: ErrorObject): string {
  const p = err.params as Record<string, unknown>;
  if (err.keyword === 'additionalProperties') return `has an unknown key ${JSON.stringify(p.additionalProperty)}`;
  if (err.keyword === 'required') return `lacks the required key ${JSON.stringify(p.missingProperty)}`;
  if (err.keyword === 'enum') return `must be one of ${(p.allowedValues as string[]).join(', ')}`;
  if (err.keyword === 'pattern') return 'must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit';
  if (err.keyword === 'minLength' && err.instancePath.endsWith('/secret')) return `must be at least ${SECRET_MIN_CHARS} characters long`;
  return err.message ?? 'is invalid';
}

/** The keys one agent URL can stand for: the URL normalized, and the A2A key of a card URL. */
function keysOfUrl(url: string): string[] {
  const keys = new Set<string>();
  const n = normalizeUrl(url);
  if (n) keys.add(n);
  const a2a = agentKey('a2a', { cardUrl: url });
  if (a2a) keys.add(a2a);
  return [...keys];
}

/** Validates the parsed JSON of a subscriptions file; throws a WebhooksFileError naming the problem. */
export function parseSubscriptions(json: unknown, source = 'webhooks file'): Subscription[] {
  // Compiled per call: a validator keeps its last errors on itself, and a file is read once a start.
  const validate = new Ajv({ allErrors: false, strict: true }).compile<RawFile>(SCHEMA);
  if (!validate(json)) {
    const err = validate.errors![0]!;
    throw new WebhooksFileError(`${source}: ${where(err, json)} ${explain(err)}`);
  }
  const seen = new Set<string>();
  return json.subscriptions.map((s, i) => {
    const at = `${source}: subscriptions[${i}] (subscription "${s.id}")`;
    if (seen.has(s.id))
      throw new WebhooksFileError(`${at}: the id is used twice; each subscription needs its own (it keys the delivery ids)`);
    seen.add(s.id);
    const url = parseProbeUrl(s.url);
    // The URL itself is not repeated: a receiver's URL often carries its own token.
    if (!url.ok)
      throw new WebhooksFileError(
        `${at}.url is not usable: ${url.message.startsWith('not an absolute URL') ? 'not an absolute http(s) URL' : url.message}`,
      );
    let agents: Subscription['agents'] = null;
    if (s.agents) {
      const ids = new Set<string>();
      const keys = new Set<string>();
      s.agents.forEach((a, j) => {
        const text = a.trim();
        if (AGENT_ID.test(text)) ids.add(text);
        else {
          const k = keysOfUrl(text);
          if (k.length === 0)
            throw new WebhooksFileError(
              `${at}.agents[${j}] "${text.slice(0, 200)}" is neither an agent id (16 hex digits) nor an http(s) agent URL`,
            );
          for (const key of k) keys.add(key);
        }
      });
      agents = { ids, keys };
    }
    return { id: s.id, url: url.url.href, secret: s.secret, kinds: s.kinds ? new Set(s.kinds) : null, agents };
  });
}

/** Reads (at most WEBHOOKS_FILE_MAX_BYTES) and validates a subscriptions file. */
export function loadSubscriptionsFile(path: string): Subscription[] {
  let text: string;
  let fd: number | null = null;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    if (size > WEBHOOKS_FILE_MAX_BYTES)
      throw new WebhooksFileError(`webhooks file ${path} is ${size} bytes, over the ${WEBHOOKS_FILE_MAX_BYTES}-byte limit`);
    const buf = Buffer.alloc(Math.min(size, WEBHOOKS_FILE_MAX_BYTES));
    const n = readSync(fd, buf, 0, buf.length, 0);
    text = buf.subarray(0, n).toString('utf8');
  } catch (err) {
    if (err instanceof WebhooksFileError) throw err;
    throw new WebhooksFileError(`webhooks file ${path} cannot be read: ${(err as Error).message}`);
  } finally {
    if (fd !== null) closeSync(fd);
  }
  // A BOM is not JSON (RFC 8259 §8.1 lets a parser ignore it); editors on some systems add one.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    // JSON.parse quotes the text near the error, which may be a secret: keep only where it is.
    const pos = /position (\d+)/.exec((err as Error).message)?.[1];
    throw new WebhooksFileError(`webhooks file ${path} is not JSON${pos ? ` (at character ${pos})` : ''}`);
  }
  return parseSubscriptions(json, `webhooks file ${path}`);
}

/** Whether a subscription hears about this change (its kinds and agents filters). */
export function subscriptionMatches(sub: Subscription, change: AgentChangeEvent): boolean {
  if (sub.kinds && !sub.kinds.has(change.kind)) return false;
  if (sub.agents && !sub.agents.ids.has(change.agentId) && !sub.agents.keys.has(change.agentKey)) return false;
  return true;
}
