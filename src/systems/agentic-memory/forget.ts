/**
 * Forgetting, as the handbook lays it out: each item has an importance ceiling, a decay rate and
 * a key-attribute flag (identity, safety preferences: never decay, never evicted). An item's
 * decayed importance = min(importance, ceiling) * exp(-rate * days since last access); a
 * never-accessed item below `floor` is expired. Eviction beyond `maxItems` takes the lowest
 * decayed importance, then the longest unaccessed, first. Writes per time window are capped.
 * Forgotten items keep their row (status `forgotten`, the reason recorded); physical deletion is
 * `rawrag memory purge`. "Now" is the replayed history's clock (the batch's date at ingest, the
 * question's date at recall). No LLM call: all of it is arithmetic over stored fields.
 */
import type { MemoryConfig } from './config.js';
import type { MemoryRow, MemoryStore } from './store.js';
import { round } from '../../util/num.js';

export type ForgettingConfig = MemoryConfig['forgetting'];
export type ForgottenReason = 'decayed' | 'evicted' | 'write-cap';

/** An attribute key (`caroline.home_city`) names a key attribute when one of its words is listed. */
export function isKeyAttribute(attribute: string | null, cfg: ForgettingConfig): boolean {
  if (!attribute) return false;
  const words = attribute.toLowerCase().split(/[^a-z0-9]+/);
  return cfg.keyAttributes.some((k) => words.includes(k.toLowerCase()));
}

/** The forgetting fields an item gets when it is written. */
export function forgettingFields(
  item: { memory_type: MemoryRow['memory_type']; attribute: string | null },
  cfg: ForgettingConfig,
): Pick<MemoryRow, 'importance_ceiling' | 'decay_rate' | 'key_attribute'> {
  const key = isKeyAttribute(item.attribute, cfg);
  return {
    importance_ceiling: key ? 1 : cfg.importanceCeiling,
    decay_rate: key ? 0 : Math.LN2 / cfg.halfLifeDays[item.memory_type],
    key_attribute: key,
  };
}

/** Importance after decay at `nowDay`; an unreadable date decays nothing (as if just accessed). */
export function decayedImportance(m: MemoryRow, nowDay: number | null): number {
  const capped = Math.min(m.importance, m.importance_ceiling);
  if (m.key_attribute || nowDay === null || m.last_access_day === null) return capped;
  const days = Math.max(0, nowDay - m.last_access_day);
  return capped * Math.exp(-m.decay_rate * days);
}

/** Expired: never accessed, not a key attribute, decayed below the floor (the recall hard filter). */
export function expired(m: MemoryRow, nowDay: number | null, cfg: ForgettingConfig): boolean {
  return cfg.enabled && !m.key_attribute && m.access_count === 0 && decayedImportance(m, nowDay) < cfg.floor;
}

/** The write window an item created on `day` falls in; null (no cap) when its date is unreadable. */
export function writeWindow(day: number | null, cfg: ForgettingConfig): { from: number; to: number } | null {
  if (day === null) return null;
  const from = Math.floor(day / cfg.writeWindowDays) * cfg.writeWindowDays;
  return { from, to: from + cfg.writeWindowDays };
}

/**
 * Marks expired items, then evicts beyond capacity, among `active` (the scope's active items,
 * updated in place). Runs inside the caller's transaction. Returns the ids forgotten, with why.
 */
export function forgetExpiredAndEvict(
  store: MemoryStore,
  active: MemoryRow[],
  now: { day: number | null; at: string | null },
  cfg: ForgettingConfig,
): Array<{ memory_id: string; reason: ForgottenReason }> {
  if (!cfg.enabled) return [];
  const out: Array<{ memory_id: string; reason: ForgottenReason }> = [];
  const drop = (m: MemoryRow, reason: ForgottenReason, note: string) => {
    store.forget(m.memory_id, reason, note, now.at);
    m.status = 'forgotten';
    active.splice(active.indexOf(m), 1);
    out.push({ memory_id: m.memory_id, reason });
  };
  for (const m of active.filter((x) => expired(x, now.day, cfg))) {
    const days = now.day !== null && m.last_access_day !== null ? Math.round(now.day - m.last_access_day) : null;
    drop(m, 'decayed', `importance ${round(decayedImportance(m, now.day), 3)} < floor ${cfg.floor} after ${days} days unaccessed`);
  }
  const excess = active.length - cfg.maxItems;
  if (excess > 0) {
    const victims = active
      .filter((m) => !m.key_attribute)
      .sort(
        (a, b) =>
          decayedImportance(a, now.day) - decayedImportance(b, now.day) ||
          (a.last_access_day ?? Infinity) - (b.last_access_day ?? Infinity) ||
          a.seq - b.seq,
      )
      .slice(0, excess);
    for (const m of victims) drop(m, 'evicted', `over capacity ${cfg.maxItems}: importance ${round(decayedImportance(m, now.day), 3)}`);
  }
  return out;
}
