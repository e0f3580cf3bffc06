import type { Command } from 'commander';
import { loadConfig, UsageError } from '../../config.js';
import { createLogger } from '../../log.js';
import { createProcessors, PROCESSOR_NAMES } from '../../processors/index.js';
import { openKafka } from '../../runtime/kafka.js';
import { defaultSigner } from '../../runtime/platform.js';
import { openWarehouse } from '../../warehouse/open.js';
import { addConfigOptions, overridesFrom, untilSignal } from '../options.js';

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
    const warehouse = await openWarehouse(config.warehouse);
    const rt = await openKafka(config, log, { clientId: 'veronikai-process' });
    const runners = createProcessors({ kafka: rt.kafka, warehouse, topics: rt.topics, logger: log, sign: defaultSigner(config) }, name === 'all' ? undefined : [name]);
    for (const r of runners) await r.start();
    process.stdout.write(`processing: ${runners.map((r) => r.groupId).join(', ')}\n`);
    await Promise.race([untilSignal(), ...runners.map((r) => r.done)]);
    for (const r of runners) await r.stop();
    await rt.broker?.stop();
    await warehouse.close();
  });
}
