import type { AgentCliOutcome, AgentCliUpdate } from '../engine/agent-cli.js';

/** One CLI's JSON-lines protocol: each parsed line in, and at the end the outcome, the failure it reported, or nothing (it ended without a result). */
export interface CliStream {
  line(event: Record<string, unknown>, update: (update: AgentCliUpdate) => void): void;
  end(): { outcome: AgentCliOutcome } | { failure: Error } | undefined;
}
