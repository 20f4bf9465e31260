//! The client of `scripts/ballista.sh`.
//!
//! - `jitson-ballista-client generate --dir DIR [--rows N] [--files K]` writes
//!   the generated log set into K NDJSON files under DIR/logs/ and a file
//!   with a broken record under DIR/broken/.
//! - `jitson-ballista-client run --scheduler-port P --dir DIR` runs the
//!   queries on the cluster whose scheduler is 127.0.0.1:P, compares each
//!   result with local DataFusion's own JSON reader, checks that the broken
//!   file fails its query with its path and line and that the cluster then
//!   serves the next query, and that `COPY … STORED AS JSON` through the
//!   cluster writes the bytes DataFusion's `COPY` writes. Exits 1 if anything
//!   differs.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use ballista::prelude::SessionContextExt as _;
use datafusion::common::{DataFusionError, Result};
use datafusion::prelude::{JsonReadOptions, SessionContext};
use jitson_ballista::BallistaJitsonExt;

#[path = "../../common/queries.rs"]
mod queries;

use queries::{BROKEN_QUERY, QUERIES, local_context, path_of, rows, write_data};

const USAGE: &str = "usage: jitson-ballista-client generate --dir DIR [--rows N] [--files K]\n       \
                     jitson-ballista-client run --scheduler-port PORT --dir DIR";

#[tokio::main]
async fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let mut args = std::env::args().skip(1);
    let command = args.next().unwrap_or_default();
    let mut options = std::collections::HashMap::new();
    while let Some(key) = args.next() {
        match args.next() {
            Some(value) if key.starts_with("--") => {
                options.insert(key[2..].to_string(), value);
            }
            _ => return usage(&format!("bad argument `{key}`")),
        }
    }
    let Some(dir) = options.get("dir").map(PathBuf::from) else {
        return usage("--dir is required");
    };
    let number = |key: &str, default: usize| -> std::result::Result<usize, String> {
        match options.get(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| format!("bad --{key} `{v}`")),
        }
    };
    match command.as_str() {
        "generate" => {
            let (rows, files) = match (number("rows", 50_000), number("files", 4)) {
                (Ok(rows), Ok(files)) => (rows, files),
                (Err(e), _) | (_, Err(e)) => return usage(&e),
            };
            match write_data(&dir, rows, files) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("jitson-ballista-client: writing {}: {e}", dir.display());
                    ExitCode::FAILURE
                }
            }
        }
        "run" => {
            let port = match number("scheduler-port", 0) {
                Ok(port) if port > 0 && port <= usize::from(u16::MAX) => port,
                Ok(_) => return usage("--scheduler-port is required"),
                Err(e) => return usage(&e),
            };
            match run(port, &dir).await {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => ExitCode::FAILURE,
                Err(e) => {
                    eprintln!("jitson-ballista-client: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => usage("the command is `generate` or `run`"),
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!("jitson-ballista-client: {message}\n{USAGE}");
    ExitCode::from(2)
}

/// Runs everything; `Ok(false)` if a check failed.
async fn run(port: usize, dir: &Path) -> Result<bool> {
    let local = local_context(dir).await?;
    let state = jitson_ballista::default_session_state()?;
    let ctx = SessionContext::remote_with_state(&format!("df://127.0.0.1:{port}"), state).await?;
    let logs = path_of(&dir.join("logs"));
    ctx.register_jitson("logs", &logs, JsonReadOptions::default())
        .await?;
    ctx.sql(&format!(
        "CREATE EXTERNAL TABLE logs_sql STORED AS JSON LOCATION '{logs}'"
    ))
    .await?
    .collect()
    .await?;

    let mut all_ok = true;
    let mut check = |name: &str, ok: bool, ms: u128, detail: &str| {
        println!(
            "{:<8} {ms:>6} ms  {name}{detail}",
            if ok { "ok" } else { "MISMATCH" }
        );
        all_ok &= ok;
    };
    for sql in QUERIES
        .iter()
        .map(|s| s.to_string())
        .chain([QUERIES[1].replace("logs", "logs_sql")])
    {
        let expected = rows(&local, &sql.replace("logs_sql", "logs")).await?;
        let start = Instant::now();
        let got = rows(&ctx, &sql).await?;
        let ms = start.elapsed().as_millis();
        let detail = if got == expected {
            String::new()
        } else {
            format!("\n  cluster: {got:?}\n  local:   {expected:?}")
        };
        check(&sql, got == expected, ms, &detail);
    }

    // COPY … STORED AS JSON runs on an executor, through jitson's writer:
    // the same bytes as DataFusion's COPY of the same (totally ordered) query.
    let query = "SELECT * FROM logs ORDER BY ts, service, level, message, latency_ms, user_id";
    let ours = dir.join("copy-cluster.json");
    let theirs = dir.join("copy-local.json");
    let start = Instant::now();
    ctx.sql(&format!(
        "COPY ({query}) TO '{}' STORED AS JSON",
        ours.display()
    ))
    .await?
    .collect()
    .await?;
    let ms = start.elapsed().as_millis();
    local
        .sql(&format!(
            "COPY ({query}) TO '{}' STORED AS JSON",
            theirs.display()
        ))
        .await?
        .collect()
        .await?;
    let (ours, theirs) = (std::fs::read(&ours)?, std::fs::read(&theirs)?);
    check(
        "COPY (SELECT * FROM logs ORDER BY …) TO '…' STORED AS JSON",
        !ours.is_empty() && ours == theirs,
        ms,
        &if ours == theirs {
            format!(" ({} bytes, as DataFusion's)", ours.len())
        } else {
            format!(
                "\n  {} bytes, DataFusion wrote {}",
                ours.len(),
                theirs.len()
            )
        },
    );

    // A broken file: its query fails with the file and line...
    let schema = ctx.table("logs").await?.schema().as_arrow().clone();
    let broken = path_of(&dir.join("broken"));
    ctx.register_jitson(
        "broken",
        &broken,
        JsonReadOptions::default().schema(&schema),
    )
    .await?;
    let start = Instant::now();
    let outcome = rows(&ctx, BROKEN_QUERY).await;
    let ms = start.elapsed().as_millis();
    match outcome {
        Ok(rows) => check(
            BROKEN_QUERY,
            false,
            ms,
            &format!("\n  read a broken file: {rows:?}"),
        ),
        Err(e) => {
            let message = root_message(&e);
            let ok = message.contains("broken.json") && queries::names_line(&message);
            check(
                BROKEN_QUERY,
                ok,
                ms,
                &format!(" (fails as it should)\n  error: {message}"),
            );
        }
    }
    // ...and the cluster serves the next query.
    let expected = rows(&local, QUERIES[1]).await?;
    let start = Instant::now();
    let got = rows(&ctx, QUERIES[1]).await?;
    check(
        "the next query after the failure",
        got == expected,
        start.elapsed().as_millis(),
        "",
    );
    Ok(all_ok)
}

/// The error's text (Ballista wraps an executor's error in several layers).
fn root_message(e: &DataFusionError) -> String {
    e.to_string()
}
