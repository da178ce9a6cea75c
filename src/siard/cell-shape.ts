/**
 * The shape of a column's cells: a predefined value, an ARRAY (a1, a2 ...) of some shape, or a
 * structured UDT (u1, u2 ... one per attribute of the type, each of its own shape), resolved from
 * the column's `type` / `typeSchema` + `typeName` / `cardinality` and the schemas' `<types>`.
 * DISTINCT types resolve to their base. The writer uses it for the cells and the table XSD, the
 * reader for the family of LOBs nested in UDT values.
 */
import { SiardOcflError } from '../errors.js';
import {
  cellType,
  sqlTypeFamily,
  type SiardAttribute,
  type SiardColumn,
  type SiardField,
  type SiardType,
  type SqlTypeFamily,
} from './model.js';

export type CellShape =
  | { kind: 'scalar'; type: string; family: SqlTypeFamily }
  | { kind: 'array'; cardinality: number; element: CellShape }
  | { kind: 'udt'; schema: string; name: string; attributes: Array<{ name: string; shape: CellShape }> };

/** Types by schema and name, as every schema of the archive declares them. */
export interface TypeCatalog {
  lookup(schema: string, name: string): SiardType | undefined;
}

export function typeCatalog(schemas: ReadonlyArray<{ name: string; types?: SiardType[] | undefined }>): TypeCatalog {
  const byKey = new Map<string, SiardType>();
  for (const s of schemas) for (const t of s.types ?? []) byKey.set(`${s.name}\u0000${t.name}`, t);
  return { lookup: (schema, name) => byKey.get(`${schema}\u0000${name}`) };
}

/** Nesting deeper than this is refused (readers recurse; SIARD readers refuse deeper values too). */
const MAX_NESTING = 100;

interface Typed {
  type?: string | undefined;
  baseType?: string | undefined;
  typeSchema?: string | undefined;
  typeName?: string | undefined;
  cardinality?: number | undefined;
}

/**
 * The shape of a column of schema `schema`; `where` names it in messages. Throws one sentence when
 * the column names a type no schema declares, or a type without a predefined base or attributes.
 */
export function columnShape(column: SiardColumn, schema: string, types: TypeCatalog, where: string): CellShape {
  return shapeOf({ ...column, type: cellType(column) }, schema, types, where, 0);
}

/** Whether a column has a shape other than a predefined value or an array of predefined values (a UDT somewhere). */
export function isStructured(shape: CellShape): boolean {
  return shape.kind === 'udt' || (shape.kind === 'array' && shape.element.kind !== 'scalar');
}

function shapeOf(t: Typed, schema: string, types: TypeCatalog, where: string, depth: number): CellShape {
  if (depth > MAX_NESTING) throw shapeError(`${where}: its type nests more than ${MAX_NESTING} levels deep (a type that contains itself?)`);
  if (t.cardinality !== undefined) {
    return {
      kind: 'array',
      cardinality: t.cardinality,
      element: shapeOf({ ...t, cardinality: undefined }, schema, types, where, depth + 1),
    };
  }
  const predefined = t.type ?? t.baseType;
  if (predefined !== undefined) {
    let family: SqlTypeFamily;
    try {
      family = sqlTypeFamily(predefined);
    } catch {
      throw shapeError(`${where}: "${predefined}" is not a SQL:2008 predefined type`);
    }
    return { kind: 'scalar', type: predefined, family };
  }
  if (t.typeName === undefined) throw shapeError(`${where}: it has neither a type nor a typeName`);
  const typeSchema = t.typeSchema ?? schema;
  const type = types.lookup(typeSchema, t.typeName);
  if (!type) throw shapeError(`${where}: its type ${typeSchema}.${t.typeName} is not declared in any schema's <types>`);
  if (type.category === 'distinct' || type.base !== undefined) {
    if (type.base === undefined) throw shapeError(`${where}: the DISTINCT type ${typeSchema}.${type.name} has no <base>`);
    return shapeOf({ type: type.base }, typeSchema, types, where, depth + 1);
  }
  const attributes = (type.attributes ?? []).map((a: SiardAttribute) => ({
    name: a.name,
    shape: shapeOf(a, typeSchema, types, `${where}, attribute ${a.name} of ${typeSchema}.${type.name}`, depth + 1),
  }));
  if (attributes.length === 0) throw shapeError(`${where}: the structured type ${typeSchema}.${type.name} declares no attributes`);
  return { kind: 'udt', schema: typeSchema, name: type.name, attributes };
}

function shapeError(sentence: string): SiardOcflError {
  return new SiardOcflError(`${sentence}.`, { code: 'SIARD_TYPE', exitCode: 1 });
}

/** `<fields>` for a UDT column that has none: one per attribute (its name), nested for nested UDTs. */
export function fieldsOfShape(shape: CellShape): SiardField[] | undefined {
  if (shape.kind !== 'udt') return undefined;
  return shape.attributes.map((a) => {
    const nested = fieldsOfShape(a.shape);
    return nested ? { name: a.name, fields: nested } : { name: a.name };
  });
}
