import { formatDateTime64 } from './warehouse.js';

/**
 * DateTime64(3, 'UTC') as the warehouse returns it ('YYYY-MM-DD HH:MM:SS.mmm') and
 * epoch milliseconds, both ways. One place, so every reader parses it the same way.
 */
export function fromDateTime64(s: string): number {
  return Date.parse(`${s.replace(' ', 'T')}Z`);
}

export function fromDateTime64OrNull(s: string | null | undefined): number | null {
  return s ? fromDateTime64(s) : null;
}

export function toDateTime64(ms: number): string {
  return formatDateTime64(new Date(ms));
}
