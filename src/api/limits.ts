/** The API's paging and window limits, in one place (the schemas and the routes read them). */

export const STATS_DAYS_DEFAULT = 30;
export const STATS_DAYS_MAX = 400;
export const AGENT_SEARCH_DEFAULT = 50;
export const AGENT_SEARCH_MAX = 500;
export const PAGE_DEFAULT = 50;
export const PAGE_MAX = 500;
