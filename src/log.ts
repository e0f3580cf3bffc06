import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs on stderr (stdout is kept for command output).
 * Secrets never reach a log line: the redact paths cover the places they could appear.
 */
export function createLogger(name = 'veronikai', level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino(
    {
      name,
      level,
      redact: {
        paths: ['*.authorization', '*.Authorization', '*.headers.authorization', '*.token', '*.privateKey', '*.password'],
        censor: '[redacted]',
      },
    },
    pino.destination(2),
  );
}

/** A logger that discards everything, for tests and quiet library use. */
export const silentLogger: Logger = pino({ level: 'silent' });
