/**
 * Preloaded (`node --import`) into the real probe-worker command by bench/probes.ts: answers the
 * bench's made-up host names with their loopback addresses, as /etc/hosts entries would, from the
 * JSON map (name → address) in the file BENCH_HOSTS_FILE names. Every other name goes to the
 * system resolver. The probe engine resolves through node:dns/promises `lookup` (its address
 * guard), so that one function is answered; syncBuiltinESMExports makes named imports see it.
 */
import dns from 'node:dns';
import { readFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const hosts = new Map(Object.entries(JSON.parse(readFileSync(process.env.BENCH_HOSTS_FILE, 'utf8'))));
const system = dns.promises.lookup;
dns.promises.lookup = async (name, options) => {
  const address = hosts.get(name);
  if (address === undefined) return system(name, options);
  const entry = { address, family: 4 };
  return typeof options === 'object' && options?.all ? [entry] : entry;
};
syncBuiltinESMExports();
