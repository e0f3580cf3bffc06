import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import ms from 'ms';
import { loadOptOutFile } from './identity/opt-out.js';
import { MAX_TIMER_MS } from './util/time.js';

/** A configuration or command-line mistake: reported in one line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Every listing source this build can read, by its configuration name. */
export const SOURCE_NAMES = ['mcp-registry', 'a2a-registry', 'a2aregistry-org', 'hf-spaces', 'neuronto', 'smithery'] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

/**
 * Every setting, declared once: its flag, its environment variable and its help. Commands pick
 * the settings they take (`cli/settings.ts` turns them into flags); `loadConfig` reads each from
 * its flag, else its variable, else its default, and validates it once, so a bad value stops the
 * process at start with a message that names the setting.
 */
export const SETTINGS = {
  dataDir: {
    flag: '--data-dir <dir>',
    env: 'VERONIKAI_DATA_DIR',
    help: 'where local state lives (embedded warehouse, broker storage, watermarks, signing key)',
    default: '.veronikai',
  },
  cacheDir: {
    flag: '--cache-dir <dir>',
    env: 'VERONIKAI_CACHE_DIR',
    help: 'where the Maven-resolved broker jars are cached',
    default: '~/.cache/veronikai',
  },
  brokers: {
    flag: '--brokers <list>',
    env: 'VERONIKAI_KAFKA_BROKERS',
    help: 'Kafka bootstrap servers host:port[,…]; none starts the local broker',
  },
  kafkaSessionTimeout: {
    flag: '--kafka-session-timeout <duration>',
    env: 'VERONIKAI_KAFKA_SESSION_TIMEOUT',
    help: 'how long a consumer group waits for a silent member (a crashed process) before its partitions go to another; members heartbeat all through long work, so this stays short',
    default: '30s',
  },
  kafkaHeartbeatInterval: {
    flag: '--kafka-heartbeat-interval <duration>',
    env: 'VERONIKAI_KAFKA_HEARTBEAT_INTERVAL',
    help: 'how often a consumer tells its group it is alive (at most a third of the session timeout)',
    default: '3s',
  },
  kafkaReplicationFactor: {
    flag: '--kafka-replication-factor <n>',
    env: 'VERONIKAI_KAFKA_REPLICATION_FACTOR',
    help: 'replicas of each new topic (default: 3, or the number of brokers when fewer)',
  },
  kafkaMinInsyncReplicas: {
    flag: '--kafka-min-insync-replicas <n>',
    env: 'VERONIKAI_KAFKA_MIN_INSYNC_REPLICAS',
    help: "replicas that must have a write before it is acknowledged (the topics' min.insync.replicas; default: 2, or the number of brokers when fewer)",
  },
  warehouse: {
    flag: '--warehouse <where>',
    env: 'VERONIKAI_WAREHOUSE',
    help: '"embedded" (chdb in the data dir) or a ClickHouse HTTP URL (no credentials in it)',
    default: 'embedded',
  },
  clickhouseDatabase: {
    flag: '--clickhouse-database <name>',
    env: 'VERONIKAI_CLICKHOUSE_DATABASE',
    help: 'database on a ClickHouse server',
    default: 'veronikai',
  },
  clickhouseCluster: {
    flag: '--clickhouse-cluster <name>',
    env: 'VERONIKAI_CLICKHOUSE_CLUSTER',
    help: 'a ClickHouse cluster (as named in its remote_servers) the migrations are rendered for: ON CLUSTER, replicated tables, a Distributed table per sharded table; unset: one server',
  },
  clickhouseUser: { flag: '--clickhouse-user <name>', env: 'VERONIKAI_CLICKHOUSE_USER', help: 'user on a ClickHouse server' },
  // No flag: a password on a command line is visible to every user of the machine.
  clickhousePassword: { env: 'VERONIKAI_CLICKHOUSE_PASSWORD', help: 'password on a ClickHouse server' },
  host: { flag: '--host <host>', env: 'VERONIKAI_HOST', help: 'API listen address', default: '127.0.0.1' },
  port: { flag: '--port <port>', env: 'VERONIKAI_PORT', help: 'API port; 0 picks a free one', default: '8787' },
  publicUrl: {
    flag: '--public-url <url>',
    env: 'VERONIKAI_PUBLIC_URL',
    help: "the API's public base URL (e.g. https://index.example) for absolute links (feeds, agent pages, webhooks); unset: each request's protocol and Host, and feeds are not cacheable by shared caches",
  },
  clickhouseHost: {
    flag: '--clickhouse-host <host>',
    env: 'VERONIKAI_CLICKHOUSE_HOST',
    help: 'listen address of the read-only ClickHouse HTTP interface',
    default: '127.0.0.1',
  },
  clickhousePort: {
    flag: '--clickhouse-port <port>',
    env: 'VERONIKAI_CLICKHOUSE_PORT',
    help: 'serve a read-only ClickHouse HTTP interface over the embedded warehouse on this port (off when unset; 0 picks a free one)',
  },
  clickhouseHttpUser: {
    flag: '--clickhouse-http-user <name>',
    env: 'VERONIKAI_CLICKHOUSE_HTTP_USER',
    help: 'user the ClickHouse HTTP interface asks for',
    default: 'default',
  },
  // No flag: a password on a command line is visible to every user of the machine.
  clickhouseHttpPassword: {
    env: 'VERONIKAI_CLICKHOUSE_HTTP_PASSWORD',
    help: 'password the ClickHouse HTTP interface asks for; unset: generated once and kept in clickhouse-http-password (0600) in the data dir',
  },
  clickhouseHttpHosts: {
    flag: '--clickhouse-http-host <name>',
    env: 'VERONIKAI_CLICKHOUSE_HTTP_HOSTS',
    help: 'a name clients reach the ClickHouse HTTP interface by, besides its listen address and localhost; requests for other Host names are refused (repeatable)',
    list: true,
  },
  contact: {
    flag: '--contact <email>',
    env: 'VERONIKAI_CONTACT',
    help: "contact address carried in the crawler's User-Agent",
    default: 'crawler@veronikai.invalid',
  },
  sourceUrl: {
    flag: '--source-url <name=url>',
    env: 'VERONIKAI_SOURCE_URLS',
    help: "a listing source's base URL (repeatable)",
    list: true,
  },
  disableSource: { flag: '--disable-source <name>', env: 'VERONIKAI_SOURCES_DISABLED', help: 'turn a source off (repeatable)', list: true },
  termsForbid: {
    flag: '--terms-forbid <name>',
    env: 'VERONIKAI_SOURCES_TERMS_FORBID',
    help: 'a source whose terms forbid crawling: skipped and recorded (repeatable)',
    list: true,
  },
  maxPages: {
    flag: '--max-pages <name=n>',
    env: 'VERONIKAI_SOURCE_MAX_PAGES',
    help: 'list pages per run for a source; name "*" sets every source, n "*" lifts the limit (repeatable)',
    list: true,
  },
  pageDelay: {
    flag: '--page-delay <name=duration>',
    env: 'VERONIKAI_SOURCE_PAGE_DELAY',
    help: 'least delay between requests to a source, e.g. neuronto=1s (repeatable)',
    list: true,
  },
  optOutFile: {
    flag: '--opt-out-file <path>',
    env: 'VERONIKAI_OPT_OUT_FILE',
    help: "owners' opt-outs: a JSON list of {match, mode: unchecked | hidden, reason}",
  },
  webhooksFile: {
    flag: '--webhooks-file <path>',
    env: 'VERONIKAI_WEBHOOKS_FILE',
    help: 'webhook subscriptions: JSON {"subscriptions":[{id, url, secret, kinds?, agents?}]}; agent changes are POSTed to them (off when unset)',
  },
  webhooksMaxAge: {
    flag: '--webhooks-max-age <duration>',
    env: 'VERONIKAI_WEBHOOKS_MAX_AGE',
    help: 'changes observed longer ago than this are not delivered (recorded as stale), so a replay never pages anyone',
    default: '24h',
  },
  sqlTimeout: {
    flag: '--sql-timeout <duration>',
    env: 'VERONIKAI_SQL_TIMEOUT',
    help: 'deadline of one `sql` read: the engine stops the query then (its max_execution_time, whole seconds)',
    default: '5m',
  },
  budget: { flag: '--budget <n>', env: 'VERONIKAI_DAILY_BUDGET', help: 'probes per daily run', default: '10000' },
  probeConcurrency: {
    flag: '--probe-concurrency <n>',
    env: 'VERONIKAI_PROBE_CONCURRENCY',
    help: "probes a probe worker holds at once, sent or waiting for a slot, shared by the request partitions it works on; the politeness limits (2 per host, 6 per site, pacing) decide what is sent, so this only bounds the worker's memory",
    default: '256',
  },
  sampleSize: { flag: '--sample-size <n>', env: 'VERONIKAI_SAMPLE_SIZE', help: 'uniform random sample per run', default: '1000' },
  canaryUrl: {
    flag: '--canary-url <url>',
    env: 'VERONIKAI_CANARY_URLS',
    help: "known-good canary target (repeatable); default the listing sources' origins; set the variable empty to turn the canary off",
    list: true,
  },
  signingKey: { env: 'VERONIKAI_SIGNING_KEY', help: 'Ed25519 private key (PEM) that signs verdicts' },
  signingKeyFile: {
    flag: '--signing-key-file <path>',
    env: 'VERONIKAI_SIGNING_KEY_FILE',
    help: 'file holding the Ed25519 private key (PEM); default generated in the data dir',
  },
  signingKeyAllowOpen: {
    env: 'VERONIKAI_SIGNING_KEY_ALLOW_OPEN',
    help: 'set to 1 to use a signing key file that group or others can read or write (refused otherwise: chmod 600 it)',
  },
  logLevel: {
    flag: '--log-level <level>',
    env: 'LOG_LEVEL',
    help: 'pino log level (trace, debug, info, warn, error, fatal, silent); default info, warn on a terminal',
  },
  // No variable: a deployment's environment must never loosen the address guard, only a command line.
  allowLoopback: {
    flag: '--allow-loopback',
    help: 'testing only: let probes reach 127.0.0.0/8 and ::1 (every request this command makes to an agent); no other address the SSRF guard refuses is ever reached',
  },
} as const satisfies Record<string, SettingSpec>;

export interface SettingSpec {
  /** The command-line flag, when the setting has one. */
  readonly flag?: string;
  /** The environment variable; absent: the command line only. */
  readonly env?: string;
  readonly help: string;
  readonly default?: string;
  /** Repeatable flag; comma-separated in the variable. */
  readonly list?: boolean;
}

export type SettingKey = keyof typeof SETTINGS;

/** Flag values as commander parsed them (strings, or string lists for repeatable flags). */
export type ConfigOverrides = { [K in SettingKey]?: (typeof SETTINGS)[K] extends { list: true } ? string[] : string | number };

export type WarehouseConfig =
  { kind: 'embedded'; path: string } | { kind: 'server'; url: string; database: string; username?: string; password?: string };

/** Per-source switches, page budgets and pacing (absent: every source on, its own defaults). */
export interface SourceSettings {
  disabled: string[];
  termsForbidden: string[];
  /** List pages per run by source; key "*" for every source; Infinity for no limit. */
  maxPages: Record<string, number>;
  /** Least delay between two requests by source, ms; key "*" for every source. */
  pageDelayMs: Record<string, number>;
}

export interface Config {
  dataDir: string;
  cacheDir: string;
  /** Kafka bootstrap servers; empty means "start the local broker". */
  kafkaBrokers: string[];
  /**
   * Consumer sessions and heartbeats of every group; replicas and min.insync.replicas of new
   * topics (null: min(3, brokers) and min(2, brokers)).
   */
  kafka: { sessionTimeoutMs: number; heartbeatIntervalMs: number; replicationFactor: number | null; minInsyncReplicas: number | null };
  warehouse: WarehouseConfig;
  /** The ClickHouse cluster the migrations are rendered for (null: one server). */
  clickhouseCluster: string | null;
  apiHost: string;
  apiPort: number;
  /** The API's public base URL without a trailing slash; null: each request's own. */
  publicUrl: string | null;
  /**
   * The read-only ClickHouse HTTP interface over the embedded warehouse; port null: off (only the
   * private one for `sql`). Its user and password (null: the data dir's generated one), and the
   * names besides its listen address and localhost that requests may carry in Host.
   */
  clickhouseInterface: { host: string; port: number | null; user: string; password: string | null; allowedHosts: string[] };
  contact: string;
  /** Per-source base URL overrides, e.g. mcp-registry=http://127.0.0.1:8080. */
  sourceUrls: Record<string, string>;
  sources: SourceSettings;
  optOutFile: string | null;
  /** Webhook subscriptions file (null: no deliveries) and the age past which a change is not delivered. */
  webhooks: { file: string | null; maxAgeMs: number };
  /** Deadline of one `sql` read, ms (at least a second: the engine counts whole seconds). */
  sqlTimeoutMs: number;
  budget: number;
  /** Probes a probe worker holds at once (absent: the default of SETTINGS.probeConcurrency). */
  probeConcurrency?: number;
  sampleSize: number;
  /** Canary targets; null: the origins of the listing sources (the runtime fills them in). */
  canaryUrls: string[] | null;
  signingKey: { pem: string | null; file: string | null; allowOpen: boolean };
  /** null: info, or warn on a terminal (the logger decides). */
  logLevel: string | null;
}

/** Reads one setting: the flag, else the variable, else the default. */
function raw(key: SettingKey, flags: ConfigOverrides, env: NodeJS.ProcessEnv): string | undefined {
  const v = flags[key];
  if (v !== undefined && !Array.isArray(v)) return String(v);
  const spec: SettingSpec = SETTINGS[key];
  return (spec.env === undefined ? undefined : env[spec.env]) ?? spec.default;
}

/** A repeatable setting: the variable's comma-separated entries, then the flags. */
function rawList(key: SettingKey, flags: ConfigOverrides, env: NodeJS.ProcessEnv): string[] {
  const v = flags[key];
  const spec: SettingSpec = SETTINGS[key];
  return [...listOf(spec.env === undefined ? undefined : env[spec.env]), ...(Array.isArray(v) ? v : [])];
}

const listOf = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** How a setting is named in messages: its variable and its flag. */
export function settingName(key: SettingKey): string {
  const spec: SettingSpec = SETTINGS[key];
  return [spec.env, spec.flag?.split(' ')[0]].filter(Boolean).join(' / ');
}

export function parsePort(value: string | number, setting: string): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535 || String(value).trim() === '') {
    throw new UsageError(`${setting} must be a port number between 0 and 65535, got "${value}"`);
  }
  return n;
}

/** An absolute http(s) URL without credentials: a secret in a URL ends up in logs and events. */
export function parseHttpUrl(value: string, setting: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${setting} must be an absolute http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${setting} must use http or https, got "${url.protocol}"`);
  }
  if (url.username || url.password) {
    throw new UsageError(`${setting} must not carry credentials in the URL (user:password@…); the address is logged and recorded`);
  }
  return url;
}

/** A base URL links are built under: http(s), no credentials, no query or fragment (a path prefix is fine); no trailing slash. */
export function parsePublicUrl(value: string, setting: string): string {
  const url = parseHttpUrl(value, setting);
  if (/[?#]/.test(value)) throw new UsageError(`${setting} must be a base URL without a query or fragment, got "${value}"`);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** A bare host name or IP address (no scheme, port or path), as a Host header names it. */
export function parseHostName(value: string, setting: string): string {
  const v = value.trim().toLowerCase();
  if (/^[a-z0-9._-]+$/.test(v) || /^(\[[0-9a-f:.]+\]|[0-9a-f.]*:[0-9a-f:.]*)$/.test(v)) return v;
  throw new UsageError(`${setting} must be a host name or IP address (no scheme, port or path), got "${value}"`);
}

/**
 * One duration parser for every setting and flag: "250ms", "2s", "15m", "24h", "7d" (a bare
 * number is milliseconds). Timers cannot hold more than about 24.8 days.
 */
export function parseDuration(value: string, setting: string, bounds: { min?: number; max?: number } = {}): number {
  const min = bounds.min ?? 1;
  const max = Math.min(bounds.max ?? MAX_TIMER_MS, MAX_TIMER_MS);
  const text = value.trim();
  // A unit is required (but for 0): a bare number would read as milliseconds to some and seconds to others.
  const n = /^(0|\d+(\.\d+)?\s*(ms|s|m|h|d))$/i.test(text) ? ms(text as ms.StringValue) : undefined;
  if (n === undefined || !Number.isFinite(n)) {
    throw new UsageError(`${setting} expects a duration such as 250ms, 30s, 15m, 24h or 7d, got "${value}"`);
  }
  if (n < min || n > max) throw new UsageError(`${setting} must be between ${ms(min)} and ${ms(max, { long: false })}, got "${value}"`);
  return Math.round(n);
}

/** A whole number ≥ `min`. */
export function parseCount(value: string | number, setting: string, min = 0): number {
  const n = Number(value);
  if (!/^\d+$/.test(String(value).trim()) || !Number.isSafeInteger(n) || n < min) {
    throw new UsageError(`${setting} must be a whole number ≥ ${min}, got "${value}"`);
  }
  return n;
}

/** Refuses a source name this build does not know (a typo must not silently crawl). */
export function checkSourceName(name: string, setting: string, allowAll = false): string {
  if ((allowAll && name === '*') || (SOURCE_NAMES as readonly string[]).includes(name)) return name;
  throw new UsageError(`${setting}: unknown source "${name}" (known: ${SOURCE_NAMES.join(', ')})`);
}

/** Parses `NAME=VALUE` pairs into a map, each name checked and each value through `parse`. */
function parsePairs<T>(
  pairs: readonly string[],
  setting: string,
  parse: (v: string, where: string) => T,
  allowAll = true,
): Record<string, T> {
  const out: Record<string, T> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`${setting} expects NAME=VALUE, got "${pair}"`);
    const name = checkSourceName(pair.slice(0, eq).trim(), setting, allowAll);
    out[name] = parse(pair.slice(eq + 1).trim(), `${setting} ${name}`);
  }
  return out;
}

function parsePageCount(v: string, where: string): number {
  if (v === '*') return Number.POSITIVE_INFINITY;
  return parseCount(v, `${where} (pages, or "*" for no limit)`, 1);
}

/** Per-source switches, page budgets and pacing from the environment and flags (flags win). */
export function parseSourceSettings(flags: ConfigOverrides = {}, env: NodeJS.ProcessEnv = process.env): SourceSettings {
  const names = (key: 'disableSource' | 'termsForbid') => [
    ...new Set(rawList(key, flags, env).map((n) => checkSourceName(n, settingName(key)))),
  ];
  return {
    disabled: names('disableSource'),
    termsForbidden: names('termsForbid'),
    maxPages: parsePairs(rawList('maxPages', flags, env), `page budget (${settingName('maxPages')})`, parsePageCount),
    pageDelayMs: parsePairs(rawList('pageDelay', flags, env), `page delay (${settingName('pageDelay')})`, (v, where) =>
      parseDuration(v, where, { min: 0 }),
    ),
  };
}

/** A yes/no setting: 1/true/yes or 0/false/no (unset: no). */
function parseFlag(value: string | undefined, setting: string): boolean {
  const v = (value ?? '').trim().toLowerCase();
  if (['1', 'true', 'yes'].includes(v)) return true;
  if (['', '0', 'false', 'no'].includes(v)) return false;
  throw new UsageError(`${setting} must be 1 or 0, got "${value}"`);
}

/**
 * The longest webhook age limit (a week): the deliveries table, which says what was already
 * delivered, keeps its rows 90 days (clickhouse/0028), far longer than a change stays deliverable.
 */
const WEBHOOKS_MAX_AGE_LIMIT_MS = 7 * 24 * 3600 * 1000;

/** The broker's default bounds on a group member's session (group.min/max.session.timeout.ms). */
const KAFKA_SESSION_MIN_MS = 6_000;
const KAFKA_SESSION_MAX_MS = 30 * 60_000;

const CONTACT_RE = /^[^\s@<>()]+@[^\s@<>()]+\.[^\s@<>()]+$/;
const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path;
}

export function loadConfig(flags: ConfigOverrides = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const get = (key: SettingKey) => raw(key, flags, env);
  const dataDir = resolve(expandHome(get('dataDir')!));
  const cacheDir = resolve(expandHome(get('cacheDir')!));

  const kafkaBrokers = listOf(get('brokers'));
  for (const b of kafkaBrokers) {
    if (!/^[^:\s]+:\d{1,5}$/.test(b)) throw new UsageError(`Kafka broker (${settingName('brokers')}) must be host:port, got "${b}"`);
  }

  const sessionTimeoutMs = parseDuration(get('kafkaSessionTimeout')!, `Kafka session timeout (${settingName('kafkaSessionTimeout')})`, {
    min: KAFKA_SESSION_MIN_MS,
    max: KAFKA_SESSION_MAX_MS,
  });
  const heartbeatIntervalMs = parseDuration(
    get('kafkaHeartbeatInterval')!,
    `Kafka heartbeat interval (${settingName('kafkaHeartbeatInterval')})`,
    { min: 100, max: Math.floor(sessionTimeoutMs / 3) },
  );
  const countOrNull = (key: 'kafkaReplicationFactor' | 'kafkaMinInsyncReplicas', what: string): number | null => {
    const v = get(key)?.trim();
    return v ? parseCount(v, `${what} (${settingName(key)})`, 1) : null;
  };
  const kafka = {
    sessionTimeoutMs,
    heartbeatIntervalMs,
    replicationFactor: countOrNull('kafkaReplicationFactor', 'Kafka replication factor'),
    minInsyncReplicas: countOrNull('kafkaMinInsyncReplicas', 'Kafka min.insync.replicas'),
  };
  if (kafka.replicationFactor !== null && kafka.minInsyncReplicas !== null && kafka.minInsyncReplicas > kafka.replicationFactor) {
    throw new UsageError(
      `${settingName('kafkaMinInsyncReplicas')} (${kafka.minInsyncReplicas}) cannot exceed ${settingName('kafkaReplicationFactor')} (${kafka.replicationFactor}): no write could ever be acknowledged`,
    );
  }

  const warehouseRaw = get('warehouse')!;
  let warehouse: WarehouseConfig;
  if (warehouseRaw === 'embedded') {
    warehouse = { kind: 'embedded', path: join(dataDir, 'warehouse') };
  } else {
    const url = parseHttpUrl(
      warehouseRaw,
      `warehouse (${settingName('warehouse')}; credentials go in ${SETTINGS.clickhouseUser.env} and ${SETTINGS.clickhousePassword.env})`,
    );
    const username = get('clickhouseUser');
    const password = get('clickhousePassword');
    warehouse = {
      kind: 'server',
      url: url.origin,
      database: get('clickhouseDatabase')!,
      ...(username ? { username } : {}),
      ...(password ? { password } : {}),
    };
  }

  const clusterRaw = get('clickhouseCluster')?.trim() || null;
  if (clusterRaw !== null && !/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(clusterRaw)) {
    throw new UsageError(
      `ClickHouse cluster (${settingName('clickhouseCluster')}) must be a name of letters, digits and _, got "${clusterRaw}"`,
    );
  }
  if (clusterRaw !== null && warehouse.kind === 'embedded') {
    throw new UsageError(
      `${settingName('clickhouseCluster')} needs a ClickHouse server (${settingName('warehouse')}); the embedded warehouse is one process`,
    );
  }

  const apiPort = parsePort(get('port')!, `port (${settingName('port')})`);
  const apiHost = get('host')!;
  const publicUrlRaw = get('publicUrl')?.trim();
  const publicUrl = publicUrlRaw ? parsePublicUrl(publicUrlRaw, `public URL (${settingName('publicUrl')})`) : null;
  const clickhousePortRaw = get('clickhousePort');
  const clickhouseInterface = {
    host: get('clickhouseHost')!,
    port:
      clickhousePortRaw === undefined || clickhousePortRaw === ''
        ? null
        : parsePort(clickhousePortRaw, `ClickHouse interface port (${settingName('clickhousePort')})`),
    user: get('clickhouseHttpUser')!.trim(),
    password: get('clickhouseHttpPassword') || null,
    allowedHosts: listOf(rawList('clickhouseHttpHosts', flags, env).join(',')).map((h) =>
      parseHostName(h, `ClickHouse interface host name (${settingName('clickhouseHttpHosts')})`),
    ),
  };
  // A user name with a colon cannot be sent in Basic auth.
  if (!/^[A-Za-z0-9_.@-]{1,64}$/.test(clickhouseInterface.user)) {
    throw new UsageError(
      `ClickHouse interface user (${settingName('clickhouseHttpUser')}) must be 1 to 64 letters, digits or _ . @ -, got "${clickhouseInterface.user}"`,
    );
  }
  if (clickhouseInterface.port !== null && warehouse.kind !== 'embedded') {
    throw new UsageError(
      `${settingName('clickhousePort')} serves the embedded warehouse; a ClickHouse server (${settingName('warehouse')}) already has its own HTTP interface`,
    );
  }

  const contact = get('contact')!;
  if (!CONTACT_RE.test(contact)) throw new UsageError(`contact (${settingName('contact')}) must be an e-mail address, got "${contact}"`);

  const sourceUrls: Record<string, string> = {};
  for (const [name, value] of Object.entries(
    parsePairs(rawList('sourceUrl', flags, env), `source URL (${settingName('sourceUrl')})`, (v, where) => parseHttpUrl(v, where), false),
  )) {
    sourceUrls[name] = value.toString().replace(/\/$/, '');
  }

  const optOutRaw = get('optOutFile');
  const optOutFile = optOutRaw ? resolve(optOutRaw) : null;
  if (optOutFile) {
    try {
      loadOptOutFile(optOutFile);
    } catch (err) {
      throw new UsageError(`opt-out file (${settingName('optOutFile')}): ${(err as Error).message}`);
    }
  }

  // Set but empty turns the canary off; unset means the default targets.
  const canaryFlag = flags.canaryUrl;
  const canarySet = canaryFlag !== undefined || env[SETTINGS.canaryUrl.env] !== undefined;
  const canaryUrls = canarySet
    ? rawList('canaryUrl', flags, env).map((u) => parseHttpUrl(u, `canary target (${settingName('canaryUrl')})`).href)
    : null;

  const logLevel = get('logLevel') ?? null;
  if (logLevel !== null && !LOG_LEVELS.includes(logLevel))
    throw new UsageError(`log level (${settingName('logLevel')}) must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);

  return {
    dataDir,
    cacheDir,
    kafkaBrokers,
    kafka,
    warehouse,
    clickhouseCluster: clusterRaw,
    apiHost,
    apiPort,
    publicUrl,
    clickhouseInterface,
    contact,
    sourceUrls,
    sources: parseSourceSettings(flags, env),
    optOutFile,
    webhooks: {
      file: get('webhooksFile')?.trim() ? resolve(get('webhooksFile')!.trim()) : null,
      maxAgeMs: parseDuration(get('webhooksMaxAge')!, `webhook age limit (${settingName('webhooksMaxAge')})`, {
        min: 60_000,
        max: WEBHOOKS_MAX_AGE_LIMIT_MS,
      }),
    },
    sqlTimeoutMs: parseDuration(get('sqlTimeout')!, `sql deadline (${settingName('sqlTimeout')})`, { min: 1000 }),
    budget: parseCount(get('budget')!, `daily budget (${settingName('budget')})`),
    probeConcurrency: parseCount(get('probeConcurrency')!, `probe concurrency (${settingName('probeConcurrency')})`, 1),
    sampleSize: parseCount(get('sampleSize')!, `sample size (${settingName('sampleSize')})`),
    canaryUrls,
    signingKey: {
      pem: get('signingKey')?.trim() || null,
      file: get('signingKeyFile')?.trim() || null,
      allowOpen: parseFlag(get('signingKeyAllowOpen'), settingName('signingKeyAllowOpen')),
    },
    logLevel,
  };
}
