/** The catalogue entry of a table, from what a server source's introspection planned for it. */
import type { SiardCheckConstraint, SiardColumn, SiardForeignKey, SiardTrigger, SiardUniqueKey } from '../siard/model.js';
import type { SourceTable } from '../siard/database-source.js';

/** What PostgreSQL's and MariaDB's table plans share. */
export interface PlannedTable<Check extends SiardCheckConstraint> {
  name: string;
  columns: Array<{ column: SiardColumn }>;
  primaryKey?: SiardUniqueKey;
  foreignKeys: SiardForeignKey[];
  candidateKeys: SiardUniqueKey[];
  checkConstraints: Check[];
  triggers: SiardTrigger[];
  estimatedRows: number;
  description?: string;
}

export function sourceTableOf<Check extends SiardCheckConstraint>(plan: PlannedTable<Check>): SourceTable & { checkConstraints: Check[] } {
  const table: SourceTable & { checkConstraints: Check[] } = {
    name: plan.name,
    columns: plan.columns.map((c) => c.column),
    foreignKeys: plan.foreignKeys,
    candidateKeys: plan.candidateKeys,
    checkConstraints: plan.checkConstraints,
    rows: plan.estimatedRows,
  };
  if (plan.primaryKey) table.primaryKey = plan.primaryKey;
  if (plan.triggers.length > 0) table.triggers = plan.triggers;
  if (plan.description) table.description = plan.description;
  return table;
}
