/**
 * A whole number with its thousands grouped by commas (1234567 -> "1,234,567"), as progress lines
 * print counts. Not Intl.NumberFormat: building one loads ICU's number data, 20-30 ms of the
 * start-up of every verb that shows progress, for a format this simple.
 */
export function groupDigits(n: number): string {
  const digits = String(Math.round(Math.abs(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 && Math.round(n) !== 0 ? `-${digits}` : digits;
}
