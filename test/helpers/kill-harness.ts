import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { EngineEvent } from '../../source/engine/events.js';
import { replayEvents } from '../../source/engine/session-progress.js';
import { readEventLog } from '../../source/store/event-log.js';
import { startCli, type CliRun } from './cli.js';
import { pause } from './lock-race.js';
import { requestStep, type MarkedAnswer } from './marked-specs.js';
import { OpenAiTestServer } from './openai-server.js';
import { tempDir } from './temp-dir.js';

/**
 * Kill -9 and resume, for any pattern: a loopback OpenAI server answering marked specs (each step's
 * input starts with `[[<step id>]]`), a run killed at random instants while model calls are in
 * flight, resumed until it completes, and the promises of a durable run checked on its files.
 */

/** Every model answer takes this long: several steps are in flight at once, and kills land in them. */
export const latencyMs = 80;

export async function withServer<T>(work: (server: OpenAiTestServer, baseUrl: string) => Promise<T>, answer?: MarkedAnswer): Promise<T> {
  const server = new OpenAiTestServer();
  server.latencyMs = latencyMs;
  // A pattern's decisions (a route, a score, a plan) are the answers its marked steps get.
  if (answer) server.handler = (request) => ({ kind: 'answer', text: answer(requestStep(request.user)) });
  const baseUrl = await server.start();
  try {
    return await work(server, baseUrl);
  } finally {
    await server.stop();
  }
}

export function workspace(spec: string, baseUrl: string) {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home: join(cwd, 'home'), env: { ACODE_HOME: join(cwd, 'home'), OPENAI_API_KEY: 'sk-test-not-used', OPENAI_BASE_URL: baseUrl } };
}

export type Workspace = ReturnType<typeof workspace>;

/** Resolves once the process has written its first line (it has opened or created the session). */
export function started(run: CliRun): Promise<void> {
  return new Promise((resolve) => {
    run.child.stderr!.once('data', () => resolve());
    run.child.once('close', () => resolve());
  });
}

export function sessionLog(ws: Workspace): EngineEvent[] {
  const [id] = existsSync(join(ws.home, 'sessions')) ? readdirSync(join(ws.home, 'sessions')) : [];
  return id ? readEventLog(join(ws.home, 'sessions', id, 'events.jsonl')) : [];
}

export function completedSteps(ws: Workspace): Set<string> {
  return new Set(sessionLog(ws).flatMap((e) => (e.type === 'step_completed' ? [e.step] : [])));
}

/** An uninterrupted run: its artifact, and how long a run takes from its first line to its exit. */
export async function uninterrupted(spec: string, answer?: MarkedAnswer): Promise<{ artifact: Buffer; ms: number }> {
  return withServer(async (_server, baseUrl) => {
    const ws = workspace(spec, baseUrl);
    const run = startCli(['run', 'spec.yaml', '--json'], ws);
    await started(run);
    const from = Date.now();
    let result = await run.done;
    if (result.code === 1 && /awaiting_approval/.test(result.stdout)) result = await startCli(['resume', '--approve', '--json'], ws).done;
    expect(result.code, result.stderr).toBe(0);
    return { artifact: readFileSync(join(ws.cwd, 'artifacts/out/report.md')), ms: Date.now() - from };
  }, answer);
}

/**
 * The promises of a durable run, checked on one session's files and the requests its model server
 * received: it completed; every step completed exactly once; no event id appears twice in the log;
 * and no finished step was sent to the model again — every request for a step arrived before that
 * step's `step_completed` was stamped, and a step was requested at most once per `step_started`
 * (the model is called only after its start is durable).
 */
export function checkDurable(ws: Workspace, ids: readonly string[], requests: OpenAiTestServer['requests'], where: string): void {
  const log = sessionLog(ws);
  const eventIds = log.map((e) => e.event_id);
  expect(new Set(eventIds).size, `${where}: an event id repeated`).toBe(eventIds.length);
  expect(log.at(-1)?.type, where).toBe('session_completed');
  const completed = new Map<string, EngineEvent>();
  const starts = new Map<string, number>();
  for (const event of log) {
    if (event.type === 'step_started') {
      expect(completed.has(event.step), `${where}: ${event.step} started again after it completed`).toBe(false);
      starts.set(event.step, (starts.get(event.step) ?? 0) + 1);
    }
    if (event.type === 'step_completed') {
      expect(completed.has(event.step), `${where}: ${event.step} completed twice`).toBe(false);
      completed.set(event.step, event);
    }
  }
  expect([...completed.keys()].sort(), where).toEqual([...ids].sort());
  const asked = new Map<string, number>();
  for (const request of requests) {
    const step = requestStep(request.user);
    const done = completed.get(step);
    expect(done, `${where}: a request for ${step}, no such step`).toBeDefined();
    expect(request.at, `${where}: ${step} was sent to the model after it completed`).toBeLessThanOrEqual(Date.parse(done!.ts));
    asked.set(step, (asked.get(step) ?? 0) + 1);
  }
  for (const [step, count] of asked) expect(count, `${where}: ${step} requested more often than started`).toBeLessThanOrEqual(starts.get(step) ?? 0);
}

/**
 * One round: `acode run`, then `acode resume` until the session completes; each process is SIGKILLed
 * at a random instant while model calls are in flight (the first always, later ones with probability
 * 0.7, at most `maxKills` in all).
 */
export async function killedAndResumed(spec: string, ids: readonly string[], rand: () => number, firstKillInFlight: number, where: string, answer?: MarkedAnswer): Promise<{ artifact: Buffer; inFlight: number[] }> {
  const maxKills = 4;
  return withServer(async (server, baseUrl) => {
    const ws = workspace(spec, baseUrl);
    let run = startCli(['run', 'spec.yaml', '--json'], ws);
    let kills = 0;
    const inFlight: number[] = [];
    let id: string | undefined;
    const transcript: string[] = [];
    for (let processes = 1; ; processes++) {
      expect(processes, `${where}: no end after ${processes} processes\n${transcript.join('\n')}`).toBeLessThan(12);
      await started(run);
      if (kills < maxKills && (kills === 0 || rand() < 0.7)) {
        // At a random point of what is left to run — after the n-th model call this process makes,
        // a random part of an answer's latency later — and only while a call is in flight: a kill
        // between steps would prove less. The first kill of some rounds waits for several at once.
        const alive = () => run.child.exitCode === null && run.child.signalCode === null;
        const want = kills === 0 ? firstKillInFlight : 1;
        const left = ids.length - completedSteps(ws).size;
        const nth = server.requests.length + (want > 1 ? want : 1 + Math.floor(rand() * left));
        while (server.requests.length < nth && alive()) await pause(2);
        // (Waiting for several, a pause could let them finish and leave too few ever in flight again.)
        if (want === 1) await pause(rand() * latencyMs);
        while (server.pending < want && alive()) await pause(2);
        run.child.kill('SIGKILL');
      }
      const result = await run.done;
      transcript.push(`[${processes}] ${result.signal ?? result.code}\n${result.stderr}`);
      id ??= readdirSync(join(ws.home, 'sessions'))[0];
      const status = result.code === null ? undefined : (JSON.parse(result.stdout || '{}') as { status?: string }).status;
      if (result.signal === 'SIGKILL') {
        kills++;
        // The steps the kill cut short: started, not finished (replayed as a resume replays them).
        inFlight.push(Object.keys(replayEvents(sessionLog(ws), ids.length).in_progress).length);
      } else if (result.code === 0 || result.code === 15) {
        // 15: killed just after it had finished; the session is complete, and a resume says so.
        break;
      } else if (!(result.code === 1 && status === 'awaiting_approval')) {
        // An approval left waiting is answered by the next resume (--approve); anything else is a failure.
        expect.fail(`${where}: a process ended ${result.code}\n${transcript.join('\n')}`);
      }
      run = startCli(['resume', id!, '--approve', '--json'], ws);
    }
    checkDurable(ws, ids, server.requests, `${where} (${kills} kills)\n${transcript.join('\n')}`);
    return { artifact: readFileSync(join(ws.cwd, 'artifacts/out/report.md')), inFlight };
  }, answer);
}

