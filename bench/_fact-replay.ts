/**
 * The replay of a bumped checker version from the kept facts (pipeline.ts's measurement), as
 * `veronikai replay` runs it: a process of its own over the index's warehouse, replayFromFacts and
 * then the read models. pipeline.ts closes the warehouse and runs this; it prints where the time
 * went and writes its figures as JSON to the file named.
 *
 *   node --import tsx bench/_fact-replay.ts <warehouse directory> <checker version> <figures file>
 *
 * The heads are signed with a key made for the run.
 */
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { signingKeyObject } from '../src/processors/verdicts/batch-sign.js';
import { CURRENT_CHECKER, type Checker } from '../src/processors/verdicts/checker.js';
import { VerdictWriter } from '../src/processors/verdicts/processor.js';
import { replayFromFacts } from '../src/processors/verdicts/replay-facts.js';
import { EmbeddedWarehouse } from '../src/warehouse/embedded.js';
import { Timings, timedChecker, timedWarehouse } from './_timing.js';

/** What the parent reads back. */
export interface FactReplayFigures {
  events: number;
  inputs: number;
  heads: number;
  changes: number;
  ms: number;
}

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<void> {
  const [dir, version, out] = process.argv.slice(2);
  if (!dir || !version || !out) throw new Error('usage: _fact-replay.ts <warehouse directory> <checker version> <figures file>');
  const warehouse = new EmbeddedWarehouse(dir);
  try {
    const privateKey = generateKeyPairSync('ed25519').privateKey;
    const bumped: Checker = { ...CURRENT_CHECKER, version };
    const timings = new Timings();
    const on = () => true;
    const timed = timedWarehouse(warehouse, timings, on);
    let published = 0;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const elu0 = performance.eventLoopUtilization();
    const fromFacts = await replayFromFacts(timed, timedChecker(bumped, timings, on), signingKeyObject(privateKey), async (c) => {
      published += c.length;
    });
    const rowsMs = performance.now() - t0;
    // The daily models of the facts' days came with them; the agents' latest and status rows and the census, as `replay` does.
    await new VerdictWriter(timed, bumped, privateKey, undefined, 'deferred').deriveReadModels([], { latest: true });
    const ms = performance.now() - t0;
    const loopMs = performance.eventLoopUtilization(elu0).active;
    const cpu = process.cpuUsage(cpu0);
    console.log(
      `replay from the kept facts (a process of its own, as \`replay\`): ${fmt(fromFacts.events)} probes, ${fmt(fromFacts.inputs)} distinct inputs judged, ` +
        `${fmt(fromFacts.heads)} heads signed, ${fmt(published)} changes derived; rows in ${secs(rowsMs)}, read models ${secs(ms - rowsMs)}, ` +
        `total ${secs(ms)}: ${fmt(fromFacts.events / (ms / 1000))}/s (event loop busy ${secs(loopMs)}, process CPU ${secs((cpu.user + cpu.system) / 1000)})`,
    );
    console.log(`where it went (wall time of awaited calls; a page of inputs is read while the one before is judged, so some overlap):`);
    for (const row of timings.rows())
      console.log(
        `  ${row.what.padEnd(48)} ${secs(row.ms).padStart(9)}  ${((100 * row.ms) / ms).toFixed(1).padStart(5)} %  (${fmt(row.calls)} calls)`,
      );
    const figures: FactReplayFigures = {
      events: fromFacts.events,
      inputs: fromFacts.inputs,
      heads: fromFacts.heads,
      changes: published,
      ms,
    };
    writeFileSync(out, JSON.stringify(figures));
  } finally {
    await warehouse.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
