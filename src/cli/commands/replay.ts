import type { Command } from 'commander';
import { CHECKER_VERSION } from '../../conformance/index.js';
import { parseDuration, UsageError } from '../../config.js';
import { replayGroups, ReplayError, runReplay, type ReplayProgress } from '../../runtime/usecases/replay.js';
import { onShutdown } from '../../runtime/shutdown.js';
import { formatReplayProgress, formatReplaySummary, say } from '../format.js';
import { addSettings, configured, DATA_DIR_LOCAL_STATE, PLATFORM_SETTINGS } from '../settings.js';

/** Without a TTY, a structured progress line this often. */
const LOG_EVERY_MS = 5_000;

/**
 * `veronikai replay`: judge the whole probe history again with this build's checker,
 * in the checker version's own consumer group, beside the older versions' verdicts.
 */
export function registerReplayCommand(program: Command): void {
  const cmd = program
    .command('replay')
    .description(
      `replay the probes topic from the earliest offset through the verdict processor of this build's checker (${CHECKER_VERSION}), ` +
        "writing its verdicts beside older versions' and comparing the results; exits 0 once caught up. " +
        'On the embedded warehouse, stop `run` first (one process per data directory).',
    );
  addSettings(cmd, PLATFORM_SETTINGS, ['signingKeyFile'])
    .option(
      '--checker-version [version]',
      `alone: print the checker version a replay writes and exit; with a version: refuse unless it is this build's (${CHECKER_VERSION})`,
    )
    .option(
      '--compare-with <version>',
      'the checker version to compare the results with (default: the one shown now, else the latest other)',
    )
    .option('--timeout <duration>', 'give up (exit 1) after this long; what was committed stays, and the next replay resumes there', '6h')
    .action(async (opts: Record<string, unknown>) => {
      const asked = opts.checkerVersion;
      if (typeof asked === 'string' && asked !== CHECKER_VERSION) {
        throw new UsageError(
          `this build judges with checker ${CHECKER_VERSION}; it cannot write verdicts for "${asked}". ` +
            "A replay runs this build's checker code, and another version's code is not in it: " +
            'to replay under that version, run the release that carries it.',
        );
      }
      const groups = replayGroups();
      if (asked === true) {
        say(`${groups.checkerVersion}  (consumer group ${groups.verdicts})`);
        return;
      }
      const timeoutMs = parseDuration(String(opts.timeout), '--timeout');
      const { config, log } = configured(opts, 'veronikai-replay', DATA_DIR_LOCAL_STATE);
      const tty = Boolean(process.stderr.isTTY);
      let lastLogged = 0;
      let drawn = false;
      // On a terminal the progress line says what info logs would; elsewhere a log line every few seconds.
      const onProgress = (p: ReplayProgress) => {
        if (tty) {
          process.stderr.write(`\r\x1b[2K${formatReplayProgress(p)}`);
          drawn = true;
        } else if (p.done || Date.now() - lastLogged >= LOG_EVERY_MS) {
          lastLogged = Date.now();
          log.info(
            {
              processed: p.processed,
              total: p.total,
              ratePerSecond: p.rate === null ? null : Math.round(p.rate * 10) / 10,
              etaSeconds: p.etaMs === null ? null : Math.round(p.etaMs / 1000),
              elapsedSeconds: Math.round(p.elapsedMs / 1000),
            },
            'replay progress',
          );
        }
      };
      const endLine = () => {
        if (drawn) process.stderr.write('\n');
        drawn = false;
      };
      const shutdown = onShutdown();
      shutdown.signal.addEventListener(
        'abort',
        () => {
          endLine();
          say(`received ${String(shutdown.signal.reason)}: stopping after the batch in hand (a later replay resumes from there)`);
        },
        { once: true },
      );
      try {
        const summary = await runReplay(config, {
          log,
          onStart: ({ probesTopic }) =>
            say(
              `replaying ${probesTopic} under checker ${groups.checkerVersion} (consumer group ${groups.verdicts}; listing history: ${groups.listingHistory})`,
            ),
          onProgress,
          timeoutMs,
          ...(typeof opts.compareWith === 'string' ? { compareWith: opts.compareWith } : {}),
          signal: shutdown.signal,
        });
        endLine();
        for (const line of formatReplaySummary(summary)) say(line);
      } catch (err) {
        endLine();
        if (err instanceof ReplayError) {
          process.stderr.write(`veronikai: ${err.message}${err.progress ? ` — ${formatReplayProgress(err.progress)}` : ''}\n`);
          process.exitCode = shutdown.signal.aborted ? 130 : 1;
          return;
        }
        throw err;
      } finally {
        shutdown.dispose();
      }
    });
}
