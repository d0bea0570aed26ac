/**
 * `--max-failures N|P%` (issue 43 item 2): the value read as a count or a share of the questions,
 * 0 as never, a default when the flag is not given, and the streak of the same error that stops a
 * run (another error or a success starts it again).
 */
import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { DEFAULT_MAX_FAILURES, addPreflightOptions, maxFailuresValue, withPreflightFlags } from '../../../src/cli/preflight.js';
import { FailureStreak } from '../../../src/pipeline/failure-streak.js';

describe('--max-failures', () => {
  it('reads a count, a share of the questions, or 0 (never); refuses anything else', () => {
    expect(maxFailuresValue('3')).toEqual({ count: 3 });
    expect(maxFailuresValue('5%')).toEqual({ percent: 5 });
    expect(maxFailuresValue('2.5%')).toEqual({ percent: 2.5 });
    expect(maxFailuresValue('0')).toBeNull();
    for (const bad of ['1.5', '150%', 'ten', '-3', '5 %x']) expect(() => maxFailuresValue(bad), bad).toThrow(/is not a count/);
  });

  it('is 10 items in a row when not given; given, it is what was given', () => {
    const parsed = (args: string[]) => {
      const cmd = addPreflightOptions(new Command()).exitOverride();
      cmd.parse(args, { from: 'user' });
      return withPreflightFlags(cmd, {}).maxFailures;
    };
    expect(DEFAULT_MAX_FAILURES).toBe(10);
    expect(parsed([])).toEqual({ count: 10 });
    expect(parsed(['--max-failures', '5%'])).toEqual({ percent: 5 });
    expect(parsed(['--max-failures', '0'])).toBeNull();
  });

  it('a share is of the questions, at least 1; the same error that many times in a row reaches it', () => {
    expect(new FailureStreak({ percent: 5 }, 200).limit).toBe(10);
    expect(new FailureStreak({ percent: 5 }, 10).limit).toBe(1);
    expect(new FailureStreak(null, 10).limit).toBeNull();
    const s = new FailureStreak({ count: 3 }, 100);
    expect([s.add('HTTP 404  model'), s.add('HTTP 404 model'), s.add(null), s.add('HTTP 404 model')]).toEqual([false, false, false, false]);
    expect([s.add('HTTP 404 model'), s.add('HTTP 500'), s.add('HTTP 500'), s.add('HTTP 500')]).toEqual([false, false, false, true]);
    expect(s.error).toBe('HTTP 500');
    const never = new FailureStreak(null, 100);
    expect(Array.from({ length: 50 }, () => never.add('same')).some(Boolean)).toBe(false);
  });
});
