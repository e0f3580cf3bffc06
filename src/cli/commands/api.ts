import type { Command } from 'commander';
import { buildApi } from '../../api/server.js';
import { loadConfig } from '../../config.js';
import { createLogger } from '../../log.js';
import { openWarehouse } from '../../warehouse/open.js';
import { addConfigOptions, closeAll, overridesFrom, untilSignal } from '../options.js';

/** `veronikai api`: the read API as a role of its own; it reads ClickHouse only. */
export function registerApiCommand(program: Command): void {
  const cmd = program.command('api').description('serve the read API (/agents, /agents/:id, /stats/*, /healthz) and the dashboard (/) from ClickHouse');
  addConfigOptions(cmd, { api: true }).action(async (opts: Record<string, unknown>) => {
    const config = loadConfig(overridesFrom(opts));
    const log = createLogger('veronikai-api');
    const warehouse = await openWarehouse(config.warehouse);
    let app: ReturnType<typeof buildApi> | null = null;
    try {
      app = buildApi({ warehouse, logger: log });
      const url = await app.listen({ host: config.apiHost, port: config.apiPort });
      process.stdout.write(`VeronikAI API listening on ${url}\n`);
      await untilSignal();
    } finally {
      await closeAll(log, [() => app?.close(), () => warehouse.close()]);
    }
  });
}
