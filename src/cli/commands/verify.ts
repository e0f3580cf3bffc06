import type { Command } from 'commander';
import { runVerify } from '../../runtime/usecases/verify.js';
import { WarehouseError } from '../../warehouse/errors.js';
import { addSettings, configured, DATA_DIR_EMBEDDED_WAREHOUSE, WAREHOUSE_SETTINGS } from '../settings.js';

/** `veronikai verify`: every stored verdict checked against its signed head (or its own attestation) with the public key. */
export function registerVerifyCommand(program: Command): void {
  const cmd = program
    .command('verify')
    .description('check every stored verdict against the signed heads of its batch (docs/MERKLE.md) and the public key')
    .addHelpText(
      'after',
      `
Prints "verified N of N" and exits 0 when every verdict row verifies; otherwise names each
row that does not (event id, checker version, agent, why) and exits 1. The public key is the
data directory's (keys/attestation-ed25519.pub.pem), the configured signing key's, or --public-key.`,
    );
  addSettings(cmd, WAREHOUSE_SETTINGS, ['sqlTimeout', 'signingKeyFile'])
    .option('--public-key <file>', 'the Ed25519 public key (SPKI PEM) to check against')
    .action(async (opts: Record<string, unknown>) => {
      const { config } = configured(opts, 'veronikai-verify', DATA_DIR_EMBEDDED_WAREHOUSE);
      try {
        const r = await runVerify(config, {
          publicKeyFile: typeof opts.publicKey === 'string' ? opts.publicKey : null,
          onStaleInstance: (note) => void process.stderr.write(`veronikai verify: ${note}\n`),
        });
        for (const f of r.failures)
          process.stdout.write(`NOT VERIFIED ${f.eventId} (checker ${f.checkerVersion}, agent ${f.agentKey}): ${f.why}\n`);
        if (r.failed > r.failures.length) process.stdout.write(`… and ${r.failed - r.failures.length} more rows that do not verify\n`);
        if (r.badHeads > 0) process.stdout.write(`${r.badHeads} of ${r.heads} signed heads do not verify with this key\n`);
        process.stdout.write(`verified ${r.verified} of ${r.total}\n`);
        if (r.failed > 0) process.exitCode = 1;
      } catch (err) {
        if (!(err instanceof WarehouseError)) throw err;
        process.stderr.write(`veronikai verify: ${err.kind}${err.code === undefined ? '' : ` (code ${err.code})`}: ${err.message}\n`);
        process.exitCode = 1;
      }
    });
}
