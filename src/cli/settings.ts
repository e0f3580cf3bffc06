import { Option, type Command } from 'commander';
import { loadConfig, SETTINGS, type Config, type ConfigOverrides, type SettingKey, type SettingSpec } from '../config.js';
import { createLogger, type Logger } from '../log.js';
import { ensurePrivateDir } from '../util/private-dir.js';

/** The settings every role that touches Kafka and the warehouse takes. */
export const PLATFORM_SETTINGS = [
  'dataDir',
  'cacheDir',
  'brokers',
  'kafkaSessionTimeout',
  'kafkaHeartbeatInterval',
  'kafkaReplicationFactor',
  'kafkaMinInsyncReplicas',
  'warehouse',
  'clickhouseDatabase',
  'clickhouseUser',
  'clickhouseCluster',
  'contact',
  'logLevel',
] as const satisfies readonly SettingKey[];
/** The warehouse alone (migrate, sql). */
export const WAREHOUSE_SETTINGS = [
  'dataDir',
  'warehouse',
  'clickhouseDatabase',
  'clickhouseUser',
  'clickhouseCluster',
  'logLevel',
] as const satisfies readonly SettingKey[];
export const API_SETTINGS = ['host', 'port', 'publicUrl'] as const satisfies readonly SettingKey[];
export const SOURCE_SETTINGS = [
  'sourceUrl',
  'disableSource',
  'termsForbid',
  'maxPages',
  'pageDelay',
  'optOutFile',
] as const satisfies readonly SettingKey[];
export const SCHEDULE_SETTINGS = [
  'budget',
  'sampleSize',
  'optOutFile',
  'canaryUrl',
  'signingKeyFile',
] as const satisfies readonly SettingKey[];

const repeatable = (v: string, prev: string[] = []) => [...prev, v];

/** Adds the flags of these settings (each declared once, in config.ts) to a command. */
export function addSettings(cmd: Command, ...groups: ReadonlyArray<readonly SettingKey[]>): Command {
  const seen = new Set(cmd.options.map((o) => o.attributeName()));
  for (const key of groups.flat()) {
    const spec: SettingSpec = SETTINGS[key];
    if (!spec.flag || seen.has(key)) continue;
    seen.add(key);
    const help = `${spec.help} (${spec.env === undefined ? 'command line only' : `env ${spec.env}`}${spec.default === undefined ? '' : `; default ${spec.default}`})`;
    const option = new Option(spec.flag, help);
    cmd.addOption(spec.list ? option.argParser(repeatable) : option);
  }
  return cmd;
}

/** The setting flags a command was given, for loadConfig. */
export function overridesFrom(opts: Record<string, unknown>): ConfigOverrides {
  const out: Record<string, string | string[]> = {};
  for (const key of Object.keys(SETTINGS) as SettingKey[]) {
    const v = opts[key];
    if (typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string'))) out[key] = v as string | string[];
  }
  return out as ConfigOverrides;
}

/**
 * When a command keeps state in the data directory under a configuration: the embedded warehouse,
 * the local broker (no --brokers), or always (watermarks, the signing key). A command with a
 * ClickHouse server and external brokers then does not create a directory it never uses.
 */
export type DataDirUse = (config: Config) => boolean;
export const DATA_DIR_ALWAYS: DataDirUse = () => true;
export const DATA_DIR_EMBEDDED_WAREHOUSE: DataDirUse = (c) => c.warehouse.kind === 'embedded';
export const DATA_DIR_LOCAL_BROKER: DataDirUse = (c) => c.kafkaBrokers.length === 0;
export const DATA_DIR_LOCAL_STATE: DataDirUse = (c) => DATA_DIR_EMBEDDED_WAREHOUSE(c) || DATA_DIR_LOCAL_BROKER(c);

/**
 * The configuration from a command's flags (over the environment), and a logger at its level.
 * A command that keeps state in the data directory names when (`dataDir`): the directory is then
 * created, or tightened, owner-only here, before anything in the command opens it.
 */
export function configured(opts: Record<string, unknown>, name: string, dataDir?: DataDirUse): { config: Config; log: Logger } {
  const config = loadConfig(overridesFrom(opts));
  const log = createLogger(name, { level: config.logLevel });
  if (dataDir?.(config)) ensurePrivateDir(config.dataDir, log);
  return { config, log };
}
