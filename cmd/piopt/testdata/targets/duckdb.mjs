// Writes log.parquet and tlog.parquet, the Parquet twins of log.jsonl and
// tlog.jsonl, the way a warehouse export looks: DuckDB reads the JSON lines
// and writes Parquet (every column OPTIONAL, 3-level LISTs, structs).
// TestRowLogParquetTwin checks that piopt gives the same JSON on both.
// Tests do not run this (CI has no DuckDB); to rerun it:
//
//	mkdir -p /tmp/duck && (cd /tmp/duck && npm install @duckdb/node-api)
//	NODE_PATH=/tmp/duck/node_modules node duckdb.mjs   (in this folder)
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const { DuckDBInstance } = require(require.resolve('@duckdb/node-api', { paths: (process.env.NODE_PATH || '').split(':') }));

const policy = "STRUCT(spec VARCHAR, candidates VARCHAR[], scores DOUBLE[], slates VARCHAR[][], probs DOUBLE[])";
const columns = `{context: 'VARCHAR', slate: 'VARCHAR[]', reward: 'DOUBLE', policy: '${policy}', target: '${policy}'}`;
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
for (const name of ['log', 'tlog']) {
  await c.run(`COPY (SELECT * FROM read_json('${name}.jsonl', format = 'newline_delimited', columns = ${columns}))
    TO '${name}.parquet' (FORMAT parquet)`);
}
