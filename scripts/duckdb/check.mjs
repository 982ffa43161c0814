// Reads the Parquet shards of triage corpus folders with DuckDB and prints
// {"rows", "mean_pass_rate", "edits", "trees", "solved_trees"} as JSON.
//
//   node scripts/duckdb/check.mjs CORPUS_DIR [CORPUS_DIR...]
//
// Installs @duckdb/node-api into this folder on first use.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
if (!existsSync(join(here, "node_modules", "@duckdb", "node-api"))) {
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--silent"], {
    cwd: here,
    stdio: ["ignore", "inherit", "inherit"],
  });
}
const { DuckDBInstance } = await import("@duckdb/node-api");

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  console.error("usage: node check.mjs CORPUS_DIR...");
  process.exit(2);
}
const globs = dirs.map((d) => `'${join(d, "part-*.parquet").replaceAll("'", "''")}'`);
const src = `read_parquet([${globs.join(", ")}])`;

const db = await DuckDBInstance.create(":memory:");
const conn = await db.connect();
async function one(sql) {
  const reader = await conn.runAndReadAll(sql);
  return reader.getRowObjects()[0];
}
const r = await one(`SELECT count(*)::BIGINT AS n, avg(pass_rate) AS p,
  coalesce(sum(len(edits)), 0)::BIGINT AS e, count(DISTINCT tree_id)::BIGINT AS t FROM ${src}`);
const s = await one(`SELECT count(DISTINCT tree_id)::BIGINT AS s FROM ${src} WHERE solved`);
// Labels: t is 0 on censored edges, and observed labels satisfy 1 <= t <= b.
const bad = await one(`SELECT count(*)::BIGINT AS bad FROM (SELECT unnest(edits) AS e FROM ${src})
  WHERE (e.censored AND e.t <> 0) OR (NOT e.censored AND (e.t < 1 OR e.t > e.b))`);
console.log(JSON.stringify({
  rows: Number(r.n),
  mean_pass_rate: r.p === null ? 0 : Number(r.p),
  edits: Number(r.e),
  trees: Number(r.t),
  solved_trees: Number(s.s),
  bad_labels: Number(bad.bad),
}));
