import type { Command } from 'commander';
import { loadConfig, UsageError } from '../../config.js';
import type { ConsumerRunner } from '../../kafka/consumer-runner.js';
import { createLogger } from '../../log.js';
import { createProcessors, PROCESSOR_NAMES } from '../../processors/index.js';
import { openKafka, type KafkaRuntime } from '../../runtime/kafka.js';
import { defaultSigner } from '../../runtime/platform.js';
import { openWarehouse } from '../../warehouse/open.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { addConfigOptions, closeAll, onShutdown, overridesFrom, whenAborted } from '../options.js';

/** `veronikai process <name|all>`: stream processors as a role of their own. */
export function registerProcessCommand(program: Command): void {
  const cmd = program
    .command('process')
    .description(`run stream processors until stopped: ${PROCESSOR_NAMES.join(', ')} or all`)
    .argument('<name>', 'processor name or "all"');
  addConfigOptions(cmd).action(async (name: string, opts: Record<string, unknown>) => {
    if (name !== 'all' && !PROCESSOR_NAMES.includes(name)) {
      throw new UsageError(`unknown processor "${name}" (known: ${PROCESSOR_NAMES.join(', ')}, all)`);
    }
    const config = loadConfig(overridesFrom(opts));
    const log = createLogger('veronikai-process');
    const shutdown = onShutdown();
    let warehouse: Warehouse | null = null;
    let rt: KafkaRuntime | null = null;
    const runners: ConsumerRunner<unknown>[] = [];
    try {
      warehouse = await openWarehouse(config.warehouse);
      rt = await openKafka(config, log, { clientId: 'veronikai-process' });
      const created = createProcessors({ kafka: rt.kafka, warehouse, topics: rt.topics, logger: log, sign: defaultSigner(config), optOutFile: config.optOutFile ?? null }, name === 'all' ? undefined : [name]);
      for (const r of created) {
        runners.push(r);
        await r.start();
      }
      process.stdout.write(`processing: ${runners.map((r) => r.groupId).join(', ')}\n`);
      // A runner that stops on a failure rejects here: the error reaches main, which exits non-zero.
      await Promise.race([whenAborted(shutdown.signal), ...runners.map((r) => r.done)]);
    } finally {
      shutdown.dispose();
      await closeAll(log, [...runners.map((r) => () => r.stop()), () => rt?.broker?.stop(), () => warehouse?.close()]);
    }
  });
}
