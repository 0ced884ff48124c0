/**
 * `npm run bench -- crash`: the crash storm, 100 SIGKILLs by default (CRASH_KILLS, CRASH_SEED to
 * change) of a child server under mixed client work, each followed by a restart and a full check
 * of the clients' log of acknowledged operations. Prints the figures and every problem found.
 */
import { formatStorm, runStorm } from '../test/faults/crash-storm';
import { machine, printTable } from './lib';

export async function run(): Promise<void> {
  const kills = Number(process.env.CRASH_KILLS ?? 100);
  const seed = Number(process.env.CRASH_SEED ?? 16);
  const started = performance.now();
  const report = await runStorm({ seed, kills, workers: 6, lifeMs: [500, 3000], log: (line) => console.log(`  ${line}`) });
  printTable(`Crash storm (seed ${seed}, ${Math.round((performance.now() - started) / 1000)} s, ${machine()})`, formatStorm(report));
  for (const problem of report.problems) console.log(problem);
}
