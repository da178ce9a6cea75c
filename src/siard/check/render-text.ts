/** The text report of a check: failures first (each finding with where), then counts per status. */
import type { CheckFinding, CheckResult } from './report.js';

function where(f: CheckFinding): string {
  const parts = [f.entry, f.table && `table ${f.table}`, f.row !== undefined && `row ${f.row}`, f.column && `column ${f.column}`].filter(
    Boolean,
  );
  return parts.length > 0 ? ` [${parts.join(', ')}]` : '';
}

export function renderText(target: string, result: CheckResult): string {
  const lines: string[] = [];
  for (const q of result.requirements.filter((x) => x.status === 'failed')) {
    lines.push(`FAILED ${q.id} (${q.source})`);
    for (const f of q.findings) lines.push(`  - ${f.message}${where(f)}`);
  }
  const counts = new Map<string, number>();
  for (const q of result.requirements) counts.set(q.status, (counts.get(q.status) ?? 0) + 1);
  const order = ['passed', 'failed', 'not-applicable', 'not-checked'];
  lines.push(
    `${result.ok ? 'CONFORMANT' : 'NOT CONFORMANT'}: ${target}: ${result.requirements.length} requirements: ` +
      order.map((s) => `${counts.get(s) ?? 0} ${s}`).join(', ') +
      '.',
  );
  return `${lines.join('\n')}\n`;
}
