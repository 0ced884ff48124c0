/**
 * Requests go before background work (the index merge, the background builds). Between two of
 * its steps such work first lets queued requests run, then waits until no request has started or
 * ended for QUIET_MS, at most `yieldMs`: a request then seldom arrives in the middle of a step
 * (it used to wait for a whole step, every time, behind a busy merge), and a steady stream of
 * requests still leaves the work a step in every step + yieldMs.
 */

/** A moment without requests: the gap between one client's sequential requests is shorter. */
export const QUIET_MS = 1;

export class Foreground {
  /** How long since a request started or ended, in ms; the app sets it from its gateway. */
  quietFor: () => number = () => Infinity;

  constructor(private readonly yieldMs: number) {}

  /** Waits for a moment without requests, at most yieldMs, or until `go` says not to wait. */
  async pause(go: () => boolean = () => false): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    const until = performance.now() + this.yieldMs;
    while (!go() && this.quietFor() < QUIET_MS && performance.now() < until) await Bun.sleep(1);
  }
}
