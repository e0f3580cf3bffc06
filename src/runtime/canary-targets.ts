import type { Config } from '../config.js';
import { canaryTargetsFromEnv } from '../producers/canary.js';
import { SOURCE_FACTORIES } from '../producers/sources/index.js';

/**
 * The canary's known-good targets: VERONIKAI_CANARY_URLS when it is set (even empty, which
 * turns the canary off), else the origins of the listing sources this deployment reads.
 * Those are large public services; when none of them answers, the failure is ours, so
 * probe failures meanwhile are recorded as our-side (judged unknown), never as down.
 */
export function canaryTargetsFor(config: Config, env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.VERONIKAI_CANARY_URLS !== undefined) return canaryTargetsFromEnv(env);
  const origins = new Set<string>();
  for (const [name, make] of Object.entries(SOURCE_FACTORIES)) {
    const base = config.sourceUrls[name] ?? make().defaultBaseUrl;
    try {
      origins.add(`${new URL(base).origin}/`);
    } catch {
      // configured URLs were validated at start; a default is always valid
    }
  }
  return [...origins];
}
