// Writes log.parquet and tlog.parquet, the Parquet twins of log.jsonl and
// tlog.jsonl, the way a warehouse export looks: DuckDB reads the JSON lines
// and writes Parquet (every column OPTIONAL, 3-level LISTs, structs).
// It also writes parts/, log.jsonl's rows as two Parquet parts (rows 1–200
// and 201–400), a log of many files as a warehouse exports it.
// TestRowLogTwinOfTSV and TestRowLogParts check that piopt gives the same
// JSON on all of them.
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
await c.run(`CREATE TABLE rows AS SELECT * FROM read_json('log.jsonl', format = 'newline_delimited', columns = ${columns})`);
const { mkdirSync } = await import('node:fs');
mkdirSync('parts', { recursive: true });
await c.run(`COPY (SELECT * FROM rows LIMIT 200) TO 'parts/part-0.parquet' (FORMAT parquet)`);
await c.run(`COPY (SELECT * FROM rows OFFSET 200) TO 'parts/part-1.parquet' (FORMAT parquet)`);
