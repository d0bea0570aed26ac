/**
 * Date awareness for the embedded retriever: a question that names a day or a month ("on
 * December 4, 2023", "in July 2023") points at the turns said around then. Dates are read from
 * the common written forms (LoCoMo "1:56 pm on 8 May, 2023", LongMemEval "2023/05/20 (Sat)
 * 02:21", ISO, "March-15-2024"); anything unreadable simply carries no date signal.
 */
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';

const ISO = /\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)/;
const DAY_MONTH_YEAR = new RegExp(`\\b${DAY}(?:\\s+of)?[\\s-]+${MONTH}\\.?,?[\\s-]+(\\d{4})\\b`, 'i');
const MONTH_DAY_YEAR = new RegExp(`\\b${MONTH}\\.?[\\s-]+${DAY},?[\\s-]+(\\d{4})\\b`, 'i');
const MONTH_YEAR = new RegExp(`\\b${MONTH}\\.?,?\\s+(?:of\\s+)?(\\d{4})\\b`, 'i');

/** Days since 1970-01-01 (UTC), or null for an impossible date. */
function dayNumber(year: number, month: number, day: number): number | null {
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  const t = Date.UTC(year, month - 1, day);
  const d = new Date(t);
  return d.getUTCDate() === day ? t / 86_400_000 : null;
}

const monthIndex = (name: string) => MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;

/** The day a date string names (the first one found), or null. */
export function parseDay(text: string | null): number | null {
  if (!text) return null;
  let m = ISO.exec(text);
  if (m) return dayNumber(Number(m[1]), Number(m[2]), Number(m[3]));
  m = DAY_MONTH_YEAR.exec(text);
  if (m) return dayNumber(Number(m[3]), monthIndex(m[2]!), Number(m[1]));
  m = MONTH_DAY_YEAR.exec(text);
  if (m) return dayNumber(Number(m[3]), monthIndex(m[1]!), Number(m[2]));
  return null;
}

export interface DaySpan {
  first: number;
  last: number;
}

/** The day or month a question names, as a span of days; null when it names neither. */
export function questionSpan(question: string): DaySpan | null {
  const day = parseDay(question);
  if (day !== null) return { first: day, last: day };
  const m = MONTH_YEAR.exec(question);
  if (!m) return null;
  const year = Number(m[2]);
  const month = monthIndex(m[1]!);
  const first = dayNumber(year, month, 1);
  const last = month === 12 ? dayNumber(year + 1, 1, 1) : dayNumber(year, month + 1, 1);
  return first === null || last === null ? null : { first, last: last - 1 };
}

/**
 * Whether a turn said on `day` can be about the span: on it, or up to `lagDays` after it
 * (people report what happened "yesterday" or "last week").
 */
export function saidAbout(day: number | null, span: DaySpan, lagDays: number): boolean {
  return day !== null && day >= span.first && day <= span.last + lagDays;
}
