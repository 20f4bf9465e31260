//! SQL over the generated log set in Ballista standalone (a scheduler and an
//! executor in this process): DataFusion's own JSON format against jitson's,
//! each through the same kind of cluster, checking that every query gives
//! the same rows, and printing times and ratios.
//!
//! Both sessions are Ballista's: jitson's is
//! [`jitson_ballista::default_session_state`], DataFusion's is Ballista's
//! default session (`default_session_builder`, which jitson's builds on)
//! with the table registered by `register_json`. Every query
//! is planned by the client, scheduled, run on the executor and fetched back,
//! so the ratio includes Ballista's own overhead (equal on both sides).
//! Answers are compared as printed; floats may differ in their last digits
//! (a sum's partial sums merge in arrival order, which varies between runs on
//! a cluster), so cells that are numbers on both sides are compared to 1e-12
//! of their value, and the table says when that was needed.
//! Queries run interleaved, round by round (5 rounds, 2 with `--quick`); the
//! first, untimed query per session compiles jitson's decoder.
//!
//! Run (from `ballista/`): `cargo run --release --example sql` (`-- --quick`
//! for 200,000 records instead of 1,000,000). The exit status is 1 if any
//! answer differs.

#[path = "../../arrow/examples/data/logs.rs"]
mod logs;
#[path = "../../arrow/examples/data/sql_bench.rs"]
mod sql_bench;

use std::path::Path;
use std::time::{Duration, Instant};

use ballista::extension::SessionConfigExt as _;
use ballista::prelude::SessionContextExt as _;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::common::Result;
use datafusion::prelude::{JsonReadOptions, SessionConfig, SessionContext};
use jitson_ballista::BallistaJitsonExt;
use sql_bench::{QUERIES, Same, median, same_answers};

#[tokio::main]
async fn main() -> Result<()> {
    let quick = std::env::args().any(|a| a == "--quick");
    let rounds = if quick { 2 } else { 5 };
    let rows = if quick { 200_000 } else { 1_000_000 };
    let dir = std::env::temp_dir().join(format!("jitson-ballista-sql-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let result = run(&dir, rows, rounds).await;
    let _ = std::fs::remove_dir_all(&dir);
    match result {
        Ok(true) => Ok(()),
        Ok(false) => {
            eprintln!("some answers differ");
            std::process::exit(1);
        }
        Err(e) => Err(e),
    }
}

async fn run(dir: &Path, rows: usize, rounds: usize) -> Result<bool> {
    let file = dir.join("logs.json");
    std::fs::write(&file, logs::generate_logs(rows))?;
    let mb = std::fs::metadata(&file)?.len() as f64 / 1e6;
    let path = file.to_str().expect("a UTF-8 temporary path");

    let ours =
        SessionContext::standalone_with_state(jitson_ballista::default_session_state()?).await?;
    ours.register_jitson("t", path, JsonReadOptions::default())
        .await?;
    // Ballista's default session, as jitson's starts from it.
    let state = ballista_core::utils::default_session_builder(SessionConfig::new_with_ballista())?;
    let theirs = SessionContext::standalone_with_state(state).await?;
    theirs
        .register_json("t", path, JsonReadOptions::default())
        .await?;

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "Ballista standalone, {cores} cores; logs: {rows} records, {mb:.1} MB; {rounds} rounds, medians\n"
    );
    println!(
        "| query | DataFusion ms | jitson ms | DataFusion MB/s | jitson MB/s | DataFusion / jitson | same rows |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut all_equal = true;
    for (label, sql) in QUERIES {
        // Warm-up: compiles jitson's decoder, fills the page cache, and
        // gives the answers to compare.
        let (_, ours_rows) = query(&ours, sql).await?;
        let (_, theirs_rows) = query(&theirs, sql).await?;
        let same = same_answers(&ours_rows, &theirs_rows);
        if same == Same::No {
            eprintln!("{label}: jitson\n{ours_rows}\nDataFusion\n{theirs_rows}");
        }
        all_equal &= same != Same::No;
        let (mut ours_t, mut theirs_t) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            if round % 2 == 0 {
                ours_t.push(query(&ours, sql).await?.0);
                theirs_t.push(query(&theirs, sql).await?.0);
            } else {
                theirs_t.push(query(&theirs, sql).await?.0);
                ours_t.push(query(&ours, sql).await?.0);
            }
        }
        let (ours_t, theirs_t) = (median(ours_t), median(theirs_t));
        println!(
            "| {label} | {:.1} | {:.1} | {:.0} | {:.0} | {:.2}× | {} |",
            theirs_t.as_secs_f64() * 1e3,
            ours_t.as_secs_f64() * 1e3,
            mb / theirs_t.as_secs_f64(),
            mb / ours_t.as_secs_f64(),
            theirs_t.as_secs_f64() / ours_t.as_secs_f64(),
            match same {
                Same::Exactly => "yes",
                Same::ButFloatRounding => "yes (floats to 1e-12)",
                Same::No => "NO",
            }
        );
    }
    Ok(all_equal)
}

/// The time of `sql` and its answer, printed.
async fn query(ctx: &SessionContext, sql: &str) -> Result<(Duration, String)> {
    let start = Instant::now();
    let batches = ctx.sql(sql).await?.collect().await?;
    let elapsed = start.elapsed();
    Ok((elapsed, pretty_format_batches(&batches)?.to_string()))
}
