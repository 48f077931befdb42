import { expect } from 'vitest';
import { killedAndResumed, uninterrupted } from './kill-harness.js';
import { random } from './lock-race.js';
import { markedEvaluator, markedGraph, markedOrchestrator, markedRouting } from './marked-specs.js';

/**
 * The patterns that decide at run time, under kill -9: the router's choice, the evaluator's scores,
 * the orchestrator's plan and the graph's path are steps' recorded answers, so a resume derives the
 * same steps and never asks again. Each pattern takes at least `trials` kills at random instants
 * while a model call is in flight (its first process always, later ones with probability 0.7, up to
 * four a session), and every session must complete byte-identical to an uninterrupted run, with no
 * finished step sent to the model again. One test file a pattern, so they run side by side.
 */
export const decidingSpecs = {
  routing: markedRouting,
  evaluator_optimizer: markedEvaluator,
  // Twelve workers, four at once: kills land with several in flight.
  orchestrator_workers: () => markedOrchestrator(12, 4),
  graph: markedGraph,
};

export const trials = Number(process.env.ACODE_TEST_KILLS ?? 50);
const seed = Number(process.env.ACODE_TEST_SEED ?? Date.now() % 1_000_000);

/** Kills and resumes sessions of `pattern` until `trials` kills have landed; returns how many did. */
export async function killAndResumeUntilTrials(pattern: keyof typeof decidingSpecs): Promise<number> {
  const { spec, ids, answer } = decidingSpecs[pattern]();
  const reference = await uninterrupted(spec, answer);
  const rand = random(seed + pattern.length);
  const inFlight: number[] = [];
  let rounds = 0;
  while (inFlight.length < trials) {
    const where = `${pattern}, seed ${seed} (ACODE_TEST_SEED=${seed}), round ${rounds}`;
    const outcome = await killedAndResumed(spec, ids, rand, rounds === 0 && pattern === 'orchestrator_workers' ? 3 : 1, where, answer);
    expect(outcome.artifact.equals(reference.artifact), `${where}: artifact differs from the uninterrupted run\n${outcome.artifact.toString()}\n---\n${reference.artifact.toString()}`).toBe(true);
    inFlight.push(...outcome.inFlight);
    rounds++;
  }
  console.log(`${pattern}: ${rounds} rounds, ${inFlight.length} kills, steps in flight at each: ${inFlight.join(' ')}; seed ${seed}; a run takes ${reference.ms} ms`);
  expect(Math.max(...inFlight), `seed ${seed}`).toBeGreaterThanOrEqual(pattern === 'orchestrator_workers' ? 3 : 1);
  return inFlight.length;
}
