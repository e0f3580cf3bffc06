/**
 * One error type for both warehouse adapters, so callers branch on `kind`
 * (and, when the engine gave one, the ClickHouse error `code`) instead of on
 * driver-specific classes and message formats.
 */

export type WarehouseErrorKind =
  /** The SQL did not parse (ClickHouse code 62 and friends). */
  | 'syntax'
  /** A table or database that does not exist (60, 81). */
  | 'unknown_table'
  /** A column or identifier that does not exist (16, 47). */
  | 'unknown_column'
  /** A `{name:Type}` parameter missing, of the wrong type, or not bindable (456, 457). */
  | 'bad_params'
  /** Inserted or bound data the engine could not parse or convert (6, 26, 27, 38, 41, 53, 117, …). */
  | 'bad_data'
  /** The object already exists (57, 82). */
  | 'already_exists'
  /** The request or query took longer than allowed (client deadline, 159, 209). */
  | 'timeout'
  /** Could not reach the server, or (embedded) could not open the data directory. */
  | 'connection'
  /** Authentication failed or the user lacks the right (192, 193, 194, 497, 516). */
  | 'auth'
  /** The warehouse was already closed. */
  | 'closed'
  /** Not allowed on this connection: a write on a read-only one, a second statement, a call that reaches files or the network (164). */
  | 'refused'
  /** Any other error the engine reported. */
  | 'server';

export class WarehouseError extends Error {
  override name = 'WarehouseError';
  readonly kind: WarehouseErrorKind;
  /** The ClickHouse exception code, when the engine reported one. */
  readonly code: number | undefined;

  constructor(kind: WarehouseErrorKind, message: string, options: { code?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.code = options.code;
  }
}

export function isWarehouseError(err: unknown): err is WarehouseError {
  return err instanceof WarehouseError;
}

/** ClickHouse exception codes (src/Common/ErrorCodes.cpp) grouped by kind. */
const CODE_KINDS: ReadonlyMap<number, WarehouseErrorKind> = new Map<number, WarehouseErrorKind>([
  [62, 'syntax'], // SYNTAX_ERROR
  [60, 'unknown_table'], // UNKNOWN_TABLE
  [81, 'unknown_table'], // UNKNOWN_DATABASE
  [16, 'unknown_column'], // NO_SUCH_COLUMN_IN_TABLE
  [47, 'unknown_column'], // UNKNOWN_IDENTIFIER
  [456, 'bad_params'], // UNKNOWN_QUERY_PARAMETER
  [457, 'bad_params'], // BAD_QUERY_PARAMETER
  [6, 'bad_data'], // CANNOT_PARSE_TEXT
  [26, 'bad_data'], // CANNOT_PARSE_QUOTED_STRING
  [27, 'bad_data'], // CANNOT_PARSE_INPUT_ASSERTION_FAILED
  [38, 'bad_data'], // CANNOT_PARSE_DATE
  [41, 'bad_data'], // CANNOT_PARSE_DATETIME
  [53, 'bad_data'], // TYPE_MISMATCH
  [70, 'bad_data'], // CANNOT_CONVERT_TYPE
  [72, 'bad_data'], // CANNOT_PARSE_NUMBER
  [117, 'bad_data'], // INCORRECT_DATA
  [469, 'bad_data'], // VIOLATED_CONSTRAINT
  [57, 'already_exists'], // TABLE_ALREADY_EXISTS
  [82, 'already_exists'], // DATABASE_ALREADY_EXISTS
  [159, 'timeout'], // TIMEOUT_EXCEEDED
  [209, 'timeout'], // SOCKET_TIMEOUT
  [210, 'connection'], // NETWORK_ERROR
  [192, 'auth'], // UNKNOWN_USER
  [193, 'auth'], // WRONG_PASSWORD
  [194, 'auth'], // REQUIRED_PASSWORD
  [497, 'auth'], // ACCESS_DENIED
  [516, 'auth'], // AUTHENTICATION_FAILED
  [164, 'refused'], // READONLY
]);

export function kindForCode(code: number | undefined): WarehouseErrorKind {
  return (code === undefined ? undefined : CODE_KINDS.get(code)) ?? 'server';
}

/**
 * The leading `Code: <n>` of a ClickHouse exception text. Current servers write
 * `Code: 62. DB::Exception: …`; old ones (18.x) `Code: 62, e.displayText() = …`.
 */
export function parseClickHouseCode(message: string): number | undefined {
  const m = /\bCode:\s*(\d+)\s*[.,]/.exec(message);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/** Error messages can echo back the whole statement; keep them to a readable size. */
export function clipMessage(message: string, max = 2000): string {
  const s = message.trim();
  return s.length <= max ? s : `${s.slice(0, max)}… [${s.length - max} more chars]`;
}
