/**
 * The short crash storm (the long one is `npm run bench -- crash`): a few SIGKILLs of a child
 * server under mixed client work; nothing acknowledged is lost or changed, no request is half
 * applied, indexes equal a full scan, nothing is stuck, every acknowledged batch's event arrives.
 */
import { expect, test } from 'bun:test';
import { runStorm } from './crash-storm';

const SEED = 16;

test(`crash storm (seed ${SEED}): 3 kills lose nothing acknowledged`, async () => {
  const report = await runStorm({ seed: SEED, kills: 3, workers: 4, lifeMs: [800, 2000] });
  if (report.problems.length) console.error(`crash storm seed ${SEED}:\n${report.problems.join('\n')}`);
  expect(report.kills).toBe(3);
  expect(report.acknowledged).toBeGreaterThan(20);
  const { lost, changed, phantom, partial, duplicated, indexMismatches, batchesStuck, exportsStuck, batchesFailedWithoutReason, webhookEventsMissing } = report;
  expect({ lost, changed, phantom, partial, duplicated, indexMismatches, batchesStuck, exportsStuck, batchesFailedWithoutReason, webhookEventsMissing }).toEqual({
    lost: 0, changed: 0, phantom: 0, partial: 0, duplicated: 0, indexMismatches: 0, batchesStuck: 0, exportsStuck: 0, batchesFailedWithoutReason: 0, webhookEventsMissing: 0,
  });
  expect(report.problems).toEqual([]);
}, 60_000);
