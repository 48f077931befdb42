import type { Client, QueryResultRow } from 'pg';
import { AcodeError, ExitCode, isAcodeError } from '../../errors/acode-error.js';
import type { RemoteTarget } from './remote-url.js';

/** One connection to the team store; every statement is parameterised. */
export interface RemoteConnection {
  query<Row extends QueryResultRow>(text: string, values?: readonly unknown[]): Promise<Row[]>;
  /** A statement run for its effect: how many rows it inserted, updated or deleted. */
  execute(text: string, values?: readonly unknown[]): Promise<number>;
  /** Runs `work` in one transaction: committed if it returns, rolled back if it throws. */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** Gives up a connection busy with a statement that takes too long, without waiting for it: nothing more is sent on it. */
  abandon(): void;
}

/** How long a connection attempt may take before the store counts as unreachable. */
const connectTimeoutMs = 5000;
/*
 * How long one statement may go unanswered before the store counts as unreachable is the target's
 * statementTimeoutMs (`remote.statement_timeout_seconds`, 20 s unless set): a route that goes
 * silent mid-query (a stalled proxy, a dropped path without a reset) had held `acode sync` for
 * good. Far above what a batch of 500 events takes on a store that answers.
 */

/**
 * Why the store could not be used, in words a person acts on; never the URL or its password
 * (`target.scrub` takes the password out of whatever the driver or the server said).
 */
export function unreachableReason(target: RemoteTarget, error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  const said = target.scrub(message ?? String(error));
  if (code === 'ECONNREFUSED') return `connection refused by ${target.shown} (is the server running?)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot resolve the host of ${target.shown}`;
  if (/Query read timeout/i.test(said)) return `no answer from ${target.shown} within ${target.statementTimeoutMs / 1000} s to a statement (the connection went silent)`;
  if (code === 'ETIMEDOUT' || /timeout/i.test(said)) return `no answer from ${target.shown} within ${connectTimeoutMs / 1000} s`;
  if (/Connection terminated|ECONNRESET|EPIPE/i.test(said) || code === 'ECONNRESET' || code === 'EPIPE') return `the connection to ${target.shown} was lost mid-transfer (${said})`;
  if (code === '28P01' || code === '28000') return `the server at ${target.shown} refused the user name or password in ${target.variable} (${code})`;
  if (code === '3D000') return `the database named in ${target.variable} does not exist at ${target.shown}`;
  return `${target.shown}: ${said}${code ? ` (${code})` : ''}`;
}

/** Why an attempt failed, for `acode status`: an AcodeError's own words without the advice, else the driver's error in words (password taken out). */
export function failureReason(target: RemoteTarget, error: unknown): string {
  const said = isAcodeError(error) ? error.message.replace(/^cannot reach the team store: /, '').replace(/; local sessions are unaffected.*$/, '') : unreachableReason(target, error);
  return target.scrub(said);
}

/** Why an attempt failed in a few words, for the line a run shows ("connection refused"); the whole reason goes to `acode status`. */
export function shortReason(target: RemoteTarget, error: unknown): string {
  const said = failureReason(target, error);
  const known: [RegExp, string][] = [
    [/connection refused/, 'connection refused'],
    [/no answer from|timeout/i, 'no answer'],
    [/refused the user name or password/, 'user name or password refused'],
    [/cannot resolve the host/, 'host not found'],
    [/does not exist at/, 'no such database'],
    [/newer than this acode knows/, "the store's schema is newer than this acode"],
    [/run 'acode remote init'/, "the store needs 'acode remote init'"],
    [/was lost mid-transfer|Connection terminated|connection .*(closed|ended|reset)|ECONNRESET|EPIPE|terminating connection/i, 'connection lost'],
  ];
  return known.find(([pattern]) => pattern.test(said))?.[1] ?? said;
}

/** An AcodeError for a store that cannot be reached or used. */
export function unreachable(target: RemoteTarget, error: unknown): AcodeError {
  return new AcodeError(`cannot reach the team store: ${unreachableReason(target, error)}; local sessions are unaffected, fix it and run 'acode sync'`, ExitCode.failure);
}

/** Opens a connection; `pg` is loaded here and only here, so that nothing loads it without a remote. */
export async function connectRemote(target: RemoteTarget): Promise<RemoteConnection> {
  const { default: pg } = await import('pg');
  const client: Client = new pg.Client({ connectionString: target.url, connectionTimeoutMillis: connectTimeoutMs, query_timeout: target.statementTimeoutMs, keepAlive: true, application_name: 'acode' });
  // An error after connecting (the server went away) would otherwise be thrown from an emitter and crash the process.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw unreachable(target, error);
  }
  const send = async <Row extends QueryResultRow>(text: string, values: readonly unknown[]) => {
    try {
      return await client.query<Row>(text, values as unknown[]);
    } catch (error) {
      // No SQLSTATE (the connection dropped: no code, or a socket's such as ECONNRESET) or a
      // connection class one: the store went away.
      const code = (error as { code?: unknown }).code;
      const sqlState = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
      throw !sqlState || /^(08|57P)/.test(code) ? unreachable(target, error) : error;
    }
  };
  const query = async <Row extends QueryResultRow>(text: string, values: readonly unknown[] = []): Promise<Row[]> => (await send<Row>(text, values)).rows;
  return {
    query,
    execute: async (text, values = []) => (await send(text, values)).rowCount ?? 0,
    async transaction<T>(work: () => Promise<T>): Promise<T> {
      await query('BEGIN');
      try {
        const result = await work();
        await query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
    },
    close: () => client.end().catch(() => {}),
    abandon: () => void client.end().catch(() => {}),
  };
}
