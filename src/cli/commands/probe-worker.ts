import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { createEventProducer, type EventProducer } from '../../kafka/producer.js';
import { createLogger } from '../../log.js';
import { Canary } from '../../producers/canary.js';
import { canaryTargetsFor } from '../../runtime/canary-targets.js';
import { ProbeEngine } from '../../producers/probe/probe-agent.js';
import { canaryEventSink, ProbeWorker } from '../../producers/probe-worker.js';
import { openKafka, type KafkaRuntime } from '../../runtime/kafka.js';
import { addConfigOptions, closeAll, onShutdown, overridesFrom, whenAborted } from '../options.js';

/** `veronikai probe-worker`: probe workers as a role of their own (probe-requests → probes). */
export function registerProbeWorkerCommand(program: Command): void {
  const cmd = program.command('probe-worker').description('consume probe requests and emit probe events until stopped');
  addConfigOptions(cmd).action(async (opts: Record<string, unknown>) => {
    const config = loadConfig(overridesFrom(opts));
    const log = createLogger('veronikai-probe-worker');
    const shutdown = onShutdown();
    let rt: KafkaRuntime | null = null;
    let producer: EventProducer | null = null;
    let worker: ProbeWorker | null = null;
    try {
      rt = await openKafka(config, log, { clientId: 'veronikai-probe-worker' });
      producer = await createEventProducer(rt.kafka, { logger: log });
      const canary = new Canary({ targets: canaryTargetsFor(config), contact: config.contact, onEvent: canaryEventSink(producer, rt.topics), logger: log });
      worker = new ProbeWorker({ kafka: rt.kafka, topics: rt.topics, engine: new ProbeEngine({ contact: config.contact, canary, logger: log }), producer, logger: log });
      await worker.start();
      process.stdout.write('probe worker running\n');
      // A worker that stops on a failure rejects here: the error reaches main, which exits non-zero.
      await Promise.race([whenAborted(shutdown.signal), worker.done]);
    } finally {
      shutdown.dispose();
      await closeAll(log, [() => worker?.stop(), () => producer?.close(), () => rt?.broker?.stop()]);
    }
  });
}
