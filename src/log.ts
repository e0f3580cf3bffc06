import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

/** Where secrets could appear in a log line's fields; pino replaces them. */
const REDACT = ['*.authorization', '*.Authorization', '*.headers.authorization', '*.token', '*.privateKey', '*.password'];

export interface LoggerOptions {
  /** A pino level; default `info`, or `warn` on a terminal (the command's own lines say the rest). */
  level?: string | null;
  /** Where logs go; default stderr (stdout is kept for command output). */
  stream?: NodeJS.WriteStream;
}

/**
 * Structured logs. Where stderr is not a terminal (a file, a pipe, a supervisor) they are JSON
 * lines; on a terminal a person reads short human lines at warn level by default.
 */
export function createLogger(name = 'veronikai', opts: LoggerOptions = {}): Logger {
  const stream = opts.stream ?? process.stderr;
  const tty = Boolean(stream.isTTY);
  const level = opts.level ?? (tty ? 'warn' : 'info');
  const base = { name, level, redact: { paths: REDACT, censor: '[redacted]' } };
  if (!tty) return pino(base, opts.stream ?? pino.destination({ fd: 2, sync: true }));
  return pino(
    base,
    pretty({
      destination: stream,
      sync: true,
      colorize: true,
      singleLine: true,
      translateTime: 'HH:MM:ss',
      ignore: 'pid,hostname,name',
    }),
  );
}

/** A logger that discards everything, for tests and quiet library use. */
export const silentLogger: Logger = pino({ level: 'silent' });
