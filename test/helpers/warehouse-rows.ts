/** Row builders for the warehouse tables (test data only). */

export const DAY_MS = 86_400_000;

export interface CheckSpec {
  id: string;
  checker?: string;
  agent?: string;
  at: Date;
  uptime?: 'up' | 'down' | 'unknown' | 'skipped';
  latency?: number | null;
  inSample?: boolean;
  source?: string;
  protocol?: 'a2a' | 'mcp';
}

export function checkRow(s: CheckSpec): Record<string, unknown> {
  const agent = s.agent ?? 'https://agent.example';
  return {
    event_id: s.id,
    checker_version: s.checker ?? '1.0.0',
    agent_key: agent,
    agent_id: `id-${agent.length}`,
    protocol: s.protocol ?? 'mcp',
    run_id: 'run-1',
    observed_at: s.at,
    uptime: s.uptime ?? 'up',
    reason: s.uptime === 'down' ? 'http_5xx' : '',
    http_status: s.uptime === 'down' ? 503 : 200,
    latency_ms: s.latency === undefined ? 120 : s.latency,
    in_sample: s.inSample ? 1 : 0,
    our_side: 0,
    source: s.source ?? 'mcp-registry',
  };
}

export interface VerdictSpec {
  id: string;
  agent?: string;
  at: Date;
  checker?: string;
  result?: 'pass' | 'fail' | 'unknown' | 'n/a';
  inSample?: boolean;
  protocol?: 'a2a' | 'mcp';
}

export function verdictRow(s: VerdictSpec): Record<string, unknown> {
  return {
    event_id: s.id,
    agent_key: s.agent ?? 'https://agent.example',
    protocol: s.protocol ?? 'mcp',
    observed_at: s.at,
    checker_version: s.checker ?? '1.0.0',
    suite_id: 'mcp-remote',
    suite_version: '2025-06-18',
    result: s.result ?? 'pass',
    reasons: s.result === 'fail' ? ['MCP-001'] : [],
    warnings: [],
    a2a_version: '',
    a2a_route: '',
    tolerant_valid: null,
    alt_version: '',
    alt_valid: null,
    schema_file: '',
    signature: 'sig',
    in_sample: s.inSample ? 1 : 0,
  };
}

export function sourceFetchRow(id: string, at: Date): Record<string, unknown> {
  return {
    event_id: id,
    run_id: 'run-1',
    source: 'mcp-registry',
    url: 'https://registry.example/v0/servers',
    page: 1,
    cursor: '',
    status: 200,
    ok: 1,
    not_modified: 0,
    item_count: 10,
    duration_ms: 42,
    error_class: '',
    error: '',
    observed_at: at,
  };
}

/** 'YYYY-MM-DD' of a UTC day `daysAgo` days before `now`. */
export function utcDay(now: number, daysAgo: number): string {
  return new Date(now - daysAgo * DAY_MS).toISOString().slice(0, 10);
}
