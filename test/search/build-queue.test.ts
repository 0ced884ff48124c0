/** The build queue: slices, a failing step, building at once, and closing. */
import { expect, test } from 'bun:test';
import { BuildQueue, type BuildTask } from '../../src/search/builds';
import type { Logger } from '../../src/lib/log';

function recorder() {
  const errors: Array<{ event: string; build: unknown }> = [];
  const log: Logger = { info: () => {}, error: (event, fields) => errors.push({ event, build: fields?.build }) };
  return { log, errors };
}

/** A task of `steps` steps that records how it ended; it throws at step `failAt`. */
function task(key: string, steps: number, failAt?: number) {
  let n = 0;
  const ended: { error?: unknown; done: boolean; steps: () => number } = { done: false, steps: () => n };
  const t: BuildTask = {
    key,
    // One unit of work per step in the queue's slices; all of them with no deadline.
    step: (deadline) => {
      do {
        n++;
        if (n === failAt) throw new Error(`step ${n} of ${key} failed`);
        if (n >= steps) return true;
      } while (deadline === Infinity);
      return false;
    },
    done: (error) => Object.assign(ended, { done: true, error }),
  };
  return { t, ended };
}

const settle = async (queue: BuildQueue) => {
  while (queue.size > 0) await Bun.sleep(1);
};

test('tasks run one at a time, a step per tick, in order; a failing step ends its task, is logged, and the next task runs', async () => {
  const { log, errors } = recorder();
  const queue = new BuildQueue(log);
  const a = task('a', 3, 2);
  const b = task('b', 4);
  expect(queue.add(a.t)).toBe(true);
  expect(queue.add(b.t)).toBe(true);
  expect(queue.add(task('a', 1).t)).toBe(false);
  await settle(queue);
  expect([a.ended.done, a.ended.steps(), String(a.ended.error)]).toEqual([true, 2, 'Error: step 2 of a failed']);
  expect([b.ended.done, b.ended.steps(), b.ended.error]).toEqual([true, 4, undefined]);
  expect(errors).toEqual([{ event: 'build_failed', build: 'a' }]);
});

test('a task built at once runs to its end before add returns, failures included', () => {
  const { log, errors } = recorder();
  const queue = new BuildQueue(log);
  const ok = task('ok', 5);
  const bad = task('bad', 5, 3);
  expect(queue.add(ok.t, true)).toBe(true);
  expect(queue.add(bad.t, true)).toBe(true);
  expect([ok.ended.done, ok.ended.steps(), ok.ended.error]).toEqual([true, 5, undefined]);
  expect([bad.ended.done, String(bad.ended.error)]).toEqual([true, 'Error: step 3 of bad failed']);
  expect(errors.map((e) => e.build)).toEqual(['bad']);
  expect(queue.size).toBe(0);
});

test('close ends queued tasks with an error and refuses new ones', () => {
  const queue = new BuildQueue(recorder().log);
  const a = task('a', 100);
  queue.add(a.t);
  queue.close();
  expect(a.ended.done).toBe(true);
  expect(a.ended.error).toBeInstanceOf(Error);
  expect(queue.add(task('b', 1).t)).toBe(false);
  expect(queue.add(task('c', 1).t, true)).toBe(false);
});
