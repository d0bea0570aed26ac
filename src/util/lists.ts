/** Comma-separated lists of flag values (`rawrag ablate --k 1,5,15`): InputErrors name the flag. */
import { InputError } from './errors.js';

/** Parses `1,5,15` into positive whole numbers (for commander). */
export function parsePositiveList(value: string, flag: string): number[] {
  const parts = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new InputError('empty list', { place: flag });
  return parts.map((p) => {
    const n = Number(p);
    if (!/^\d+$/.test(p) || !Number.isSafeInteger(n) || n <= 0)
      throw new InputError(`'${p}' is not a positive whole number`, { place: flag });
    return n;
  });
}

/** Parses `0.8,0.9` into numbers in [0, 1] (for commander). */
export function parseUnitList(value: string, flag: string): number[] {
  const parts = splitList(value, flag);
  return parts.map((p) => {
    const n = Number(p);
    if (!/^\d*\.?\d+$/.test(p) || n < 0 || n > 1) throw new InputError(`'${p}' is not a number between 0 and 1`, { place: flag });
    return n;
  });
}

export function splitList(value: string, flag: string): string[] {
  const parts = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new InputError('empty list', { place: flag });
  return parts;
}
