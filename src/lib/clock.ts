/** The one clock every timestamp and timer reads, so tests can move time. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; tests use it to reach deadlines without sleeping. */
export class ManualClock implements Clock {
  constructor(private time = Date.now()) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
  set(ms: number): void {
    this.time = ms;
  }
}
