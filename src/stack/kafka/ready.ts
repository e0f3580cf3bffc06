/** Waiting for a starting broker: first its port accepts connections, then it answers Kafka requests. */
import { createKafka } from '../../kafka/client.js';
import { silentLogger } from '../../log.js';
import { pollUntil, PollTimeoutError } from '../../util/poll.js';
import { canConnect } from './ports.js';

/** `exited` answers whether the broker is gone (or throws to stop waiting); either ends the wait with an error. */
export async function waitReady(brokers: string, timeoutMs: number, exited: () => unknown): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const [host, portText] = brokers.split(':') as [string, string];
  // Both steps share the one deadline; each says on timeout which step it was waiting for.
  const step = async (look: () => Promise<boolean>, intervalMs: number, timeoutMessage: string): Promise<void> => {
    try {
      await pollUntil(brokers, async () => ((await look()) ? { done: true, value: undefined } : { done: false, why: 'not yet' }), {
        timeoutMs: deadline - Date.now(),
        intervalMs,
      });
    } catch (err) {
      if (err instanceof PollTimeoutError) throw new Error(timeoutMessage, { cause: err });
      throw err;
    }
  };
  await step(
    async () => {
      if (await canConnect(host, Number(portText), 500)) return true;
      if (exited()) throw new Error('exited');
      return false;
    },
    100,
    `no answer on ${brokers} after ${timeoutMs} ms`,
  );
  const kafka = createKafka({ brokers, clientId: 'veronikai-stack', logger: silentLogger, retry: { retries: 0 } });
  await step(
    async () => {
      if (exited()) throw new Error('exited');
      return answersKafka(kafka);
    },
    200,
    `${brokers} accepts connections but does not answer Kafka requests after ${timeoutMs} ms`,
  );
}

/** The cluster has a broker and a controller; false on any error (not yet). */
async function answersKafka(kafka: ReturnType<typeof createKafka>): Promise<boolean> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    return cluster.brokers.length > 0 && cluster.controller !== null && cluster.controller >= 0;
  } catch {
    return false; // not yet
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
