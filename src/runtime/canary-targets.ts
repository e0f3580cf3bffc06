import type { Config } from '../config.js';
import { SOURCE_FACTORIES } from '../producers/sources/index.js';

/**
 * The canary's known-good targets: the configured ones when set (even empty, which turns the
 * canary off), else the origins of the listing sources this deployment reads. Those are large
 * public services; when none of them answers, the failure is ours, so probe failures meanwhile
 * are recorded as our-side (judged unknown), never as down.
 */
export function canaryTargetsFor(config: Config): string[] {
  if (config.canaryUrls !== null) return [...config.canaryUrls];
  const origins = new Set<string>();
  for (const [name, make] of Object.entries(SOURCE_FACTORIES)) {
    origins.add(`${new URL(config.sourceUrls[name] ?? make().defaultBaseUrl).origin}/`);
  }
  return [...origins];
}
