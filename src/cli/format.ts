import type { SourceSummary } from '../producers/sources/index.js';
import { DISABLED_BY_CONFIGURATION } from '../producers/sources/summary.js';
import type { DailyRunReport } from '../runtime/daily.js';
import type { DisputeOutcome } from '../runtime/usecases/dispute.js';
import type { ReplayProgress, ReplaySummary } from '../runtime/usecases/replay.js';

/** What the commands print for people: one place for every line a role's result becomes. */

/** One line per source, for people. An unreachable source says so; it is never "0 items". */
export function formatSummary(s: SourceSummary): string {
  if (s.skipped) return `${s.source}: skipped (${s.skipped})`;
  const details = s.details > 0 ? `, ${s.details} detail request(s)` : '';
  const head =
    `${s.source} (${s.mode}): ${s.pages} page(s)${details}, ${s.items} item(s): ${s.new} new, ${s.changed} changed, ` +
    `${s.delisted} delisted, ${s.invalid} invalid, ${s.errors} error(s)`;
  const notes = s.notes.length > 0 ? ` [${s.notes.join('; ')}]` : '';
  return s.complete ? `${head}, complete${notes}` : `${head}, INCOMPLETE: ${s.failure ?? 'stopped early'}${notes}`;
}

/**
 * The sources of a crawl that could not be read completely: failed or cut-short passes, and sources
 * the crawl gate skipped (robots.txt unreadable); not those the operator turned off or whose terms
 * the operator recorded as forbidding crawling, which were left out on purpose.
 */
export function sourcesNotRead(summaries: readonly SourceSummary[]): SourceSummary[] {
  return summaries.filter((s) => !s.complete && s.skipped !== DISABLED_BY_CONFIGURATION && !s.skipped?.startsWith('terms: '));
}

/** A one-line progress text for a terminal. */
export function formatCrawlProgress(s: Readonly<SourceSummary>): string {
  if (s.skipped) return `${s.source}: skipped`;
  const details = s.details > 0 ? ` + ${s.details} detail` : '';
  return `${s.source}: page ${s.pages}${details}, ${s.items} item(s), ${s.new} new, ${s.changed} changed, ${s.errors} error(s)`;
}

const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`);

/** What a daily run did, in plain words for the terminal. */
export function formatDailyReport(r: DailyRunReport): string[] {
  const s = r.stats.sample;
  return [
    `daily run ${r.runId} (seed ${r.seed}): ${r.planned} probe(s) planned — sample ${r.counts.sample ?? 0}, overdue ${r.counts.overdue ?? 0}, new ${r.counts.new ?? 0}, changed ${r.counts.changed ?? 0}, due ${r.counts.due ?? 0}`,
    `sample of this run: ${s.checks} check(s); up ${pct(s.up.share)} [95% CI ${pct(s.up.low)}–${pct(s.up.high)}] of ${s.up.trials}; ` +
      `passing ${pct(s.pass.share)} [95% CI ${pct(s.pass.low)}–${pct(s.pass.high)}] of ${s.pass.trials}; unknown ${s.unknown}, skipped ${s.skipped}, n/a ${s.notApplicable}`,
    `census of latest states (${r.census.checkerVersion}): ${r.census.agents.active} active agent(s), ${r.census.agents.inactive} inactive; ` +
      `up ${r.census.latest.up}, down ${r.census.latest.down}, unknown ${r.census.latest.unknown}, skipped ${r.census.latest.skipped}; ` +
      `pass ${r.census.latest.pass}, fail ${r.census.latest.fail}, unknown ${r.census.latest.unknownVerdict}, n/a ${r.census.latest.notApplicable}, never checked ${r.census.latest.neverChecked}`,
    ...r.abandoned.map(
      (a) => `previous daily run ${a.runId} (started ${a.startedAt}) never finished: its process was stopped; recorded as incomplete`,
    ),
  ];
}

const num = (n: number) => n.toLocaleString('en-US');

/** "1h 02m", "3m 07s", "12s". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(sec).padStart(2, '0')}s`;
  return `${sec}s`;
}

/** One line of progress: "1,234 / 5,678 messages (21.7%) · 312 msg/s · ETA 14s". */
export function formatReplayProgress(p: ReplayProgress): string {
  const pct = p.total > 0 ? ((p.processed / p.total) * 100).toFixed(1) : '100.0';
  const rate = p.rate === null ? '… msg/s' : `${p.rate >= 10 ? Math.round(p.rate) : p.rate.toFixed(1)} msg/s`;
  const eta = p.done ? 'done' : p.etaMs === null ? 'ETA …' : `ETA ${formatDuration(p.etaMs)}`;
  return `replay ${p.checkerVersion}: ${num(p.processed)} / ${num(p.total)} messages (${pct}%) · ${rate} · ${eta} · ${formatDuration(p.elapsedMs)} elapsed`;
}

/** What a replay did, in plain words for the terminal. */
const caughtUp = (g: { behindAtStart: number; ran: boolean }) =>
  g.ran ? `was ${num(g.behindAtStart)} message(s) behind, caught up first` : 'already current';

export function formatReplaySummary(s: ReplaySummary): string[] {
  const lines = [
    s.alreadyProcessed >= s.total && s.judged === 0
      ? `checker ${s.checkerVersion} had already judged all ${num(s.total)} probe message(s): nothing to replay (group ${s.groupId})`
      : `replayed ${num(s.total - s.alreadyProcessed)} probe message(s) under checker ${s.checkerVersion} in ${formatDuration(s.durationMs)}: ` +
        `${num(s.judged)} event(s) judged${s.deadLettered > 0 ? `, ${num(s.deadLettered)} sent to dead letters` : ''}` +
        `${s.alreadyProcessed > 0 ? ` (the first ${num(s.alreadyProcessed)} had already been judged under this version)` : ''}`,
    ...(s.fromFacts
      ? [
          `from the kept facts: ${num(s.fromFacts.events)} probe(s), ${num(s.fromFacts.inputs)} distinct input(s) judged, ` +
            `${num(s.fromFacts.heads)} tree head(s) signed, ${num(s.fromFacts.changes)} change(s) published; the topic read from where they end`,
        ]
      : []),
    `listing history: ${caughtUp(s.listingHistory)}; document store: ${caughtUp(s.documents)}`,
    `${num(s.verdictRows)} verdict row(s) under ${s.checkerVersion} in the warehouse`,
  ];
  const c = s.comparison;
  if (!c) {
    lines.push('no earlier checker version has verdicts in the warehouse: nothing to compare with');
    return lines;
  }
  lines.push(
    `versus ${c.previousVersion}: ${num(c.comparedEvents)} probe event(s) judged by both; ${num(c.changedEvents)} changed result, ` +
      `for ${num(c.changedAgents)} agent(s)`,
  );
  if (c.transitions.length > 0) lines.push(`  changes: ${c.transitions.map((t) => `${t.from} → ${t.to}: ${num(t.events)}`).join(', ')}`);
  for (const a of c.agents) {
    lines.push(
      // eslint-disable-next-line no-control-regex -- control characters in an agent's name are replaced for the terminal
      `  ${a.agentId}  ${a.from} → ${a.to}  ${a.agentKey}${a.name ? `  (${a.name.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').slice(0, 80)})` : ''}`,
    );
  }
  if (c.changedAgents > c.agents.length) lines.push(`  … and ${num(c.changedAgents - c.agents.length)} more`);
  return lines;
}

/** One line of command output on stdout (logs go to stderr). */
export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Text from data on one terminal line: control characters (line breaks, escapes) as spaces, bounded. */
const oneLine = (s: string, max = 200) => {
  // eslint-disable-next-line no-control-regex -- control characters from data are replaced for the terminal
  const t = s.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

/** What `veronikai dispute` recorded, and whether the re-probe will happen now. */
export function formatDispute(o: DisputeOutcome): string[] {
  const d = o.dispute;
  const who = d.name ? `${oneLine(d.name, 80)} (${d.protocol} ${d.agentKey})` : `${d.protocol} ${d.agentKey}`;
  const lines = [`dispute ${d.id} recorded for ${who}, agent ${d.agentId}`];
  lines.push(`  reason: ${oneLine(d.reason)}`);
  if (d.disputedEventId) {
    const rules = d.disputedReasons.length > 0 ? ` (${d.disputedReasons.join(', ')})` : '';
    const at = d.disputedAt === null ? '' : ` checked ${new Date(d.disputedAt).toISOString()}`;
    lines.push(
      `  disputed result: ${d.disputedUptime ?? 'no check'}, ${d.disputedResult ?? 'no verdict'}${rules}${at}, checker ${d.checkerVersion}`,
    );
  } else {
    lines.push(`  disputed result: none yet (no check under checker ${d.checkerVersion || 'none'})`);
  }
  if (o.request) {
    lines.push(
      `  re-probe: requested now, outside the daily budget (request ${o.request.id}, probe ${d.probeEventId}) of ${o.request.targetUrl}`,
    );
    if (!o.workersListening) {
      lines.push('  but: no probe worker is running; the request waits in probe-requests until one does (veronikai run, or probe-worker)');
    }
    lines.push('  the corrections log answers it once the re-probe is judged (the agent page and its feed show it)');
  } else {
    lines.push(`  not re-probed: ${d.notReprobed ?? 'no re-probe was requested'}`);
  }
  return lines;
}
