import type { Command } from 'commander';
import { startPlatform } from '../../runtime/platform.js';
import { untilStopped } from '../../runtime/roles.js';
import { onShutdown } from '../../runtime/shutdown.js';
import { say } from '../format.js';
import { addSettings, API_SETTINGS, configured, DATA_DIR_EMBEDDED_WAREHOUSE, WAREHOUSE_SETTINGS } from '../settings.js';

/** `veronikai api`: the read API as a role of its own; it reads ClickHouse only. */
export function registerApiCommand(program: Command): void {
  const cmd = program
    .command('api')
    .description('serve the read API (/agents, /agents/:id, /stats/*, /healthz) and the dashboard (/) from ClickHouse');
  addSettings(cmd, WAREHOUSE_SETTINGS, API_SETTINGS, [
    'clickhouseHost',
    'clickhousePort',
    'clickhouseHttpUser',
    'clickhouseHttpHosts',
  ]).action(async (opts: Record<string, unknown>) => {
    const { config, log } = configured(opts, 'veronikai-api', DATA_DIR_EMBEDDED_WAREHOUSE);
    const shutdown = onShutdown();
    const platform = await startPlatform(config, { log, migrate: false, kafka: false, processors: false, probes: false });
    try {
      say(`VeronikAI API listening on ${platform.apiUrl}`);
      if (platform.clickhouseUrl) say(`ClickHouse HTTP interface (read-only) on ${platform.clickhouseUrl}`);
      if (platform.clickhouseLogin) say(`ClickHouse HTTP interface login: ${platform.clickhouseLogin}`);
      await untilStopped(platform, shutdown.signal);
    } finally {
      shutdown.dispose();
      await platform.close();
    }
  });
}
