/**
 * The rules of a robots.txt (RFC 9309 §2.2) read once and matched in bounded time.
 *
 * The line grammar and the answers are robots-parser 3.0.1's, which this replaces (a test holds
 * the two to the same answers on random files): `#` starts a comment, a line is `name: value`
 * split at its first colon, names are case-insensitive, consecutive `User-agent` lines share one
 * group, and any other line ends the run of them; a group exists once a rule (allow, disallow,
 * even empty, or crawl-delay) is given to it. Patterns and paths are compared with their
 * percent-escapes in upper case and non-ASCII characters escaped.
 *
 * Matching (§2.2.2, §2.2.3): `*` matches any run of characters, a final `$` ends the path, the
 * longest pattern wins and Allow wins a tie. robots-parser matches each rule in time
 * proportional to its length × the path's for every `*`, so a file of 35,000 short wildcard rules
 * took seconds per check, blocking the event loop. Here a pattern is split at its wildcards when
 * the file is read, and the pieces are found left to right with `indexOf` (the leftmost place of
 * each piece is the best one), so a rule costs about one pass over the path; the rules are sorted
 * by precedence, so the first that matches decides.
 *
 * Even so a check is a pass over the path per wildcard rule, and the 500 KiB we read (§2.5:
 * crawlers MUST parse at least 500 KiB) hold some 40,000 of them, which against an 8 KiB URL took
 * seconds again. So one check scans at most `maxScanChars` path characters; past that the URL is
 * disallowed. The whole file is read, only the time spent honouring it is bounded, and the
 * answer when it runs out is the safe one: not to crawl (§2.5 lets a crawler bound what it
 * processes to protect itself; refusing is always within what a file asks).
 */

interface RobotsLine {
  /** Lower-case name before the first colon, trimmed. */
  name: string;
  /** The value after it, trimmed (comments removed). */
  value: string;
  /** 1-based line number. */
  line: number;
}

/** The `name: value` lines of a robots.txt, as robots-parser reads them (lines without a colon or a name are left out). */
function* robotsLines(text: string): Generator<RobotsLine> {
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const hash = raw.indexOf('#');
    const line = hash > -1 ? raw.slice(0, hash) : raw;
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (name === '') continue;
    yield { name, value: line.slice(colon + 1).trim(), line: i + 1 };
  }
}

/** Mirrors robots-parser's formatUserAgent: lower case, `/version` removed, trimmed. */
function formatUserAgent(ua: string): string {
  let s = ua.toLowerCase();
  const i = s.indexOf('/');
  if (i > -1) s = s.slice(0, i);
  return s.trim();
}

/** Percent-escapes in upper case (`%2a` → `%2A`), so escapes compare alike. */
function upperEscapes(path: string): string {
  return path.replace(/%[0-9a-fA-F]{2}/g, (m) => m.toUpperCase());
}

/** A rule's pattern as robots-parser normalises it: non-ASCII escaped, existing escapes kept, in upper case. */
function normalisePattern(pattern: string): string {
  try {
    return upperEscapes(encodeURI(pattern).replace(/%25/g, '%'));
  } catch {
    // A lone surrogate cannot be escaped: the pattern is kept as written.
    return pattern;
  }
}

/** One Allow or Disallow rule, split at its wildcards. */
interface Rule {
  allow: boolean;
  line: number;
  /** The normalised pattern's length: the more specific rule is the longer one (§2.2.2). */
  length: number;
  /** Text before the first `*` (the whole pattern when there is none, without a final `$`). */
  head: string;
  /** Non-empty texts after each run of `*`, in order; null: no wildcard. */
  pieces: string[] | null;
  /** The pattern ends in `$`: the path must end where the pattern does. */
  anchored: boolean;
}

function compileRule(pattern: string, allow: boolean, line: number): Rule {
  const normalised = normalisePattern(pattern);
  const anchored = normalised.endsWith('$');
  const body = anchored ? normalised.slice(0, -1) : normalised;
  const star = body.indexOf('*');
  if (star < 0) return { allow, line, length: normalised.length, head: body, pieces: null, anchored };
  const pieces = body.slice(star + 1).split(/\*+/);
  // A trailing `*` leaves an empty last piece: kept, so an anchored pattern may end anywhere.
  const last = pieces.pop()!;
  return { allow, line, length: normalised.length, head: body.slice(0, star), pieces: [...pieces.filter((p) => p !== ''), last], anchored };
}

/** Characters a check may still scan (see ReadRobotsOptions.maxScanChars). */
interface Budget {
  left: number;
}

/** Whether `rule` matches `path`; null when the budget ran out before it could tell. */
function ruleMatches(rule: Rule, path: string, budget: Budget): boolean | null {
  if (!path.startsWith(rule.head)) return false;
  if (rule.pieces === null) return !rule.anchored || path.length === rule.head.length;
  let pos = rule.head.length;
  // The pieces are sought left to right, so the rule scans the rest of the path at most once.
  budget.left -= path.length - pos;
  if (budget.left < 0) return null;
  const last = rule.pieces.length - 1;
  for (let i = 0; i < last; i++) {
    const at = path.indexOf(rule.pieces[i]!, pos);
    if (at < 0) return false;
    pos = at + rule.pieces[i]!.length;
  }
  const tail = rule.pieces[last]!;
  if (rule.anchored) return path.length - tail.length >= pos && path.endsWith(tail);
  return path.indexOf(tail, pos) >= 0;
}

/** Precedence: longer pattern first, then Allow, then the earlier line (robots-parser's choice among matches). */
function byPrecedence(a: Rule, b: Rule): number {
  return b.length - a.length || Number(b.allow) - Number(a.allow) || a.line - b.line;
}

export interface RobotsDecisionOfUrl {
  allowed: boolean;
  /** Line of the rule that decided, or null when none matched (or the check ran out of budget). */
  line: number | null;
  /** Why the URL is disallowed without a rule (the check ran out of budget), else null. */
  reason: string | null;
}

export interface RobotsRules {
  /** The group we honour: the first of our user agents that has one, else `*`. */
  readonly group: string;
  /** Every user agent that owns a group. */
  readonly groups: ReadonlySet<string>;
  /** The decision for a URL of this robots.txt's origin; any other URL is refused (line null). */
  decide(url: string): RobotsDecisionOfUrl;
}

export interface ReadRobotsOptions {
  /** Our product tokens, most specific first; `*` is the last resort. */
  userAgents: readonly string[];
  /**
   * Path characters one check may scan for wildcard rules (each such rule whose text before its
   * first `*` matches scans the rest of the path once); past it the URL is disallowed.
   */
  maxScanChars: number;
}

function parseUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** The origin parts robots-parser compares (a default port reads as none). */
const originKey = (u: URL): string => `${u.protocol}//${u.hostname}:${u.port}`;

/**
 * The user agents that own a group, and the rules of those `keep` accepts (the others need
 * only be known to exist), in file order.
 */
function readGroups(text: string, keep: (ua: string) => boolean): { groups: Set<string>; rulesOf: Map<string, Rule[]> } {
  const groups = new Set<string>();
  const rulesOf = new Map<string, Rule[]>();
  const current: string[] = [];
  let afterRule = true;
  for (const { name, value, line } of robotsLines(text)) {
    if (name === 'user-agent') {
      if (afterRule) current.length = 0;
      if (value) current.push(formatUserAgent(value));
    } else if (name === 'allow' || name === 'disallow' || name === 'crawl-delay') {
      for (const ua of current) groups.add(ua);
      const targets = name === 'crawl-delay' || !value ? [] : [...new Set(current)].filter(keep);
      if (targets.length > 0) {
        const rule = compileRule(value, name === 'allow', line);
        for (const ua of targets) {
          const list = rulesOf.get(ua);
          if (list) list.push(rule);
          else rulesOf.set(ua, [rule]);
        }
      }
    }
    afterRule = name !== 'user-agent';
  }
  return { groups, rulesOf };
}

/** The user agents that own a group in `text`: a group is created by any allow, disallow or crawl-delay line. */
export function declaredGroups(text: string): Set<string> {
  return readGroups(text, () => false).groups;
}

/** The group we honour: the first of `userAgents` that has a group, else `*`. */
export function chooseGroup(groups: ReadonlySet<string>, userAgents: readonly string[]): string {
  return userAgents.map(formatUserAgent).find((ua) => groups.has(ua)) ?? '*';
}

/** Reads a robots.txt (of `robotsUrl`'s origin) for the group we honour. */
export function readRobotsRules(robotsUrl: string, text: string, opts: ReadRobotsOptions): RobotsRules {
  const ours = new Set([...opts.userAgents.map(formatUserAgent), '*']);
  const { groups, rulesOf } = readGroups(text, (ua) => ours.has(ua));
  const group = chooseGroup(groups, opts.userAgents);
  const rules = [...(rulesOf.get(group) ?? [])].sort(byPrecedence);
  const robots = parseUrl(robotsUrl);
  const origin = robots && originKey(robots);
  return {
    group,
    groups,
    decide(url) {
      const u = parseUrl(url);
      // Not this robots.txt's origin: never expected, refused to be safe.
      if (u === null || origin === null || originKey(u) !== origin) return { allowed: false, line: null, reason: null };
      const path = upperEscapes(u.pathname + u.search);
      const budget = { left: opts.maxScanChars };
      for (const rule of rules) {
        const matched = ruleMatches(rule, path, budget);
        if (matched === null) {
          const reason = `robots.txt has too many wildcard rules for group "${group}" to judge this path within ${opts.maxScanChars} characters scanned: disallowed`;
          return { allowed: false, line: null, reason };
        }
        if (matched) return { allowed: rule.allow, line: rule.line, reason: null };
      }
      return { allowed: true, line: null, reason: null };
    },
  };
}
