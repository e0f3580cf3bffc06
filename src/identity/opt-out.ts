import { readFileSync, statSync } from 'node:fs';
import { getPublicSuffix } from 'tldts';
import { silentLogger, type Logger } from '../log.js';
import { agentKey, hostKey, normalizeUrl } from './agent-key.js';

/**
 * Owners' opt-outs: an owner asks that their agent be left unchecked, or hidden.
 * The dedupe processor marks agents with them and the scheduler applies them directly, so one
 * module serves both, below either role.
 */
export type OptOutMode = 'unchecked' | 'hidden';

export interface OptOutRule {
  /** An agent key (any spelling of its URL) or `host:<hostname>` (`host:*.example.com` for subdomains). */
  match: string;
  mode: OptOutMode;
  reason: string;
}

const ENTRY_KEYS = ['match', 'mode', 'reason'];

/**
 * A `host:*.<domain>` wildcard whose domain is itself a public suffix (`*.com`, `*.co.uk`,
 * `*.github.io`) would opt out every owner under it; none of them can ask that for the others.
 */
function wholeSuffix(domain: string): boolean {
  return getPublicSuffix(domain, { allowPrivateDomains: true }) === domain;
}

/** Validates an opt-out list (the JSON of VERONIKAI_OPT_OUT_FILE); throws an Error naming the bad entry. */
export function parseOptOutList(json: unknown, where = 'opt-out list'): OptOutRule[] {
  if (!Array.isArray(json)) throw new Error(`${where} must be a JSON array of {match, mode, reason}`);
  return json.map((e, i) => {
    const at = `${where}[${i}]`;
    if (typeof e !== 'object' || e === null || Array.isArray(e)) throw new Error(`${at} must be an object`);
    // A misspelt key ("mdoe", "reasons") would otherwise be dropped without a word.
    const unknown = Object.keys(e).find((k) => !ENTRY_KEYS.includes(k));
    if (unknown !== undefined) throw new Error(`${at} has an unknown key ${JSON.stringify(unknown)} (allowed: ${ENTRY_KEYS.join(', ')})`);
    const { match, mode, reason } = e as Record<string, unknown>;
    if (typeof match !== 'string' || match.trim() === '') throw new Error(`${at}.match must be an agent key or "host:<hostname>"`);
    if (mode !== 'unchecked' && mode !== 'hidden') throw new Error(`${at}.mode must be "unchecked" or "hidden"`);
    if (reason !== undefined && typeof reason !== 'string') throw new Error(`${at}.reason must be a string`);
    const m = match.trim();
    if (/^host:/i.test(m)) {
      if (!/^host:(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*\.?$/i.test(m)) throw new Error(`${at}.match "${m}" is not host:<hostname>`);
      const domain = m.slice(5).startsWith('*.') ? hostKey(m.slice(7)) : null;
      if (domain !== null && wholeSuffix(domain)) {
        throw new Error(
          `${at}.match "${m}" covers the whole public suffix "${domain}": name the owner's own domain (e.g. host:*.example.${domain})`,
        );
      }
    } else if (!normalizeUrl(m)) {
      throw new Error(`${at}.match "${m}" is neither an http(s) agent key nor host:<hostname>`);
    }
    return { match: m, mode, reason: typeof reason === 'string' ? reason : '' };
  });
}

export function loadOptOutFile(path: string): OptOutRule[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`opt-out file ${path} cannot be read: ${(err as Error).message}`, { cause: err });
  }
  // A BOM is not JSON (RFC 8259 §8.1 lets a parser ignore it); editors on some systems add one.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`opt-out file ${path} is not JSON: ${(err as Error).message}`, { cause: err });
  }
  return parseOptOutList(json, `opt-out file ${path}`);
}

const hostOf = (u: string): string | null => {
  try {
    return hostKey(new URL(u).hostname);
  } catch {
    return null;
  }
};

/** An opt-out list, ready to match agents. 'hidden' wins over 'unchecked' when several rules match. */
export class OptOutList {
  private readonly keys = new Map<string, OptOutRule[]>();
  private readonly hosts = new Map<string, OptOutRule[]>();
  private readonly suffixes: Array<[string, OptOutRule]> = [];

  constructor(readonly rules: readonly OptOutRule[] = []) {
    const add = (map: Map<string, OptOutRule[]>, k: string, r: OptOutRule) => map.set(k, [...(map.get(k) ?? []), r]);
    for (const r of rules) {
      if (/^host:/i.test(r.match)) {
        const h = r.match.slice(5).toLowerCase().startsWith('*.') ? `*.${hostKey(r.match.slice(7))}` : hostKey(r.match.slice(5));
        if (h.startsWith('*.')) this.suffixes.push([h.slice(1), r]);
        else add(this.hosts, h, r);
      } else {
        for (const k of new Set([normalizeUrl(r.match), agentKey('a2a', { cardUrl: r.match })])) if (k) add(this.keys, k, r);
      }
    }
  }

  get size(): number {
    return this.rules.length;
  }

  /** The opt-out that applies to an agent (by its key, or the host of its key, endpoint or card URL). */
  lookup(agent: { agent_key: string; endpoint_url?: string; card_url?: string }): { mode: OptOutMode; reason: string } | null {
    const hits: OptOutRule[] = [...(this.keys.get(agent.agent_key) ?? [])];
    const hosts = new Set([agent.agent_key, agent.endpoint_url ?? '', agent.card_url ?? ''].filter(Boolean).map(hostOf));
    for (const h of hosts) {
      if (!h) continue;
      hits.push(...(this.hosts.get(h) ?? []));
      for (const [suffix, r] of this.suffixes) if (h.endsWith(suffix)) hits.push(r);
    }
    if (hits.length === 0) return null;
    const hit = hits.find((r) => r.mode === 'hidden') ?? hits[0]!;
    return { mode: hit.mode, reason: hit.reason };
  }
}

/** Where the processor gets its opt-outs: a fixed list, or a file re-read when it changes. */
export interface OptOutProvider {
  current(): OptOutList;
}

export function fixedOptOuts(rules: readonly OptOutRule[]): OptOutProvider {
  const list = new OptOutList(rules);
  return { current: () => list };
}

/**
 * The opt-out file, re-read whenever its modification time changes, so an owner's request
 * applies from the next batch without a restart. A file that turns bad keeps the last good
 * list in force (and says so in the log); a file that is bad at start is an error.
 */
export function optOutFile(path: string, log: Logger = silentLogger): OptOutProvider {
  let list = new OptOutList(loadOptOutFile(path));
  let stamp = statSync(path).mtimeMs;
  return {
    current() {
      try {
        const m = statSync(path).mtimeMs;
        if (m !== stamp) {
          stamp = m;
          list = new OptOutList(loadOptOutFile(path));
          log.info({ path, rules: list.size }, 'opt-out list reloaded');
        }
      } catch (err) {
        log.error({ err, path }, 'opt-out file unreadable; the last good list stays in force');
      }
      return list;
    },
  };
}

/** What names the opt-outs: a provider, a fixed list, or the path of the opt-out file. */
export type OptOutSource = OptOutProvider | readonly OptOutRule[] | string | null;

/** The opt-out provider an option names (none: nobody opted out). */
export function optOutProvider(opt: OptOutSource | undefined, log: Logger = silentLogger): OptOutProvider {
  if (typeof opt === 'string') return optOutFile(opt, log);
  if (Array.isArray(opt)) return fixedOptOuts(opt);
  if (opt && typeof (opt as OptOutProvider).current === 'function') return opt as OptOutProvider;
  return fixedOptOuts([]);
}
