import type { SessionStatus, TokenUsage } from './events.js';

/** The `--json` shape of DESIGN.md §1. */
export interface RunSummary {
  session_id: string;
  status: SessionStatus;
  steps_total: number;
  steps_executed: number;
  steps_skipped: number;
  tokens: TokenUsage;
  artifacts: string[];
}
