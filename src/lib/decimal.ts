/**
 * Decimal numbers carried in binary ones. Amounts are written in decimals that binary fractions
 * cannot hold exactly, so adding them as floats shows noise (1383.8899999999999). Here a number is
 * taken as the decimal its shortest form shows: sums are exact while the values have at most
 * MAX_DECIMALS decimals, and rounding goes by those digits (1.005 to 2 decimals is 1.01).
 */
import currencyCodes from 'currency-codes';

/** Most decimals tracked; a sum with a value of more is a plain float sum. */
export const MAX_DECIMALS = 12;

/** The decimals of a currency's minor unit (2 for USD, 0 for JPY, 3 for BHD); 2 when unknown or none. */
export function minorUnits(currencyCode: string | undefined): number {
  if (!currencyCode) return 2;
  return currencyCodes.code(currencyCode)?.digits ?? 2;
}

/** The fewest decimals, `from` or more, `value` is written with; null past MAX_DECIMALS. */
export function decimalsOf(value: number, from = 0): number | null {
  for (let k = from; k <= MAX_DECIMALS; k++) {
    const scale = 10 ** k;
    if (Math.round(value * scale) / scale === value) return k;
  }
  return null;
}

/** `units` (an integer at `decimals`) rounded half away from zero to `digits` decimals, as a number. */
function roundUnits(units: number, decimals: number, digits: number): number {
  if (digits >= decimals) return units / 10 ** decimals;
  const step = 10 ** (decimals - digits);
  const whole = Math.abs(units);
  let q = Math.floor(whole / step);
  if (2 * (whole - q * step) >= step) q++;
  return (Math.sign(units) * q) / 10 ** digits;
}

/** `value` rounded half away from zero to `digits` decimals, by the decimal digits it shows. */
export function roundTo(value: number, digits: number): number {
  const decimals = decimalsOf(value);
  if (decimals !== null && Number.isSafeInteger(Math.round(value * 10 ** decimals))) return roundUnits(Math.round(value * 10 ** decimals), decimals, digits);
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** A running sum (and mean) of numbers, exact in decimal as long as it can be. */
export class DecimalSum {
  count = 0;
  /** The sum times 10^decimals, an integer while `exact`. */
  private units = 0;
  private decimals = 0;
  private float = 0;
  private exact = true;

  add(value: number): void {
    this.count++;
    this.float += value;
    if (!this.exact) return;
    const decimals = decimalsOf(value, this.decimals);
    if (decimals === null) {
      this.exact = false;
      return;
    }
    if (decimals > this.decimals) {
      this.units *= 10 ** (decimals - this.decimals);
      this.decimals = decimals;
    }
    this.units += Math.round(value * 10 ** this.decimals);
    if (!Number.isSafeInteger(this.units)) this.exact = false;
  }

  /** The sum, rounded to `digits` decimals when given; null for no values. */
  sum(digits?: number): number | null {
    if (this.count === 0) return null;
    if (!this.exact) return digits === undefined ? this.float : roundTo(this.float, digits);
    return roundUnits(this.units, this.decimals, digits ?? this.decimals);
  }

  /** The mean, rounded to `digits` decimals when given; null for no values. */
  mean(digits?: number): number | null {
    if (this.count === 0) return null;
    const mean = this.exact ? this.units / (this.count * 10 ** this.decimals) : this.float / this.count;
    return digits === undefined ? mean : roundTo(mean, digits);
  }
}
