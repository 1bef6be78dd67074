// duckdb.mjs writes the Parquet fixtures of data/parquetlog_test.go with
// DuckDB, an independent writer, the way a warehouse export looks: every
// column OPTIONAL, 3-level LIST columns (list/element), policy and target
// as struct columns. The tests do not run it (CI has no DuckDB); the
// .parquet files it writes are committed. To rerun after changing it:
//
//	mkdir -p /tmp/duck && cd /tmp/duck && npm install @duckdb/node-api
//	cp /path/to/piopt/data/testdata/rowlog/duckdb.mjs /tmp/duck/ # node resolves imports beside the script
//	node /tmp/duck/duckdb.mjs /path/to/piopt/data/testdata/rowlog
//
// and update the expected values in data/parquetlog_test.go if the rows
// changed.
import { DuckDBInstance } from '@duckdb/node-api';

const out = process.argv[2] ?? '.';
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();

// The struct type of policy and target, as the issue gives it.
const POL = 'STRUCT(spec VARCHAR, candidates VARCHAR[], scores DOUBLE[], slates VARCHAR[][], probs DOUBLE[])';

async function copy(name, select, opts = '') {
  await c.run(`COPY (${select}) TO '${out}/${name}' (FORMAT parquet${opts})`);
}

// good.parquet: one row of every kind, columns out of order, an extra
// column (a warehouse's own) in front.
await copy('good.parquet', `
SELECT * FROM (VALUES
  (1001::BIGINT, 0.42::DOUBLE, 'q17', ['d3','d1','d9'],
   {'spec':'pl:1','candidates':['d1','d3','d9','d4'],'scores':[0.2,1.3,-0.4,0.0],'slates':NULL,'probs':NULL}::${POL},
   NULL::${POL}),
  (1002, 0.0, 'q17@b', ['d4','d1'],
   {'spec':'uniform','candidates':['d1','d3','d9','d4'],'scores':NULL,'slates':NULL,'probs':NULL}::${POL},
   {'spec':'rank','candidates':['d4','d3','d1','d9'],'scores':NULL,'slates':NULL,'probs':NULL}::${POL}),
  (1003, 1.0, 'q18', ['é1','d2'],
   {'spec':'eps:0.2,pa:1','candidates':['d2','é1','d5'],'scores':NULL,'slates':NULL,'probs':NULL}::${POL},
   {'spec':'pl:0.5','candidates':['d2','é1','d5'],'scores':[1e-300,-2.5,3.0],'slates':NULL,'probs':NULL}::${POL}),
  (1004, -0.25, 'q19', ['a:b','c=d'],
   {'spec':'slates','candidates':NULL,'scores':NULL,'slates':[['a:b','c=d'],['c=d','a:b'],[]],'probs':[0.75,0.25,0.0]}::${POL},
   NULL::${POL}),
  (1005, 3.5, 'q20', [],
   NULL::${POL},
   NULL::${POL}),
  (1006, 2.0, 'q21', ['x'],
   {'spec':'pl:2','candidates':[],'scores':[],'slates':[],'probs':[]}::${POL},
   NULL::${POL})
) AS t(session_id, reward, context, slate, policy, target)`);

// bare.parquet: only the three required columns, reward as DECIMAL (a
// literal 0.42 in SQL) and as an integer elsewhere: no policy column.
await copy('bare.parquet', `
SELECT 'q1' AS context, ['d1','d2'] AS slate, 0.42 AS reward, 7::INTEGER AS clicks
UNION ALL SELECT 'q2', ['d2'], 1.5, 0`);
await copy('intreward.parquet', `
SELECT 'q1' AS context, ['d1'] AS slate, 1::INTEGER AS reward
UNION ALL SELECT 'q2', ['d2'], -3::BIGINT`);

// many.parquet: 5000 rows in row groups of 2048, to read across row
// groups and pages. Row i (from 1) has context q<i%7>, slate [d<i%5>,
// d<(i+1)%5>], reward (i%16)/8 and a pl policy over d0..d4 with scores
// (i%4)/4 + j; every third row has no policy.
await copy('many.parquet', `
SELECT 'q' || (i % 7) AS context,
  ['d' || (i % 5), 'd' || ((i + 1) % 5)] AS slate,
  (i % 16) / 8 AS reward,
  CASE WHEN i % 3 = 0 THEN NULL ELSE
  {'spec':'pl:1','candidates':['d0','d1','d2','d3','d4'],
   'scores':[(i%4)/4, (i%4)/4 + 1, (i%4)/4 + 2, (i%4)/4 + 3, (i%4)/4 + 4],'slates':NULL,'probs':NULL}::${POL} END AS policy
FROM range(1, 5001) r(i) ORDER BY i`, ', ROW_GROUP_SIZE 2048');

// Bad files, one fault each.
await copy('null_reward.parquet', `
SELECT * FROM (VALUES ('q1', ['d1'], 1.0::DOUBLE), ('q2', ['d2'], NULL)) AS t(context, slate, reward)`);
await copy('null_candidate.parquet', `
SELECT 'q1' AS context, ['d1'] AS slate, 1.0::DOUBLE AS reward,
  {'spec':'uniform','candidates':['d1',NULL,'d3'],'scores':NULL,'slates':NULL,'probs':NULL}::${POL} AS policy`);
await copy('null_score.parquet', `
SELECT * FROM (VALUES
  ('q1', ['d1'], 1.0::DOUBLE, {'spec':'pl:1','candidates':['d1','d2'],'scores':[0.5,1.5],'slates':NULL,'probs':NULL}::${POL}),
  ('q1', ['d1'], 1.0::DOUBLE, {'spec':'pl:1','candidates':['d1','d2','d3','d4'],'scores':[0.5,1.5,2.5,NULL],'slates':NULL,'probs':NULL}::${POL})
) AS t(context, slate, reward, policy)`);
await copy('missing_slate.parquet', `SELECT 'q1' AS context, 1.0::DOUBLE AS reward`);
await copy('wrong_type.parquet', `SELECT 'q1' AS context, ['d1'] AS slate, '0.5' AS reward`);
await copy('wrong_list_type.parquet', `SELECT 'q1' AS context, [1, 2] AS slate, 0.5::DOUBLE AS reward`);
await copy('nan_reward.parquet', `SELECT 'q1' AS context, ['d1'] AS slate, 'NaN'::DOUBLE AS reward`);
await copy('unknown_field.parquet', `
SELECT 'q1' AS context, ['d1'] AS slate, 1.0::DOUBLE AS reward,
  {'spec':'pl:1','candidates':['d1'],'scores':[0.0],'temperature':2.0} AS policy`);
await copy('bad_id.parquet', `
SELECT 'q1' AS context, ['d1', 'd' || chr(9) || '2'] AS slate, 1.0::DOUBLE AS reward`);
await copy('null_context.parquet', `SELECT NULL::VARCHAR AS context, ['d1'] AS slate, 1.0::DOUBLE AS reward`);
await copy('null_spec.parquet', `
SELECT 'q1' AS context, ['d1'] AS slate, 1.0::DOUBLE AS reward,
  NULL::${POL} AS policy,
  {'spec':NULL,'candidates':['d1'],'scores':NULL,'slates':NULL,'probs':NULL}::${POL} AS target`);
await copy('null_slates_entry.parquet', `
SELECT 'q1' AS context, ['d1'] AS slate, 1.0::DOUBLE AS reward,
  {'spec':'slates','candidates':NULL,'scores':NULL,'slates':[['d1'],NULL],'probs':[0.5,0.5]}::${POL} AS policy`);

const r = await c.runAndReadAll(`SELECT file_name, count(*) AS row_groups, sum(row_group_num_rows) AS rows FROM (SELECT DISTINCT file_name, row_group_id, row_group_num_rows FROM parquet_metadata('${out}/many.parquet')) GROUP BY file_name`);
console.log(JSON.stringify(r.getRowObjectsJson()));
