/**
 * The string formats the contract uses, checked as RFC 3339 defines them (the same rules as
 * ajv-formats' full mode), so the standalone validators need nothing outside this folder.
 */
const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DATE = /^(\d\d\d\d)-(\d\d)-(\d\d)$/;
const TIME = /^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?$/i;

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function date(str: string): boolean {
  const m = DATE.exec(str);
  if (!m) return false;
  const year = +m[1]!;
  const month = +m[2]!;
  const day = +m[3]!;
  return month >= 1 && month <= 12 && day >= 1 && day <= (month === 2 && isLeapYear(year) ? 29 : DAYS[month]!);
}

function time(str: string): boolean {
  const m = TIME.exec(str);
  if (!m || !m[4]) return false; // a date-time needs a time zone
  const hr = +m[1]!;
  const min = +m[2]!;
  const sec = +m[3]!;
  const tzSign = m[5] === "-" ? -1 : 1;
  const tzH = +(m[6] || 0);
  const tzM = +(m[7] || 0);
  if (tzH > 23 || tzM > 59) return false;
  if (hr <= 23 && min <= 59 && sec < 60) return true;
  // a leap second is 23:59:60 in UTC
  const utcMin = min - tzM * tzSign;
  const utcHr = hr - tzH * tzSign - (utcMin < 0 ? 1 : 0);
  return (utcHr === 23 || utcHr === -1) && (utcMin === 59 || utcMin === -1) && sec < 61;
}

function dateTime(str: string): boolean {
  const parts = str.split(/t|\s/i);
  return parts.length === 2 && date(parts[0]!) && time(parts[1]!);
}

export const formats: Record<string, { validate: (s: string) => boolean }> = {
  "date-time": { validate: dateTime },
};
