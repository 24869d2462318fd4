import { parquetWriteBuffer } from 'hyparquet-writer';
import { ordered, type Row, type TableSpec } from './tables.ts';

/** One table as a Parquet file (hyparquet-writer): typed columns, nulls where a value is missing. */
export function parquetOf(spec: TableSpec, rows: readonly Row[]): Uint8Array {
  const full = rows.map((r) => ordered(spec, r));
  const buffer = parquetWriteBuffer({ columnData: spec.columns.map(([name, type]) => ({ name, type, data: full.map((r) => r[name]) })) });
  return new Uint8Array(buffer);
}
