/** Parsers of flag values (commander's InvalidArgumentError: the CLI reports them as usage errors, exit 1). */
import { InvalidArgumentError } from 'commander';

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n <= 0) {
    throw new InvalidArgumentError(`'${value}' is not a positive whole number.`);
  }
  return n;
}

export function integer(value: string): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError(`'${value}' is not a whole number.`);
  return n;
}

export function positiveNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`'${value}' is not a positive number.`);
  return n;
}

export function unitInterval(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new InvalidArgumentError(`'${value}' is not a number between 0 and 1.`);
  return n;
}

export function nonNegativeInteger(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError(`'${value}' is not a whole number >= 0.`);
  return n;
}

/** `--limit N` (the first N) or `--limit A-B` (questions A to B, 1-based and inclusive, as inspect's `--limit 11-20`). */
export function limitOrRange(value: string): number | string {
  const v = value.trim();
  const range = /^(\d+)-(\d+)$/.exec(v);
  if (!range) return positiveInt(value);
  const [from, to] = [Number(range[1]), Number(range[2])];
  if (from < 1 || from > to) throw new InvalidArgumentError(`'${value}' is not a range A-B with 1 <= A <= B.`);
  return `${from}-${to}`;
}
