/**
 * The webhook deliverer: a consumer group over `agent-changes` that POSTs each change to the
 * subscriptions that want it (subscriptions.ts, deliver.ts) and records every final outcome as a
 * WebhookDelivery event on `webhook-deliveries` (written to `webhook_deliveries` by its processor).
 *
 * Per change (the handler; heartbeats come between changes, so the session outlasts the longest
 * change's deliveries, see limits.ts):
 *   1. the subscriptions whose kinds and agents match;
 *   2. those this process already settled are skipped (an outcome not yet produced is handed on
 *      again); for the rest the deliveries table says which already have an outcome (skipped) and
 *      whether the agent is hidden (recorded `hidden`, not sent);
 *   3. a change observed longer ago than the age limit is recorded `stale`, not sent (a replay
 *      after a checker bump re-derives old changes under new ids: it must not page anyone);
 *   4. the others are delivered, the subscriptions of one change at the same time.
 * The sink then produces a dead letter (the change as consumed, the reason in the runner's
 * dead-letter headers, plus the subscription and delivery id) for each dead or refused delivery,
 * then the outcomes; only then does the runner commit. So: a change is delivered at least once
 * per subscription, and the delivery id (a function of subscription and change) lets a receiver
 * drop the rare repeat (a crash after a delivery but before its outcome reached the table).
 *
 * A failed read of the deliveries table is not a dead letter: the sink tries the change again
 * (the runner retries a failing sink with backoff, then stops uncommitted for the supervisor). A
 * shutdown stops the waits between attempts; a change interrupted that way is not recorded and
 * its batch is not committed, so the next start delivers it.
 *
 * While a subscription's last delivery went dead, each further change gets one attempt, so one
 * receiver that is down does not hold every other subscriber's changes back a minute each.
 */
import type { Kafka } from 'kafkajs';
import { eventCodec, type EventCodec } from '../events/codec.js';
import type { AgentChangeEvent, WebhookDeliveryEvent } from '../events/types.js';
import {
  ConsumerRunner,
  DLQ_HEADERS,
  dlq,
  ok,
  type ConsumedMessage,
  type ConsumerRunnerHooks,
  type SinkItem,
  type StepResult,
} from '../kafka/consumer-runner.js';
import { decodeStep } from '../kafka/decode-step.js';
import type { EventProducer, OutgoingMessage } from '../kafka/producer.js';
import { silentLogger, type Logger } from '../log.js';
import { TOPICS, type TopicNames } from '../topics.js';
import { retry } from '../util/retry.js';
import type { ReadOnlyWarehouse } from '../warehouse/warehouse.js';
import type { AddressPolicy } from '../http/types.js';
import { chunkMessages } from '../kafka/producer.js';
import { DEFAULT_TUNING, deliver, deliveryBody, webhookUserAgent, type DeliveryTuning } from './deliver.js';
import { webhookDeliveryContext } from './delivery-context.js';
import { CONTEXT_READ_ATTEMPTS, CONTEXT_READ_BASE_MS, SETTLED_MEMORY_MAX, worstCaseDeliveryMs } from './limits.js';
import { deliveryId } from './signature.js';
import { subscriptionMatches, type Subscription } from './subscriptions.js';

export const WEBHOOK_DELIVERER_GROUP = 'veronikai-webhook-deliverer';

/** Dead-letter headers a webhook dead letter adds to the runner's (DLQ_HEADERS). */
export const WEBHOOK_DLQ_HEADERS = { subscription: 'webhook-subscription', delivery: 'webhook-delivery' } as const;

export interface WebhookDelivererOptions extends AddressPolicy {
  kafka: Kafka;
  topics: TopicNames;
  /** Reads the deliveries table and the agents' opt-outs. */
  warehouse: ReadOnlyWarehouse;
  subscriptions: readonly Subscription[];
  /** Contact address in the User-Agent. */
  contact: string;
  /** Changes observed longer ago are recorded stale, not sent. */
  maxAgeMs: number;
  /** Where the agent pages are served, for the body's agent.url (omitted when null). */
  publicBaseUrl?: string | null;
  producer: EventProducer;
  groupId?: string;
  logger?: Logger;
  /** Attempts, backoff and limits (tests shorten them). */
  tuning?: Partial<DeliveryTuning>;
  /** Random source in [0, 1) for the backoff jitter (tests). */
  random?: () => number;
  /** Default: long enough for one change's worst case (limits.ts). */
  sessionTimeoutMs?: number;
  maxWaitTimeInMs?: number;
  hooks?: ConsumerRunnerHooks;
  codec?: EventCodec;
  /** The clock the age limit reads (tests). */
  now?: () => number;
}

/** What the handler hands the sink for one change. */
export interface ChangeWork {
  change: AgentChangeEvent;
  /** Final outcomes not yet produced. */
  records: WebhookDeliveryEvent[];
  /** A delivery was cut short by a shutdown: the batch must not commit. */
  interrupted: boolean;
  /** The deliveries table could not be read: the change is tried again. */
  error: unknown;
}

const pairKey = (subscriptionId: string, changeId: string) => `${subscriptionId}\n${changeId}`;
const UNDELIVERED = new Set<WebhookDeliveryEvent['status']>(['dead', 'refused']);

export class WebhookDeliverer {
  readonly runner: ConsumerRunner<ChangeWork>;
  private readonly opts: WebhookDelivererOptions;
  private readonly logger: Logger;
  private readonly tuning: DeliveryTuning;
  private readonly userAgent: string;
  private readonly codec: EventCodec;
  private readonly now: () => number;
  /** Settled pairs of this process, oldest first; `produced` once the outcome is on the topic. */
  private readonly settled = new Map<string, { record: WebhookDeliveryEvent; produced: boolean }>();
  /** Subscriptions whose last delivery went dead. */
  private readonly failing = new Set<string>();
  private readonly stopping = new AbortController();

  constructor(opts: WebhookDelivererOptions) {
    this.opts = opts;
    this.logger = (opts.logger ?? silentLogger).child({ component: 'webhooks' });
    this.tuning = { ...DEFAULT_TUNING, ...opts.tuning };
    this.userAgent = webhookUserAgent(opts.contact);
    this.codec = opts.codec ?? eventCodec();
    this.now = opts.now ?? Date.now;
    const decode = decodeStep('AgentChange');
    // Heartbeats come between changes: one change's deliveries (all subscriptions at once) must fit in a session.
    const session = opts.sessionTimeoutMs ?? Math.max(60_000, worstCaseDeliveryMs(this.tuning) + 30_000);
    this.runner = new ConsumerRunner<ChangeWork>({
      kafka: opts.kafka,
      groupId: opts.groupId ?? WEBHOOK_DELIVERER_GROUP,
      topics: [opts.topics.agentChanges],
      deadLetterTopic: opts.topics.deadLetters,
      producer: opts.producer,
      logger: opts.logger,
      fromBeginning: true,
      sessionTimeoutMs: session,
      rebalanceTimeoutMs: Math.max(60_000, session),
      partitionsConsumedConcurrently: TOPICS.agentChanges.partitions,
      maxBytesPerPartition: 64 * 1024,
      ...(opts.maxWaitTimeInMs !== undefined ? { maxWaitTimeInMs: opts.maxWaitTimeInMs } : {}),
      ...(opts.hooks ? { hooks: opts.hooks } : {}),
      handler: async (msg): Promise<StepResult<ChangeWork>> => {
        const decoded = decode(msg.value);
        if (decoded.kind !== 'ok') return decoded;
        // The body carries ISO times: a time no Date can hold is a bad event, not a delivery.
        if (Number.isNaN(new Date(decoded.value.observedAt).getTime()))
          return dlq(`agent change ${decoded.value.id.slice(0, 64)} with an invalid observedAt`);
        return ok(await this.processChange(decoded.value));
      },
      sink: (items) => this.writeOutcomes(items),
    });
  }

  get done(): Promise<void> {
    return this.runner.done;
  }

  get subscriptionCount(): number {
    return this.opts.subscriptions.length;
  }

  async start(): Promise<void> {
    await this.runner.start();
    this.logger.info(
      { groupId: this.runner.groupId, subscriptions: this.opts.subscriptions.map((s) => s.id) },
      'webhook deliverer started',
    );
  }

  /** Stops the runner (the batch in hand ends: its waits are cut, it is not committed), then returns. */
  async stop(): Promise<void> {
    // The runner first, so its sink sees the stop and does not retry; then the waits between attempts end.
    const stopped = this.runner.stop();
    this.stopping.abort();
    await stopped;
  }

  /** Delivers one change to every subscription that wants it and has no outcome yet. Never throws. */
  async processChange(change: AgentChangeEvent): Promise<ChangeWork> {
    const work: ChangeWork = { change, records: [], interrupted: false, error: null };
    const pending: Subscription[] = [];
    for (const sub of this.opts.subscriptions) {
      if (!subscriptionMatches(sub, change)) continue;
      const known = this.settled.get(pairKey(sub.id, change.id));
      if (known) {
        if (!known.produced) work.records.push(known.record);
        continue;
      }
      pending.push(sub);
    }
    if (pending.length === 0) return work;

    let context: { settled: Set<string>; hidden: boolean };
    try {
      context = await retry(
        () =>
          webhookDeliveryContext(this.opts.warehouse, {
            changeId: change.id,
            subscriptionIds: pending.map((s) => s.id),
            agentKey: change.agentKey,
          }),
        {
          retries: CONTEXT_READ_ATTEMPTS - 1,
          baseMs: CONTEXT_READ_BASE_MS,
        },
      );
    } catch (err) {
      this.logger.warn({ changeId: change.id, err }, 'cannot read the webhook deliveries table; the change will be tried again');
      work.error = err;
      return work;
    }

    const age = this.now() - change.observedAt;
    await Promise.all(
      pending
        .filter((sub) => !context.settled.has(sub.id))
        .map(async (sub) => {
          const id = deliveryId(sub.id, change.id);
          const base = {
            id,
            subscriptionId: sub.id,
            changeId: change.id,
            kind: change.kind,
            agentId: change.agentId,
            agentKey: change.agentKey,
            changeObservedAt: change.observedAt,
          };
          const quiet = { attempts: 0, lastStatus: null, durationMs: 0 };
          if (context.hidden) {
            this.settle(work, {
              ...base,
              ...quiet,
              status: 'hidden',
              errorClass: '',
              error: "the agent's owner asked for it to be hidden",
              recordedAt: Date.now(),
            });
            return;
          }
          if (age > this.opts.maxAgeMs) {
            const error = `observed ${Math.round(age / 60_000)} min ago, over the ${Math.round(this.opts.maxAgeMs / 60_000)} min age limit`;
            this.settle(work, { ...base, ...quiet, status: 'stale', errorClass: '', error, recordedAt: Date.now() });
            return;
          }
          const r = await deliver(sub, id, change.kind, deliveryBody(id, change, this.opts.publicBaseUrl ?? null), {
            ...this.tuning,
            // One attempt while the receiver's last delivery went dead (see the module's comment).
            maxAttempts: this.failing.has(sub.id) ? 1 : this.tuning.maxAttempts,
            userAgent: this.userAgent,
            signal: this.stopping.signal,
            ...(this.opts.allowLoopback ? { allowLoopback: true } : {}),
            ...(this.opts.allowAddress ? { allowAddress: this.opts.allowAddress } : {}),
            ...(this.opts.lookup ? { lookup: this.opts.lookup } : {}),
            ...(this.opts.random ? { random: this.opts.random } : {}),
          });
          if (r.status === 'interrupted') {
            work.interrupted = true;
            return;
          }
          if (r.status === 'delivered') this.failing.delete(sub.id);
          else if (r.status === 'dead') this.failing.add(sub.id);
          const log = {
            subscription: sub.id,
            changeId: change.id,
            delivery: id,
            kind: change.kind,
            attempts: r.attempts,
            status: r.lastStatus,
            durationMs: r.durationMs,
          };
          if (r.status === 'delivered') this.logger.info(log, 'webhook delivered');
          else this.logger.warn({ ...log, errorClass: r.errorClass, error: r.error }, `webhook ${r.status}`);
          const { status, attempts, lastStatus, errorClass, error, durationMs } = r;
          this.settle(work, { ...base, status, attempts, lastStatus, errorClass, error, durationMs, recordedAt: Date.now() });
        }),
    );
    return work;
  }

  private settle(work: ChangeWork, record: WebhookDeliveryEvent): void {
    this.settled.set(pairKey(record.subscriptionId, record.changeId), { record, produced: false });
    // The oldest first: the deliveries table knows them by now.
    while (this.settled.size > SETTLED_MEMORY_MAX) this.settled.delete(this.settled.keys().next().value!);
    work.records.push(record);
  }

  /** The sink: dead letters for what was not delivered, then every outcome; throws when the batch must be read again. */
  private async writeOutcomes(items: readonly SinkItem<ChangeWork>[]): Promise<void> {
    // Outcomes that are final are recorded even when the batch must be read again, so a restart skips them.
    let failure: unknown = items.some((i) => i.value.interrupted)
      ? new Error('webhook deliveries interrupted by a shutdown; the batch will be read again')
      : null;
    const records: Array<{ record: WebhookDeliveryEvent; source: ConsumedMessage }> = [];
    for (const item of items) {
      let work = item.value;
      if (work.error !== null && !this.stopping.signal.aborted) {
        work = await this.processChange(work.change);
        if (work.interrupted) failure ??= new Error('webhook deliveries interrupted by a shutdown; the batch will be read again');
      }
      if (work.error !== null) failure ??= work.error;
      for (const record of work.records) {
        if (this.settled.get(pairKey(record.subscriptionId, record.changeId))?.produced) continue;
        records.push({ record, source: item.source });
      }
    }
    const at = new Date().toISOString();
    const dead: OutgoingMessage[] = records
      .filter((r) => UNDELIVERED.has(r.record.status))
      .map(({ record, source }) => {
        const headers: Record<string, Buffer | string> = {};
        for (const [k, v] of Object.entries(source.headers)) if (typeof v === 'string' || Buffer.isBuffer(v)) headers[k] = v;
        headers[DLQ_HEADERS.reason] = `webhook ${record.status} for subscription ${record.subscriptionId}: ${record.error}`.slice(0, 1000);
        headers[DLQ_HEADERS.originTopic] = source.topic;
        headers[DLQ_HEADERS.originPartition] = String(source.partition);
        headers[DLQ_HEADERS.originOffset] = source.offset;
        headers[DLQ_HEADERS.originTimestamp] = source.timestamp;
        if (source.key) headers[DLQ_HEADERS.originKey] = source.key;
        headers[DLQ_HEADERS.groupId] = this.runner.groupId;
        headers[DLQ_HEADERS.at] = at;
        headers[WEBHOOK_DLQ_HEADERS.subscription] = record.subscriptionId;
        headers[WEBHOOK_DLQ_HEADERS.delivery] = record.id;
        return { key: source.topic, value: source.value ?? Buffer.alloc(0), headers };
      });
    for (const chunk of chunkMessages(dead)) await this.opts.producer.send(this.opts.topics.deadLetters, chunk);
    const outcomes = records.map(({ record }) => ({ key: record.subscriptionId, value: this.codec.encode('WebhookDelivery', record) }));
    for (const chunk of chunkMessages(outcomes)) await this.opts.producer.send(this.opts.topics.webhookDeliveries, chunk);
    for (const { record } of records) {
      const known = this.settled.get(pairKey(record.subscriptionId, record.changeId));
      if (known) known.produced = true;
    }
    if (failure !== null) throw failure;
  }
}
