//! The data and queries shared by the standalone test (`tests/standalone.rs`)
//! and the cluster client (`src/bin/jitson-ballista-client.rs`): the
//! generated log set split into files, a file with a broken record, the SQL,
//! and the comparison with local DataFusion.

#![allow(dead_code)]

use std::fs;
use std::io;
use std::path::Path;

use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::common::Result;
use datafusion::prelude::{JsonReadOptions, SessionContext};

#[path = "../../arrow/examples/data/logs.rs"]
mod logs;

/// The line of `broken/broken.json` that is not JSON.
pub const BROKEN_LINE: usize = 3;

/// The queries run over table `logs` (the generated log set): each shape of
/// scan — full, projected, filtered, nested fields, lists, limits and
/// `count(*)`'s empty projection — under aggregates that Ballista splits into
/// stages. Floats are compared through min/max only (sums depend on the
/// order of addition, which partitioning changes).
pub const QUERIES: &[&str] = &[
    "SELECT count(*) AS n FROM logs",
    "SELECT level, count(*) AS n FROM logs GROUP BY level ORDER BY level",
    "SELECT service, count(*) AS n, min(latency_ms) AS lo, max(latency_ms) AS hi, \
     count(latency_ms) AS timed FROM logs GROUP BY service ORDER BY service",
    "SELECT request['method'] AS method, request['status'] AS status, count(*) AS n, \
     sum(request['bytes']) AS bytes FROM logs GROUP BY 1, 2 ORDER BY 1, 2",
    "SELECT count(*) AS n FROM logs WHERE array_has(tags, 'prod')",
    "SELECT ts, service, message FROM logs WHERE level = 'ERROR' ORDER BY ts, service, message LIMIT 25",
    "SELECT user_id, count(*) AS n FROM logs WHERE user_id IS NOT NULL \
     GROUP BY user_id ORDER BY n DESC, user_id LIMIT 10",
    "SELECT * FROM logs ORDER BY ts, service, message LIMIT 5",
];

/// The query over table `broken` (one file, a broken record at
/// [`BROKEN_LINE`]).
pub const BROKEN_QUERY: &str = "SELECT level, count(*) FROM broken GROUP BY level";

/// Writes `rows` generated log records into `files` NDJSON files under
/// `dir/logs/`, and `dir/broken/broken.json`.
pub fn write_data(dir: &Path, rows: usize, files: usize) -> io::Result<()> {
    let text = logs::generate_logs(rows);
    let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
    let logs_dir = dir.join("logs");
    fs::create_dir_all(&logs_dir)?;
    let per_file = lines.len().div_ceil(files.max(1));
    for (i, chunk) in lines.chunks(per_file.max(1)).enumerate() {
        fs::write(logs_dir.join(format!("part-{i}.json")), chunk.concat())?;
    }
    let broken_dir = dir.join("broken");
    fs::create_dir_all(&broken_dir)?;
    let mut broken = Vec::new();
    for (i, line) in lines.iter().take(10).enumerate() {
        if i + 1 == BROKEN_LINE {
            broken.extend_from_slice(
                b"{\"ts\": \"2024-01-01T00:00:00Z\", \"level\": \"INFO\", \"service\": tru\n",
            );
        } else {
            broken.extend_from_slice(line);
        }
    }
    fs::write(broken_dir.join("broken.json"), broken)
}

/// A plain DataFusion context reading `dir/logs/` with DataFusion's own JSON
/// reader: the reference.
pub async fn local_context(dir: &Path) -> Result<SessionContext> {
    let ctx = SessionContext::new();
    ctx.register_json(
        "logs",
        path_of(&dir.join("logs")),
        JsonReadOptions::default(),
    )
    .await?;
    Ok(ctx)
}

/// `path` as a directory URL DataFusion lists.
pub fn path_of(path: &Path) -> String {
    format!("{}/", path.display())
}

/// The rows of `sql` in `ctx`, printed, in order (queries that need an order
/// say so with ORDER BY; queries that do not are compared as sorted rows).
pub async fn rows(ctx: &SessionContext, sql: &str) -> Result<Vec<String>> {
    let batches = ctx.sql(sql).await?.collect().await?;
    let text = pretty_format_batches(&batches)?.to_string();
    let mut lines: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with('+'))
        .map(str::to_string)
        .collect();
    if !sql.contains("ORDER BY") && lines.len() > 1 {
        lines[1..].sort();
    }
    Ok(lines)
}

/// Whether an error's text names line [`BROKEN_LINE`] of the broken file as
/// jitson's `ScanError` displays it (`…broken.json: line 3, column 63 …`).
/// Ballista formats a failed task's error with `{:?}`; `ScanError`'s `Debug`
/// is its `Display` text, so the same words arrive through a cluster.
pub fn names_line(error: &str) -> bool {
    error.contains(&format!("broken.json: line {BROKEN_LINE}, column "))
}
