import { WarehouseError } from './errors.js';
import { isKeyword, oneStatement, type Statement } from './lexer.js';

/**
 * What a read-only connection refuses before the engine sees the statement.
 *
 * The engine's own `readonly=1` refuses DDL, INSERT, SET and most table
 * functions, but not everything that reaches outside the warehouse: chdb runs
 * every statement of a multi-statement string, `INTO OUTFILE` writes files,
 * the scalar `file()` reads them, and some table functions (s3 among them)
 * pass its check. So a read-only connection also takes only one statement of
 * a reading kind, without `INTO OUTFILE`, and with no call to a function that
 * reaches files, the network or other processes.
 */

/** Statements that only read. */
const READ_STATEMENTS = new Set(['SELECT', 'WITH', 'SHOW', 'DESCRIBE', 'DESC', 'EXISTS', 'EXPLAIN']);

/**
 * Table functions that only read this warehouse or make rows up. Every other
 * table function the engine knows is in REFUSED_FUNCTIONS (a test compares the
 * two lists with the engine's `system.table_functions`, so a new engine version
 * cannot add one unnoticed).
 */
export const SAFE_TABLE_FUNCTIONS: readonly string[] = [
  'SQLStandardValues',
  'format',
  'generateRandom',
  'generateSeries',
  'generate_series',
  'loop',
  'merge',
  'null',
  'numbers',
  'numbers_mt',
  'primes',
  'values',
  'view',
  'viewExplain',
  'viewIfPermitted',
  'zeros',
  'zeros_mt',
];

/** Functions (table or scalar) that read files, reach the network or run programs; compared case-insensitively. */
export const REFUSED_FUNCTIONS: readonly string[] = [
  // files, programs, this host
  'file', 'fileCluster', 'filesystem', 'input', 'executable', 'eval', 'catBoostPool', 'catboostEvaluate',
  'naiveBayesClassifier', 'naiveBayesClassifierWithProb', 'naiveBayesClassifierWithAllProbs', 'dictionary',
  'arrowstream', 'fuzzJSON', 'fuzzQuery', 'shardByHash',
  // other servers and object stores
  'url', 'urlCluster', 'remote', 'remoteSecure', 'cluster', 'clusterAllReplicas',
  's3', 's3Cluster', 'gcs', 'cosn', 'oss', 'hdfs', 'hdfsCluster',
  'azureBlobStorage', 'azureBlobStorageCluster',
  'mysql', 'postgresql', 'sqlite', 'mongodb', 'redis', 'odbc', 'jdbc', 'ytsaurus',
  'prometheusQuery', 'prometheusQueryRange',
  'timeSeriesData', 'timeSeriesMetrics', 'timeSeriesSamples', 'timeSeriesSelector', 'timeSeriesTags',
  // lake formats (files or object stores)
  'iceberg', 'icebergAzure', 'icebergAzureCluster', 'icebergCluster', 'icebergHDFS', 'icebergHDFSCluster',
  'icebergLocal', 'icebergLocalCluster', 'icebergS3', 'icebergS3Cluster',
  'deltaLake', 'deltaLakeAzure', 'deltaLakeAzureCluster', 'deltaLakeCluster', 'deltaLakeLocal', 'deltaLakeS3', 'deltaLakeS3Cluster',
  'hudi', 'hudiCluster',
  'paimon', 'paimonAzure', 'paimonAzureCluster', 'paimonCluster', 'paimonHDFS', 'paimonHDFSCluster', 'paimonLocal', 'paimonS3', 'paimonS3Cluster',
  // the table engine's internals (not needed to read the index)
  'mergeTreeAnalyzeIndexes', 'mergeTreeAnalyzeIndexesUUID', 'mergeTreeIndex', 'mergeTreeProjection', 'mergeTreeTextIndex',
];

const REFUSED = new Set(REFUSED_FUNCTIONS.map((f) => f.toLowerCase()));

function refuse(why: string): never {
  throw new WarehouseError('refused', `refused on a read-only connection: ${why}`);
}

/**
 * The statement if a read-only connection may run it; else a WarehouseError of
 * kind 'refused' that says why. Works on tokens, so quotes, comments and
 * backticks neither hide a second statement nor a call.
 */
export function checkReadOnly(sql: string): Statement {
  const statement = oneStatement(sql);
  const { tokens } = statement;
  // A statement may open with parentheses: ((SELECT …) UNION ALL (SELECT …)).
  const first = tokens.find((t) => !(t.kind === 'punct' && t.text === '('));
  if (!first || first.kind !== 'word' || !READ_STATEMENTS.has(first.value.toUpperCase())) {
    refuse(`only reading statements (${[...READ_STATEMENTS].join(', ')}) run here, not ${first ? JSON.stringify(first.text) : 'an empty one'}; \`sql --write\` runs others`);
  }
  for (const [i, t] of tokens.entries()) {
    if (isKeyword(t, 'INTO') && isKeyword(tokens[i + 1], 'OUTFILE')) refuse('INTO OUTFILE writes a file');
    const next = tokens[i + 1];
    if ((t.kind === 'word' || t.kind === 'quoted') && next?.kind === 'punct' && next.text === '(' && REFUSED.has(t.value.toLowerCase())) {
      refuse(`${t.value}() reads files, reaches the network or runs programs`);
    }
  }
  return statement;
}

/** The text a connection sends for `sql`: one statement, checked by `checkReadOnly` on a read-only connection. */
export function prepareStatement(sql: string, readOnly: boolean): string {
  return (readOnly ? checkReadOnly(sql) : oneStatement(sql)).text;
}

/** Options both adapters take. */
export interface ConnectionOptions {
  /**
   * A read-only connection: the engine's `readonly=1`, `checkReadOnly` on every
   * statement, and exec and insert refused.
   */
  readOnly?: boolean;
  /**
   * Deadline of a call in milliseconds: the client gives up, and the engine is
   * told `max_execution_time` (whole seconds, rounded up) so it stops the work
   * too. Default: no deadline.
   */
  timeoutMs?: number;
  /**
   * Rows per block the engine reads (`max_block_size`). A query that reads in key order and stops
   * at its LIMIT still reads whole blocks (65k rows by default, per thread); the API's connection
   * sets a small block so a page reads about what it shows (API_MAX_BLOCK_ROWS). Default: the engine's.
   */
  maxBlockRows?: number;
}

/** Engine settings of a connection with these options. */
export function connectionSettings(options: ConnectionOptions): Record<string, number> {
  return {
    ...(options.readOnly ? { readonly: 1 } : {}),
    ...(options.timeoutMs === undefined ? {} : { max_execution_time: Math.max(1, Math.ceil(options.timeoutMs / 1000)) }),
    ...(options.maxBlockRows === undefined ? {} : { max_block_size: options.maxBlockRows }),
  };
}
