/**
 * `veronikai dispute`: an owner disputed a result; we re-probe the agent and log the correction.
 *
 * The operator names the agent by a URL (its card or endpoint URL, as its key is made) or its short
 * id. This records a Dispute event on the `disputes` topic (what was disputed: the agent's latest
 * check and verdict under the checker version served at that moment, and the reason) and, unless
 * the owner opted out of probing, a ProbeRequest with reason `dispute` on `probe-requests`: an
 * immediate re-probe outside the daily budget (the scheduler never sees it), made by the probe
 * workers with every politeness rule (robots.txt, per-host and per-site limits, pacing). The probe
 * worker derives its Probe event's id from the request's id; the Dispute event carries that id, so
 * the corrections processor finds the re-probe's check and verdict by event id.
 *
 * Kafka: the configured brokers; else the local broker a running instance of the data directory
 * started (its broker.json); else the local broker is started for the call, and the re-probe waits
 * in the topic until a probe worker runs. The warehouse is read through the running instance when
 * one holds the data directory (as `sql`), else opened read-only.
 */
import type { Kafka } from 'kafkajs';
import { UsageError, type Config } from '../../config.js';
import { newEventId } from '../../events/ids.js';
import { eventCodec } from '../../events/codec.js';
import type { DisputeEvent, ProbeRequestEvent } from '../../events/types.js';
import { agentId as agentIdOf, agentKey, siteOf } from '../../identity/agent-key.js';
import { type OptOutList, optOutProvider } from '../../identity/opt-out.js';
import { createEventProducer, type EventProducer } from '../../kafka/producer.js';
import type { Logger } from '../../log.js';
import { failingRuleIds } from '../../processors/changes/derive.js';
import { KafkaObservationSink } from '../../producers/kafka-sink.js';
import { PROBE_WORKER_GROUP, probeEventIdFor } from '../../producers/probe-worker.js';
import { brokerStatus } from '../../stack/kafka/index.js';
import type { TopicNames } from '../../topics.js';
import { withTimeout } from '../../util/time.js';
import { openReadOnlyWarehouse } from '../../warehouse/open.js';
import { checkerVersionServed, checkerVersionShown } from '../../warehouse/read/checker-version.js';
import { latestOfAgent } from '../../warehouse/read/status.js';
import type { Flag, Protocol } from '../../warehouse/rows.js';
import { fromDateTime64 } from '../../warehouse/time.js';
import type { ReadOnlyWarehouse } from '../../warehouse/warehouse.js';
import { openRawReader, warehouseOver } from '../instance-query.js';
import { openKafka } from '../kafka.js';
import { CLOSE_STEP_TIMEOUT_MS } from '../platform.js';

/** Longest reason kept (characters): a few paragraphs; the operator shortens a longer one. */
export const DISPUTE_REASON_MAX_CHARS = 2_000;
/** Failing rule ids kept of the disputed verdict. */
const DISPUTED_RULES_MAX = 50;
/** How long the check for a listening probe worker may take. */
const WORKERS_CHECK_MS = 5_000;

export interface DisputeInput {
  /** The agent's card or endpoint URL, or its short id. */
  target: string;
  reason: string;
  /** Which protocol the URL is, when it names agents of both. */
  protocol?: 'a2a' | 'mcp';
}

/** The reason as recorded: trimmed, not empty, at most DISPUTE_REASON_MAX_CHARS, no control characters but line breaks and tabs. */
export function disputeReason(text: string): string {
  const reason = text
    .replace(/\r\n?/g, '\n')
    // eslint-disable-next-line no-control-regex -- control characters other than tab and line feed are stripped from the reason
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
    .trim();
  if (reason === '') throw new UsageError('--reason must say what the owner believes is wrong');
  if (reason.length > DISPUTE_REASON_MAX_CHARS)
    throw new UsageError(`--reason is ${reason.length} characters; at most ${DISPUTE_REASON_MAX_CHARS} are kept: shorten it`);
  return reason;
}

/** The agent keys (and short id) a target may name: the URL as an A2A card and as an endpoint, canonicalised as keys are. */
export function disputeCandidates(target: string, protocol?: 'a2a' | 'mcp'): { keys: string[]; agentId: string | null } {
  const t = target.trim();
  if (/^[0-9a-f]{16}$/.test(t)) return { keys: [], agentId: t };
  if (!/^https?:\/\//i.test(t))
    throw new UsageError(`dispute needs the agent's URL (its card or endpoint URL) or its short id, got "${t.slice(0, 100)}"`);
  // An agent page's URL (…/agents/<id>) names the agent too.
  const page = /\/agents\/([0-9a-f]{16})\/?(?:[?#].*)?$/.exec(t);
  const keys = new Set<string>();
  if (protocol !== 'mcp') keys.add(agentKey('a2a', { cardUrl: t }) ?? '');
  if (protocol !== 'a2a') keys.add(agentKey('mcp', { endpointUrl: t }) ?? '');
  keys.delete('');
  if (keys.size === 0 && !page) throw new UsageError(`"${t.slice(0, 100)}" is not a URL an agent key can be made of`);
  return { keys: [...keys], agentId: page ? page[1]! : null };
}

/** An agent as `veronikai dispute` needs it: what to re-probe, and whether its owner opted out. */
export interface DisputedAgentRow {
  agent_key: string;
  agent_id: string;
  protocol: Protocol;
  name: string;
  active: Flag;
  opt_out: '' | 'unchecked' | 'hidden';
  opt_out_reason: string;
  endpoint_url: string;
  card_url: string;
  /** A live listing's endpoint transport ('' when none says). */
  transport: string;
}

/** The agents with these keys or this short id (hidden and opted-out ones too: the caller decides), at most `limit`. */
export async function agentsForDispute(
  wh: ReadOnlyWarehouse,
  q: { keys: readonly string[]; agentId?: string | null; limit?: number },
): Promise<DisputedAgentRow[]> {
  return wh.query<DisputedAgentRow>(
    `SELECT a.agent_key AS agent_key, a.agent_id AS agent_id, a.protocol AS protocol, a.name AS name, a.active AS active,
            a.opt_out AS opt_out, a.opt_out_reason AS opt_out_reason, a.endpoint_url AS endpoint_url, a.card_url AS card_url,
            ifNull(t.transport, '') AS transport
     FROM (SELECT * FROM agents FINAL WHERE agent_key IN {keys:Array(String)} OR agent_id = {id:String}) AS a
     LEFT JOIN (SELECT agent_key, anyIf(endpoint_transport, endpoint_transport != '') AS transport FROM listings FINAL
                WHERE tombstoned = 0 AND (agent_key IN {keys:Array(String)} OR agent_key IN (SELECT agent_key FROM agents WHERE agent_id = {id:String}))
                GROUP BY agent_key) AS t ON t.agent_key = a.agent_key
     ORDER BY a.agent_key LIMIT {limit:UInt32}`,
    { keys: [...q.keys], id: q.agentId ?? '', limit: q.limit ?? 10 },
  );
}

/** The one agent a target names; a clear error when none or several do. */
export async function findDisputedAgent(
  wh: ReadOnlyWarehouse,
  input: Pick<DisputeInput, 'target' | 'protocol'>,
): Promise<DisputedAgentRow> {
  const c = disputeCandidates(input.target, input.protocol);
  const rows = (await agentsForDispute(wh, { keys: c.keys, agentId: c.agentId })).filter(
    (r) => !input.protocol || r.protocol === input.protocol,
  );
  if (rows.length === 0) {
    const tried = c.agentId ? `id ${c.agentId}` : `key ${c.keys.join(' or ')}`;
    throw new UsageError(
      `no agent in the index has the ${tried}: check the URL (the card URL for an A2A agent, the endpoint URL for an MCP server)`,
    );
  }
  if (rows.length > 1) {
    throw new UsageError(
      `"${input.target}" names ${rows.length} agents (${rows.map((r) => `${r.protocol} ${r.agent_key}`).join('; ')}): say which with --protocol`,
    );
  }
  return rows[0]!;
}

export interface PreparedDispute {
  agent: DisputedAgentRow;
  dispute: DisputeEvent;
  /** The re-probe's request; null when none is sent (dispute.notReprobed says why). */
  request: ProbeRequestEvent | null;
}

/**
 * Reads what is disputed (the agent, its latest check and verdict under the served checker
 * version) and makes the Dispute event and the re-probe's request. Writes nothing.
 */
export async function prepareDispute(
  wh: ReadOnlyWarehouse,
  input: DisputeInput,
  opts: { optOut?: OptOutList | null; now?: () => number } = {},
): Promise<PreparedDispute> {
  const reason = disputeReason(input.reason);
  const agent = await findDisputedAgent(wh, input);
  const now = (opts.now ?? Date.now)();
  const checkerVersion = (await checkerVersionServed(wh)) ?? (await checkerVersionShown(wh)) ?? '';
  const latest = checkerVersion ? await latestOfAgent(wh, checkerVersion, agent.agent_key) : null;

  // The scheduler's rules for who may be probed: the agents row's opt-out, and the opt-out file on top.
  const optedOut = agent.opt_out ? { mode: agent.opt_out, reason: agent.opt_out_reason } : (opts.optOut?.lookup(agent) ?? null);
  const targetUrl = agent.protocol === 'a2a' ? agent.card_url || agent.endpoint_url : agent.endpoint_url;
  let notReprobed: string | null = null;
  if (optedOut) notReprobed = `the owner opted out of probing (${optedOut.mode}${optedOut.reason ? `: ${optedOut.reason}` : ''})`;
  else if (!targetUrl) notReprobed = 'the agent has no URL to check';

  const id = newEventId();
  const request: ProbeRequestEvent | null =
    notReprobed === null
      ? {
          id: newEventId(),
          observedAt: now,
          // A run of its own: the engine's per-run host-failure tracker and canary check start afresh for it.
          runId: `dispute:${id}`,
          agentKey: agent.agent_key,
          agentId: agent.agent_id,
          protocol: agent.protocol,
          site: siteOf(targetUrl),
          targetUrl,
          transport: agent.transport || null,
          reason: 'dispute',
          inSample: false,
        }
      : null;
  const dispute: DisputeEvent = {
    id,
    observedAt: now,
    agentKey: agent.agent_key,
    agentId: agent.agent_id || agentIdOf(agent.agent_key),
    protocol: agent.protocol,
    name: agent.name,
    reason,
    checkerVersion,
    disputedEventId: latest?.event_id ?? null,
    disputedAt: latest ? fromDateTime64(latest.observed_at) : null,
    disputedUptime: latest?.uptime ?? null,
    disputedResult: latest?.result ?? null,
    disputedReasons: latest ? failingRuleIds(latest.reasons).slice(0, DISPUTED_RULES_MAX) : [],
    requestId: request?.id ?? null,
    probeEventId: request ? probeEventIdFor(request.id) : null,
    notReprobed,
  };
  return { agent, dispute, request };
}

/** Produces the Dispute event (keyed by agent key), then the re-probe's request (keyed by site), each acknowledged. */
export async function sendDispute(producer: EventProducer, topics: TopicNames, prepared: PreparedDispute): Promise<void> {
  const d = prepared.dispute;
  await producer.send(topics.disputes, [{ key: d.agentKey, value: eventCodec().encode('Dispute', d) }]);
  if (prepared.request) await new KafkaObservationSink(producer, topics).probeRequests([prepared.request]);
}

/** Whether a probe worker is a member of the probe workers' group now (it will read the request). */
export async function probeWorkersListening(kafka: Kafka, groupId: string): Promise<boolean> {
  const admin = kafka.admin();
  try {
    await withTimeout(admin.connect(), WORKERS_CHECK_MS, 'the broker did not answer');
    const { groups } = await withTimeout(admin.describeGroups([groupId]), WORKERS_CHECK_MS, 'the broker did not describe the group');
    return (groups[0]?.members.length ?? 0) > 0;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

export interface DisputeOutcome extends PreparedDispute {
  /** A probe worker was listening when the request was sent (false when none was, or no request was sent). */
  workersListening: boolean;
  /** Where the events went. */
  brokers: string;
  /** How Kafka was found: configured, the running instance's local broker, or a local broker started for the call. */
  kafkaVia: 'configured' | 'running' | 'started';
}

/** The warehouse to read: the running instance's when one holds the embedded data directory, else a read-only connection. */
async function openReader(config: Config): Promise<ReadOnlyWarehouse> {
  if (config.warehouse.kind !== 'embedded') return openReadOnlyWarehouse(config.warehouse);
  const { reader } = await openRawReader(config);
  return warehouseOver(reader);
}

/** Records a dispute and its re-probe for the configured deployment (see the header), closing what it opened. */
export async function dispute(
  config: Config,
  log: Logger,
  input: DisputeInput,
  opts: { topicPrefix?: string; now?: () => number } = {},
): Promise<DisputeOutcome> {
  disputeReason(input.reason);
  const wh = await openReader(config);
  let prepared: PreparedDispute;
  try {
    const optOut = config.optOutFile ? optOutProvider(config.optOutFile, log).current() : null;
    prepared = await prepareDispute(wh, input, { optOut, ...(opts.now ? { now: opts.now } : {}) });
  } finally {
    await wh.close();
  }

  let kafkaConfig = config;
  let kafkaVia: DisputeOutcome['kafkaVia'] = 'configured';
  if (config.kafkaBrokers.length === 0) {
    const running = await brokerStatus({ dataDir: config.dataDir });
    if (running.running && running.reachable && running.brokers) {
      kafkaConfig = { ...config, kafkaBrokers: [running.brokers] };
      kafkaVia = 'running';
    } else kafkaVia = 'started';
  }
  const rt = await openKafka(kafkaConfig, log, {
    clientId: 'veronikai-dispute',
    ...(opts.topicPrefix ? { topicPrefix: opts.topicPrefix } : {}),
  });
  const closers: Array<() => Promise<void>> = [];
  if (rt.broker) closers.push(() => rt.broker!.stop());
  try {
    const producer = await createEventProducer(rt.kafka, { logger: log });
    closers.push(() => producer.close());
    await sendDispute(producer, rt.topics, prepared);
    const workersListening = prepared.request
      ? await probeWorkersListening(rt.kafka, `${opts.topicPrefix ?? ''}${PROBE_WORKER_GROUP}`)
      : false;
    log.info(
      { disputeId: prepared.dispute.id, agentKey: prepared.dispute.agentKey, requestId: prepared.dispute.requestId, workersListening },
      'dispute recorded',
    );
    return { ...prepared, workersListening, brokers: rt.brokers, kafkaVia };
  } finally {
    // Last opened first, each step bounded, as the platform closes.
    for (const c of closers.reverse()) {
      await withTimeout(c(), CLOSE_STEP_TIMEOUT_MS, `shutdown step did not finish within ${CLOSE_STEP_TIMEOUT_MS} ms`).catch(
        (err: unknown) => log.warn({ err }, 'error while shutting down'),
      );
    }
  }
}
