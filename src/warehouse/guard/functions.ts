import { ENGINE_FUNCTIONS_ALLOWED } from './engine-functions.js';

/**
 * What a guarded statement may call. Every function the engine knows is classified here: allowed
 * (engine-functions.ts, the engine's own list at the pinned version less the refused ones) or
 * refused (below, with the reason). A test compares both with the engine's `system.functions`,
 * so an engine upgrade that adds a function fails until someone classifies it.
 */

/** Why a function is refused, by group; each name is compared case-insensitively. */
export const REFUSED_FUNCTIONS: Readonly<Record<string, readonly string[]>> = {
  'reads files or runs a model from disk': [
    'file',
    'catboostEvaluate',
    'naiveBayesClassifier',
    'naiveBayesClassifierWithProb',
    'naiveBayesClassifierWithAllProbs',
  ],
  'calls a remote AI service': [
    'aiClassify',
    'aiEmbed',
    'aiExtract',
    'aiGenerate',
    'aiTranslate',
    'AIClassify',
    'AIExtract',
    'AIGenerate',
    'AITranslate',
  ],
  'reads a table or dictionary by name, around the served schema': [
    'joinGet',
    'joinGetOrNull',
    'hasColumnInTable',
    'getMaxTableNameLengthForDatabase',
    'dictGet',
    'dictGetAll',
    'dictGetChildren',
    'dictGetDate',
    'dictGetDateOrDefault',
    'dictGetDateTime',
    'dictGetDateTimeOrDefault',
    'dictGetDescendants',
    'dictGetFloat32',
    'dictGetFloat32OrDefault',
    'dictGetFloat64',
    'dictGetFloat64OrDefault',
    'dictGetHierarchy',
    'dictGetIPv4',
    'dictGetIPv4OrDefault',
    'dictGetIPv6',
    'dictGetIPv6OrDefault',
    'dictGetInt16',
    'dictGetInt16OrDefault',
    'dictGetInt32',
    'dictGetInt32OrDefault',
    'dictGetInt64',
    'dictGetInt64OrDefault',
    'dictGetInt8',
    'dictGetInt8OrDefault',
    'dictGetKeys',
    'dictGetOrDefault',
    'dictGetOrNull',
    'dictGetRoot',
    'dictGetString',
    'dictGetStringOrDefault',
    'dictGetUInt16',
    'dictGetUInt16OrDefault',
    'dictGetUInt32',
    'dictGetUInt32OrDefault',
    'dictGetUInt64',
    'dictGetUInt64OrDefault',
    'dictGetUInt8',
    'dictGetUInt8OrDefault',
    'dictGetUUID',
    'dictGetUUIDOrDefault',
    'dictHas',
    'dictIsIn',
  ],
  'tells about the host, the process or its configuration': [
    'addressToLine',
    'addressToLineWithInlines',
    'addressToSymbol',
    'demangle',
    'hostName',
    'hostname',
    'fullHostName',
    'getServerPort',
    'tcpPort',
    'getServerSetting',
    'getMergeTreeSetting',
    'getMacro',
    'getOSKernelVersion',
    'showCertificate',
    'filesystemAvailable',
    'filesystemCapacity',
    'filesystemUnreserved',
    'serverUUID',
    'zookeeperSessionUptime',
    'getClientHTTPHeader',
    'buildId',
    'globalVariable',
  ],
  'writes to the engine log': ['logTrace', 'fuzzQuery'],
  "is the engine's internal plumbing": [
    '__actionName',
    '__applyFilter',
    '__bitBoolMaskAnd',
    '__bitBoolMaskOr',
    '__bitSwapLastTwo',
    '__bitWrapperFunc',
    '__getScalar',
    '__patchPartitionID',
    '__scalarSubqueryResult',
    '__toYearCalendarOnly',
  ],
};

/**
 * Table functions a guarded statement may read from: they make rows up or read a literal.
 * Every other table function (files, URLs, other servers, programs, other tables by name such as
 * merge() and loop()) is refused; the test lists the engine's table functions against this.
 */
export const ALLOWED_TABLE_FUNCTIONS: readonly string[] = [
  'SQLStandardValues',
  'format',
  'generateRandom',
  'generateSeries',
  'generate_series',
  'null',
  'numbers',
  'numbers_mt',
  'primes',
  'values',
  'view',
  'zeros',
  'zeros_mt',
];

/**
 * Names the parser writes into a statement that are not in `system.functions`: a lambda, and
 * the internal cast a `{name:Type}` placeholder becomes.
 */
const PARSER_FUNCTIONS = ['lambda', '_CAST'];

/** Suffixes that turn an aggregate function into another (`countIf`, `sumArray`, `uniqState`): the engine's combinators. */
export const AGGREGATE_COMBINATORS: readonly string[] = [
  'SimpleState',
  'OrDefault',
  'Distinct',
  'Resample',
  'ForEach',
  'ArgMax',
  'ArgMin',
  'OrNull',
  'Tuple',
  'MergeState',
  'Merge',
  'State',
  'Array',
  'Null',
  'Map',
  'If',
];

const lower = (names: Iterable<string>): Set<string> => new Set([...names].map((n) => n.toLowerCase()));
const REFUSED = lower(Object.values(REFUSED_FUNCTIONS).flat());
const ALLOWED = lower([...ENGINE_FUNCTIONS_ALLOWED.aggregate, ...ENGINE_FUNCTIONS_ALLOWED.ordinary, ...PARSER_FUNCTIONS]);
const AGGREGATES = lower(ENGINE_FUNCTIONS_ALLOWED.aggregate);
const TABLE_FUNCTIONS = lower(ALLOWED_TABLE_FUNCTIONS);

/** The reason a function is refused, or null when it is allowed. Unknown names are refused. */
export function functionRefusal(name: string): string | null {
  const key = name.toLowerCase();
  for (const [why, names] of Object.entries(REFUSED_FUNCTIONS)) if (names.some((n) => n.toLowerCase() === key)) return why;
  if (ALLOWED.has(key) || isCombined(key)) return null;
  return 'is not a function this interface knows';
}

/** An allowed aggregate function with combinators (`uniqExactStateIf` is uniqExact + State + If). */
function isCombined(key: string): boolean {
  for (const c of AGGREGATE_COMBINATORS) {
    const suffix = c.toLowerCase();
    if (key.length > suffix.length && key.endsWith(suffix)) {
      const base = key.slice(0, -suffix.length);
      if (!REFUSED.has(base) && (AGGREGATES.has(base) || isCombined(base))) return true;
    }
  }
  return false;
}

export function tableFunctionAllowed(name: string): boolean {
  return TABLE_FUNCTIONS.has(name.toLowerCase());
}

/** Every name classified, for the completeness test. */
export function classifiedFunctions(): Set<string> {
  return new Set([...REFUSED, ...ALLOWED]);
}
